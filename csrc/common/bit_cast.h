#pragma once

// std::bit_cast for C++17: the bits of `from` read as a `To`.

#include <cstring>
#include <type_traits>

namespace xsl {

template <typename To, typename From>
To bitCast(const From& from) noexcept {
  static_assert(sizeof(To) == sizeof(From), "bitCast keeps the size");
  static_assert(
      std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>,
      "bitCast copies bytes");
  To to{};
  std::memcpy(&to, &from, sizeof(to));
  return to;
}

} // namespace xsl
