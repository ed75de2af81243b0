#pragma once

// Names of enums whose values count from 0, kept in one table per enum.

#include <cstddef>

namespace xsl {

// names[value], or `outside` for a value past the table.
template <typename Enum, size_t N>
constexpr const char* enumName(
    Enum value,
    const char* const (&names)[N],
    const char* outside) noexcept {
  const auto index = static_cast<size_t>(value);
  return index < N ? names[index] : outside;
}

} // namespace xsl
