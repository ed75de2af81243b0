#pragma once

// UTF-8 text <-> std::filesystem::path in C++17 and C++20 alike. C++20 made
// path::u8string() return std::u8string and deprecated fs::u8path; the
// launcher builds in both modes (C++20 inside a torch build).

#include <filesystem>
#include <string>
#include <string_view>

namespace xsl {

inline std::filesystem::path pathFromUtf8(std::string_view utf8) {
#if defined(__cpp_char8_t)
  return std::filesystem::path(std::u8string(utf8.begin(), utf8.end()));
#else
  return std::filesystem::u8path(utf8.begin(), utf8.end());
#endif
}

inline std::string utf8FromPath(const std::filesystem::path& path) {
#if defined(__cpp_char8_t)
  const std::u8string text = path.u8string();
  return std::string(text.begin(), text.end());
#else
  return path.u8string();
#endif
}

} // namespace xsl
