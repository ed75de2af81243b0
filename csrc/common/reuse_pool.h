#pragma once

// Objects whose memory is worth keeping from one call to the next (a file
// buffer, a parse tree, a list), shared by every thread of the process. A
// thread takes one, uses it and gives it back; with N threads loading at
// once the pool ends up holding at most `max_kept` of them.
//
// Not a thread_local: mingw-w64's emulated thread_local can free a thread's
// storage before that thread's destructors run, so a thread_local object
// with a destructor may crash at thread exit in the Windows build.
//
// One pool per use, made as `static ReusePool<T>* const pool = new
// ReusePool<T>(n);`: never destroyed, because a load may still run on
// another thread while the process exits.

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace xsl {

template <typename T>
class ReusePool {
 public:
  explicit ReusePool(size_t max_kept) : max_kept_(max_kept) {
    kept_.reserve(max_kept_);
  }
  ReusePool(const ReusePool&) = delete;
  ReusePool& operator=(const ReusePool&) = delete;

  // A kept object, as the last user left it, or a new one.
  T take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.empty()) {
      return T();
    }
    T object = std::move(kept_.back());
    kept_.pop_back();
    return object;
  }

  // Keeps `object` for a later take() unless max_kept are kept already (it
  // is then destroyed here, outside the lock).
  void give(T object) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.size() < max_kept_) {
      kept_.push_back(std::move(object)); // reserved: cannot throw
    }
  }

  size_t keptCount() {
    std::lock_guard<std::mutex> lock(mutex_);
    return kept_.size();
  }

 private:
  std::mutex mutex_;
  std::vector<T> kept_;
  const size_t max_kept_;
};

} // namespace xsl
