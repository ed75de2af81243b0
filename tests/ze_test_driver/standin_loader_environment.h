#pragma once

// For GoogleTest binaries that load Level Zero in the Windows (mingw + wine)
// build: before any test runs, the stand-in ze_loader.dll named by
// XSL_TEST_STANDIN_LOADER is put into System32 of the wine prefix, the only
// place the project's loader looks (installStandinLoader). Include it in one
// source file of the binary; it does nothing on other platforms.

#ifdef _WIN32

#include <gtest/gtest.h>

#include <windows.h>

#include <cstdlib>
#include <string>

#include "test_driver_client.h"

namespace xsl {
namespace test_driver {

class StandinLoaderEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    // The path as UTF-16, then UTF-8 (the ANSI getenv would mangle a
    // non-ASCII build folder).
    const wchar_t* wide = _wgetenv(L"XSL_TEST_STANDIN_LOADER");
    if (wide == nullptr || wide[0] == L'\0') {
      return;
    }
    const int length =
        WideCharToMultiByte(CP_UTF8, 0, wide, -1, nullptr, 0, nullptr, nullptr);
    ASSERT_GT(length, 0) << "XSL_TEST_STANDIN_LOADER is not valid UTF-16";
    std::string standin(static_cast<size_t>(length), '\0');
    WideCharToMultiByte(
        CP_UTF8, 0, wide, -1, &standin[0], length, nullptr, nullptr);
    standin.resize(static_cast<size_t>(length) - 1); // the terminator
    Status installed = installStandinLoader(standin);
    ASSERT_TRUE(installed.ok()) << installed.error().message();
  }
};

inline ::testing::Environment* const kStandinLoaderEnvironment =
    ::testing::AddGlobalTestEnvironment(new StandinLoaderEnvironment());

} // namespace test_driver
} // namespace xsl

#endif
