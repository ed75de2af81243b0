#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ocloc/discovery.h"

namespace xsl {
namespace ocloc {
namespace {

// A file system and environment held in memory.
struct FakeMachine {
  bool windows = false;
  std::map<std::string, std::string> env;
  std::set<std::string> files;
  std::set<std::string> dirs;
  std::map<std::string, std::vector<std::string>> listings;

  DiscoveryEnvironment environment() const {
    DiscoveryEnvironment result;
    result.windows = windows;
    result.get_env = [this](const std::string& name) {
      auto found = env.find(name);
      return found == env.end() ? std::nullopt
                                : std::optional<std::string>(found->second);
    };
    result.is_file = [this](const std::string& path) {
      return files.count(path) > 0;
    };
    result.is_directory = [this](const std::string& path) {
      return dirs.count(path) > 0;
    };
    result.list_directory = [this](const std::string& path) {
      auto found = listings.find(path);
      return found == listings.end() ? std::vector<std::string>()
                                     : found->second;
    };
    return result;
  }
};

std::vector<std::string> candidatePaths(const DiscoveryEnvironment& env) {
  std::vector<std::string> paths;
  for (const auto& candidate : oclocCandidates(env)) {
    paths.push_back(candidate.path);
  }
  return paths;
}

FakeMachine windowsMachine() {
  FakeMachine machine;
  machine.windows = true;
  machine.env["PYTHONPATH"] = "C:\\py\\site";
  machine.env["VIRTUAL_ENV"] = "C:\\venv";
  machine.env["PATH"] = "C:\\Windows;;\"C:\\My Tools\"";
  machine.env["ONEAPI_ROOT"] = "D:\\oneAPI\\";
  machine.env["CMPLR_ROOT"] = "D:\\oneAPI\\compiler\\2025.1";
  return machine;
}

TEST(OclocDiscovery, WindowsOrderIsEnvWheelPathOneApi) {
  FakeMachine machine = windowsMachine();
  machine.env["XSL_OCLOC"] = "E:\\ocloc\\ocloc.exe";
  const std::vector<std::string> expected = {
      "E:\\ocloc\\ocloc.exe",
      "C:\\py\\site\\intel_ocloc\\bin\\ocloc.exe",
      "C:\\venv\\Lib\\site-packages\\intel_ocloc\\bin\\ocloc.exe",
      "C:\\Windows\\ocloc.exe",
      "C:\\My Tools\\ocloc.exe",
      "D:\\oneAPI\\ocloc\\latest\\bin\\ocloc.exe",
      "C:\\Program Files (x86)\\Intel\\oneAPI\\ocloc\\latest\\bin\\ocloc.exe",
      "D:\\oneAPI\\compiler\\2025.1\\bin\\ocloc.exe",
      "D:\\oneAPI\\compiler\\latest\\bin\\ocloc.exe",
      "C:\\Program Files (x86)\\Intel\\oneAPI\\compiler\\latest\\bin\\ocloc."
      "exe",
  };
  EXPECT_EQ(candidatePaths(machine.environment()), expected);
}

TEST(OclocDiscovery, LinuxOrderEndsWithSystemFolders) {
  FakeMachine machine;
  machine.env["PATH"] = "/home/u/bin:/usr/bin";
  machine.env["VIRTUAL_ENV"] = "/venv";
  machine.listings["/venv/lib"] = {"python3.11", "other"};
  const std::vector<std::string> expected = {
      "/venv/lib/python3.11/site-packages/intel_ocloc/bin/ocloc",
      "/home/u/bin/ocloc",
      "/usr/bin/ocloc",
      "/usr/bin/ocloc",
      "/usr/local/bin/ocloc",
      "/opt/intel/oneapi/ocloc/latest/bin/ocloc",
      "/opt/intel/oneapi/compiler/latest/bin/ocloc",
  };
  EXPECT_EQ(candidatePaths(machine.environment()), expected);
}

TEST(OclocDiscovery, FindsOneApiWithItsLibrary) {
  FakeMachine machine = windowsMachine();
  const std::string bin =
      "C:\\Program Files (x86)\\Intel\\oneAPI\\ocloc\\latest\\bin";
  machine.files = {bin + "\\ocloc.exe", bin + "\\ocloc64.dll"};
  auto found = findOcloc(machine.environment());
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_EQ(found->source, OclocSource::kOneApi);
  EXPECT_EQ(found->executable, bin + "\\ocloc.exe");
  EXPECT_EQ(found->library, bin + "\\ocloc64.dll");
  EXPECT_EQ(found->origin, "default oneAPI folder ocloc");
  // Every earlier place is recorded, the hit last.
  EXPECT_EQ(found->tried.size(), 6u);
  EXPECT_NE(found->tried.back().find(bin), std::string::npos);
}

TEST(OclocDiscovery, WheelWinsOverPath) {
  FakeMachine machine = windowsMachine();
  const std::string wheel_bin =
      "C:\\venv\\Lib\\site-packages\\intel_ocloc\\bin";
  machine.files = {
      "C:\\Windows\\ocloc.exe",
      wheel_bin + "\\ocloc.exe",
      wheel_bin + "\\ocloc64.dll"};
  auto found = findOcloc(machine.environment());
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_EQ(found->source, OclocSource::kWheel);
  EXPECT_EQ(found->library, wheel_bin + "\\ocloc64.dll");
}

TEST(OclocDiscovery, PythonPathsFromTheBindingComeFirst) {
  FakeMachine machine;
  machine.files = {"/sp/intel_ocloc/bin/ocloc", "/usr/bin/ocloc"};
  DiscoveryEnvironment env = machine.environment();
  env.python_paths = {"/sp"};
  auto found = findOcloc(env);
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_EQ(found->source, OclocSource::kWheel);
  EXPECT_EQ(found->executable, "/sp/intel_ocloc/bin/ocloc");
  EXPECT_EQ(found->library, "");
}

TEST(OclocDiscovery, LinuxSystemLibraryInLibMultiarch) {
  FakeMachine machine;
  machine.files = {"/usr/bin/ocloc", "/usr/lib/x86_64-linux-gnu/libocloc.so"};
  auto found = findOcloc(machine.environment());
  ASSERT_TRUE(found.ok()) << found.error().message();
  EXPECT_EQ(found->source, OclocSource::kSystem);
  EXPECT_EQ(found->library, "/usr/lib/x86_64-linux-gnu/libocloc.so");
}

TEST(OclocDiscovery, EnvironmentNamesFolderLibraryOrMissingFile) {
  FakeMachine machine;
  machine.files = {"/opt/o/ocloc", "/opt/o/libocloc.so", "/usr/bin/ocloc"};
  machine.dirs = {"/opt/o"};

  machine.env["XSL_OCLOC"] = "/opt/o";
  auto from_dir = findOcloc(machine.environment());
  ASSERT_TRUE(from_dir.ok()) << from_dir.error().message();
  EXPECT_EQ(from_dir->source, OclocSource::kEnvironment);
  EXPECT_EQ(from_dir->executable, "/opt/o/ocloc");
  EXPECT_EQ(from_dir->library, "/opt/o/libocloc.so");

  machine.env["XSL_OCLOC"] = "/opt/o/libocloc.so";
  auto from_lib = findOcloc(machine.environment());
  ASSERT_TRUE(from_lib.ok()) << from_lib.error().message();
  EXPECT_EQ(from_lib->library, "/opt/o/libocloc.so");
  EXPECT_EQ(from_lib->executable, "/opt/o/ocloc");

  // A wrong explicit setting is an error, not a silent fallback to PATH.
  machine.env["XSL_OCLOC"] = "/nowhere/ocloc";
  auto missing = findOcloc(machine.environment());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(
      missing.error().message().find("XSL_OCLOC=/nowhere/ocloc"),
      std::string::npos);
}

TEST(OclocDiscovery, NothingFoundListsEveryPlace) {
  FakeMachine machine = windowsMachine();
  auto found = findOcloc(machine.environment());
  ASSERT_FALSE(found.ok());
  const std::string& message = found.error().message();
  for (const auto& path : candidatePaths(machine.environment())) {
    EXPECT_NE(message.find(path), std::string::npos) << path;
  }
  EXPECT_NE(message.find("XSL_OCLOC"), std::string::npos);
  EXPECT_NE(message.find("ocloc_wheel.py"), std::string::npos);
}

TEST(OclocDiscovery, PathListSplitting) {
  EXPECT_EQ(
      splitPathList("a;\"b c\";;d", true),
      (std::vector<std::string>{"a", "b c", "d"}));
  EXPECT_EQ(
      splitPathList("/a::/b:", false), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(joinPath("C:\\x\\", "y", true), "C:\\x\\y");
  EXPECT_EQ(joinPath("C:/x/", "y", true), "C:/x/y");
  EXPECT_EQ(joinPath("/x", "y", false), "/x/y");
}

TEST(OclocDiscovery, HostEnvironmentSeesARealFile) {
  // The host probes on this platform: the test binary's own source dir.
  DiscoveryEnvironment env = DiscoveryEnvironment::host();
  auto source_dir = env.get_env("XSL_SOURCE_DIR");
  if (!source_dir) {
    GTEST_SKIP() << "XSL_SOURCE_DIR is not set (run through ctest)";
  }
  EXPECT_TRUE(env.is_directory(*source_dir));
  EXPECT_TRUE(env.is_file(joinPath(*source_dir, "CMakeLists.txt", false)));
  EXPECT_FALSE(env.is_file(*source_dir));
  bool has_csrc = false;
  for (const auto& name : env.list_directory(*source_dir)) {
    has_csrc = has_csrc || name == "csrc";
  }
  EXPECT_TRUE(has_csrc);
}

} // namespace
} // namespace ocloc
} // namespace xsl
