#include "file_io/file_io.h"

#include <gtest/gtest.h>

#include <string>

#include "test_paths.h"

#ifdef _WIN32
#include <windows.h>
#else
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace xsl {
namespace file_io {
namespace {

std::string binaryContent() {
  std::string bytes;
  for (int i = 0; i < 70000; ++i) {
    bytes.push_back(static_cast<char>(i * 7 % 256)); // NULs included
  }
  return bytes;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(FileIo, ReadsWholeBinaryFile) {
  const std::string path = test_paths::scratchDir("read") + "/k.zebin";
  const std::string bytes = binaryContent();
  ASSERT_TRUE(writeFileBytes(path, bytes).ok());
  Expected<std::string> read = readFileBytes(path);
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_EQ(*read, bytes);
}

// A reused buffer keeps its memory, not its bytes: after a larger file, a
// smaller one reads back exactly, and a larger one again after it.
TEST(FileIo, ReusedBufferHoldsExactlyTheFileRead) {
  const std::string dir = test_paths::scratchDir("reuse");
  const std::string large = binaryContent();
  const std::string small(300, 'x');
  const std::string larger = large + large;
  ASSERT_TRUE(writeFileBytes(dir + "/large.zebin", large).ok());
  ASSERT_TRUE(writeFileBytes(dir + "/small.zebin", small).ok());
  ASSERT_TRUE(writeFileBytes(dir + "/larger.zebin", larger).ok());
  std::string buffer;
  ASSERT_TRUE(readFileInto(dir + "/large.zebin", buffer).ok());
  EXPECT_EQ(buffer, large);
  ASSERT_TRUE(readFileInto(dir + "/small.zebin", buffer).ok());
  EXPECT_EQ(buffer, small);
  ASSERT_TRUE(readFileInto(dir + "/larger.zebin", buffer).ok());
  EXPECT_EQ(buffer, larger);
  ASSERT_TRUE(readFileInto(dir + "/small.zebin", buffer).ok());
  EXPECT_EQ(buffer, small);
}

// A head read: the first bytes of a longer file, a shorter file whole, and
// never more than asked into a buffer that holds more.
TEST(FileIo, HeadReadStopsWhereAsked) {
  const std::string path = test_paths::scratchDir("head") + "/k.zebin";
  const std::string bytes = binaryContent();
  ASSERT_TRUE(writeFileBytes(path, bytes).ok());
  std::string buffer(bytes.size() * 2, 'z');
  ASSERT_TRUE(readFileInto(path, buffer, 64).ok());
  EXPECT_EQ(buffer, bytes.substr(0, 64));
  ASSERT_TRUE(readFileInto(path, buffer, bytes.size() + 10).ok());
  EXPECT_EQ(buffer, bytes);
}

TEST(FileIo, MissingFileNamesPath) {
  const std::string path =
      test_paths::scratchDir("missing") + "/no_such_kernel.zebin";
  Expected<std::string> read = readFileBytes(path);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "'" + path + "' not found"))
      << read.error().message();
}

TEST(FileIo, MissingParentDirectoryIsMissing) {
  const std::string path =
      test_paths::scratchDir("missing") + "/no_dir/no_such_kernel.zebin";
  Expected<std::string> read = readFileBytes(path);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "not found"))
      << read.error().message();
}

TEST(FileIo, DirectoryIsRejected) {
  const std::string dir = test_paths::scratchDir("directory");
  Expected<std::string> read = readFileBytes(dir);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "is a directory"))
      << read.error().message();
}

TEST(FileIo, EmptyFileIsRejected) {
  const std::string path = test_paths::scratchDir("empty") + "/empty.zebin";
  ASSERT_TRUE(writeFileBytes(path, "").ok());
  Expected<std::string> read = readFileBytes(path);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "is empty (0 bytes)"))
      << read.error().message();
}

TEST(FileIo, EmptyPathIsRejected) {
  Expected<std::string> read = readFileBytes("");
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "empty path"));
}

TEST(FileIo, NulInPathIsRejectedWithWholeMessage) {
  const std::string path = std::string("cache/ab\0cd.zebin", 18);
  Expected<std::string> read = readFileBytes(path);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "'cache/ab'"));
  EXPECT_TRUE(
      contains(read.error().message(), "contains a NUL character at byte 8"))
      << read.error().message();
}

TEST(FileIo, OversizedFileIsRefusedBeforeReading) {
  const std::string path = test_paths::scratchDir("huge") + "/huge.zebin";
  ASSERT_TRUE(writeFileBytes(path, "x").ok());
  // A sparse file one byte over the limit: no memory or disk is used.
#ifdef _WIN32
  Expected<std::wstring> wide = toWindowsPath(path);
  ASSERT_TRUE(wide.ok());
  HANDLE file = CreateFileW(
      wide->c_str(), GENERIC_WRITE, 0, nullptr, OPEN_EXISTING, 0, nullptr);
  ASSERT_NE(file, INVALID_HANDLE_VALUE);
  LARGE_INTEGER size;
  size.QuadPart =
      static_cast<LONGLONG>(xsl::file_io::kMaxKernelBinaryBytes + 1);
  ASSERT_TRUE(SetFilePointerEx(file, size, nullptr, FILE_BEGIN));
  ASSERT_TRUE(SetEndOfFile(file));
  CloseHandle(file);
#else
  ASSERT_EQ(
      truncate(
          path.c_str(),
          static_cast<off_t>(xsl::file_io::kMaxKernelBinaryBytes + 1)),
      0);
#endif
  Expected<std::string> read = readFileBytes(path);
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "is larger than 1024 MiB"))
      << read.error().message();
}

#ifndef _WIN32
TEST(FileIo, DeviceIsRefusedNotReadForever) {
  Expected<std::string> read = readFileBytes("/dev/zero");
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "is not a regular file"))
      << read.error().message();
}

#ifdef __linux__
// The buffer is sized from the file's size; a regular file that reports 0
// bytes but has content (procfs) must still be read to its end.
TEST(FileIo, FileLargerThanItsReportedSizeIsReadWhole) {
  Expected<std::string> read = readFileBytes("/proc/self/maps");
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_GT(read->size(), 0u);
  EXPECT_EQ(read->find('\0'), std::string::npos);
  EXPECT_EQ(read->back(), '\n');
  // The same through a buffer that holds more than the file's reported 0
  // bytes: the read still goes to end of file, and nothing of before stays.
  std::string buffer(1 << 20, '\0');
  ASSERT_TRUE(readFileInto("/proc/self/maps", buffer).ok());
  EXPECT_GT(buffer.size(), 0u);
  EXPECT_LT(buffer.size(), size_t{1} << 20);
  EXPECT_EQ(buffer.find('\0'), std::string::npos);
  EXPECT_EQ(buffer.back(), '\n');
}
#endif

TEST(FileIo, FifoIsRefusedWithoutBlocking) {
  const std::string path = test_paths::scratchDir("fifo") + "/k.zebin";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  Expected<std::string> read = readFileBytes(path); // no writer: must not wait
  unlink(path.c_str());
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "is not a regular file"))
      << read.error().message();
}
#endif

TEST(FileIo, UnreadableFileIsReported) {
  const std::string path = test_paths::scratchDir("locked") + "/k.zebin";
  ASSERT_TRUE(writeFileBytes(path, "data").ok());
#ifdef _WIN32
  // Another handle without sharing makes the file unreadable to us.
  Expected<std::wstring> wide = toWindowsPath(path);
  ASSERT_TRUE(wide.ok());
  HANDLE lock = CreateFileW(
      wide->c_str(),
      GENERIC_READ | GENERIC_WRITE,
      0,
      nullptr,
      OPEN_EXISTING,
      FILE_ATTRIBUTE_NORMAL,
      nullptr);
  ASSERT_NE(lock, INVALID_HANDLE_VALUE);
  Expected<std::string> read = readFileBytes(path);
  CloseHandle(lock);
#else
  Expected<std::string> read = Error("");
  if (geteuid() == 0) {
    // Permissions do not stop root; reading this file fails with EIO.
    read = readFileBytes("/proc/self/mem");
  } else {
    ASSERT_EQ(chmod(path.c_str(), 0), 0);
    read = readFileBytes(path);
    chmod(path.c_str(), 0644);
  }
#endif
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message(), "cannot read kernel binary"))
      << read.error().message();
}

TEST(FileIo, NonAsciiPath) {
  // Latin, Greek, CJK and an emoji (outside the BMP: a UTF-16 surrogate pair).
  const std::string dir = test_paths::scratchDir("non_ascii") +
      "/\xc3\xbc"
      "ser-\xce\xa9\xce\xbc\xce\xad\xce\xb3\xce\xb1-"
      "\xe6\x97\xa5\xe6\x9c\xac-\xf0\x9f\x98\x80";
  ASSERT_TRUE(test_paths::makeDirectory(dir));
  const std::string path = dir + "/k\xc3\xa9rnel.zebin";
  ASSERT_TRUE(writeFileBytes(path, "zebin bytes").ok());
  Expected<std::string> read = readFileBytes(path);
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_EQ(*read, "zebin bytes");
#ifdef _WIN32
  // The name on disk is the UTF-16 form, not an ANSI code page mangling.
  Expected<std::wstring> wide = toWindowsPath(path);
  ASSERT_TRUE(wide.ok());
  EXPECT_NE(wide->find(L"k\u00e9rnel.zebin"), std::wstring::npos);
  EXPECT_NE(wide->find(L"\u65e5\u672c-\U0001F600"), std::wstring::npos);
  EXPECT_NE(GetFileAttributesW(wide->c_str()), INVALID_FILE_ATTRIBUTES);
#endif
}

TEST(FileIo, LongPathOver260Characters) {
  std::string dir = test_paths::scratchDir("long");
  const std::string segment(60, 'd'); // Inductor-style long names
  for (int i = 0; i < 6; ++i) {
    dir += "/" + segment + std::to_string(i);
    ASSERT_TRUE(test_paths::makeDirectory(dir)) << dir;
  }
  const std::string path =
      dir + "/triton_poi_fused_add_mul_native_layer_norm_0.zebin";
  ASSERT_GT(path.size(), 300u);
  const std::string bytes = binaryContent();
  ASSERT_TRUE(writeFileBytes(path, bytes).ok());
  Expected<std::string> read = readFileBytes(path);
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_EQ(*read, bytes);
#ifdef _WIN32
  Expected<std::wstring> wide = toWindowsPath(path);
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->rfind(L"\\\\?\\", 0), 0u);
  EXPECT_EQ(wide->find(L'/'), std::wstring::npos);
#endif
}

#ifdef _WIN32
TEST(FileIoWindows, ShortPathIsOnlyWidened) {
  Expected<std::wstring> wide = toWindowsPath("C:/cache/k\xc3\xa9.zebin");
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(*wide, L"C:/cache/k\u00e9.zebin");
}

TEST(FileIoWindows, LongPathIsNormalisedAndPrefixed) {
  const std::string segment(100, 'x');
  const std::string path = "C:/cache/" + segment + "/../" + segment + "/./" +
      segment + "//" + segment + "/k.zebin";
  Expected<std::wstring> wide = toWindowsPath(path);
  ASSERT_TRUE(wide.ok());
  const std::wstring wsegment(100, L'x');
  EXPECT_EQ(
      *wide,
      L"\\\\?\\C:\\cache\\" + wsegment + L"\\" + wsegment + L"\\" + wsegment +
          L"\\k.zebin");
}

TEST(FileIoWindows, LongUncPathGetsUncPrefix) {
  const std::string segment(250, 's');
  Expected<std::wstring> wide =
      toWindowsPath("\\\\server\\share\\" + segment + "\\k.zebin");
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->rfind(L"\\\\?\\UNC\\server\\share\\", 0), 0u);
}

TEST(FileIoWindows, RelativePathLongOnlyWithWorkingDirectory) {
  std::string dir = test_paths::scratchDir("relative");
  while (dir.size() < 200) {
    dir += "/" + std::string(20, 'r');
    ASSERT_TRUE(test_paths::makeDirectory(dir)) << dir;
  }
  const std::string sub(70, 's');
  ASSERT_TRUE(test_paths::makeDirectory(dir + "/" + sub));
  ASSERT_TRUE(writeFileBytes(dir + "/" + sub + "/k.zebin", "bytes").ok());
  Expected<std::wstring> wide_dir = toWindowsPath(dir);
  ASSERT_TRUE(wide_dir.ok());
  wchar_t previous[MAX_PATH];
  ASSERT_GT(GetCurrentDirectoryW(MAX_PATH, previous), 0u);
  ASSERT_TRUE(SetCurrentDirectoryW(wide_dir->c_str()));
  // Short as written, over MAX_PATH once the working directory is in front.
  const std::string relative = sub + "/k.zebin";
  Expected<std::wstring> wide = toWindowsPath(relative);
  Expected<std::string> read = readFileBytes(relative);
  SetCurrentDirectoryW(previous);
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->rfind(L"\\\\?\\", 0), 0u);
  ASSERT_TRUE(read.ok()) << read.error().message();
  EXPECT_EQ(*read, "bytes");
}

TEST(FileIoWindows, InvalidUtf8IsRejected) {
  Expected<std::wstring> wide = toWindowsPath("C:/cache/\xff\xfe.zebin");
  ASSERT_FALSE(wide.ok());
  EXPECT_TRUE(contains(wide.error().message(), "not valid UTF-8"));
}
#endif

} // namespace
} // namespace file_io
} // namespace xsl
