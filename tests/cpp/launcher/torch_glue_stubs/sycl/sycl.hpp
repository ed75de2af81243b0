#pragma once
// Compile-check stand-in for <sycl/sycl.hpp>: only what the glue uses.
#include <level_zero/ze_api.h>
#include <cstddef>

namespace sycl {
enum class backend { ext_oneapi_level_zero };
enum class bundle_state { executable };

class platform {};
class device {
 public:
  platform get_platform() const {
    return platform();
  }
};
class context {};
class kernel {};

template <bundle_state State>
class kernel_bundle {};

template <int Dims>
class range {
 public:
  template <typename... Sizes>
  explicit range(Sizes... sizes) : sizes_{static_cast<size_t>(sizes)...} {}

 private:
  size_t sizes_[Dims];
};

template <int Dims>
class nd_range {
 public:
  nd_range(range<Dims> global, range<Dims> local)
      : global_(global), local_(local) {}

 private:
  range<Dims> global_;
  range<Dims> local_;
};

class handler {
 public:
  template <typename T>
  void set_arg(int index, T value) {
    (void)index;
    (void)value;
  }
  template <int Dims>
  void parallel_for(const nd_range<Dims>& range, const kernel& k) {
    (void)range;
    (void)k;
  }
};

template <typename T, int Dims>
class local_accessor {
 public:
  local_accessor(range<Dims> size, handler& cgh) : size_(size) {
    (void)cgh;
  }

 private:
  range<Dims> size_;
};

class event {};
class queue {
 public:
  template <typename CommandGroup>
  event submit(CommandGroup group) {
    handler cgh;
    group(cgh);
    return event();
  }
};

namespace ext {
namespace oneapi {
namespace level_zero {
enum class ownership { transfer, keep };
} // namespace level_zero
} // namespace oneapi
} // namespace ext

namespace detail {
template <typename T>
struct NativeOf;
template <>
struct NativeOf<platform> {
  using type = ze_driver_handle_t;
};
template <>
struct NativeOf<device> {
  using type = ze_device_handle_t;
};
template <>
struct NativeOf<context> {
  using type = ze_context_handle_t;
};
} // namespace detail

template <backend Backend, typename T>
typename detail::NativeOf<T>::type get_native(const T& object) {
  (void)object;
  return nullptr;
}

struct ModuleInput {
  ze_module_handle_t NativeHandle;
  ext::oneapi::level_zero::ownership Ownership;
};
struct KernelInput {
  kernel_bundle<bundle_state::executable> KernelBundle;
  ze_kernel_handle_t NativeHandle;
  ext::oneapi::level_zero::ownership Ownership;
};

template <backend Backend, bundle_state State>
kernel_bundle<State> make_kernel_bundle(
    const ModuleInput& input,
    const context& ctx) {
  (void)input;
  (void)ctx;
  return kernel_bundle<State>();
}

template <backend Backend>
kernel make_kernel(const KernelInput& input, const context& ctx) {
  (void)input;
  (void)ctx;
  return kernel();
}
} // namespace sycl
