#pragma once

// Errors as values. Every fallible function in csrc/ returns Expected<T> or
// Status; the message is one sentence that names the input (file, kernel,
// argument index) and says what to do. Callers add context on the way up
// ("kernel.zebin: .ze_info: kernel 'add': ...") instead of re-wording.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace xsl {

class Error {
 public:
  explicit Error(std::string message) : message_(std::move(message)) {}

  const std::string& message() const noexcept {
    return message_;
  }

  // Prefixes where the error happened: "<context>: <message>".
  Error withContext(std::string_view context) const {
    std::string prefixed(context);
    prefixed += ": ";
    prefixed += message_;
    return Error(std::move(prefixed));
  }

 private:
  std::string message_;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  // Implicit on purpose: `return value;` and `return Error(...);` both work.
  Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Expected(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const noexcept {
    return state_.index() == 0;
  }
  explicit operator bool() const noexcept {
    return ok();
  }

  // Calling these on an error is a bug; std::get throws rather than reading
  // garbage.
  T& value() & {
    return std::get<0>(state_);
  }
  const T& value() const& {
    return std::get<0>(state_);
  }
  T&& value() && {
    return std::get<0>(std::move(state_));
  }
  T* operator->() {
    return &value();
  }
  const T* operator->() const {
    return &value();
  }
  T& operator*() & {
    return value();
  }
  const T& operator*() const& {
    return value();
  }

  const Error& error() const& {
    return std::get<1>(state_);
  }
  Error&& error() && {
    return std::get<1>(std::move(state_));
  }

 private:
  std::variant<T, Error> state_;
};

// Success, or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}

  static Status success() {
    return Status();
  }

  bool ok() const noexcept {
    return !error_.has_value();
  }
  explicit operator bool() const noexcept {
    return ok();
  }
  const Error& error() const& {
    return *error_;
  }

 private:
  std::optional<Error> error_;
};

} // namespace xsl
