#pragma once

// The `.ze_info` schema parseZeInfo (zebin.h, ze_info.cpp) reads with: the
// keys it knows and the rules between them (ze_info_schema.cpp).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/expected.h"
#include "zebin/zebin.h"

namespace xsl {
namespace zebin {
namespace schema {

// Upper bound on argument indices: real kernels have a few hundred at most,
// and it keeps a hostile arg_index from allocating gigabytes.
constexpr int64_t kMaxArgIndex = 4095;

// kernels_misc_info entries: kernel name, its args_info.
using MiscInfos = std::vector<std::pair<std::string, std::vector<ArgInfo>>>;

// The keys the reader knows. Integer fields (counts: never negative) and text
// fields by key, nullptr for other keys.
int64_t* executionEnvCount(ExecutionEnv& env, std::string_view key);
int64_t* payloadCount(PayloadArgument& arg, std::string_view key);
std::string* payloadText(PayloadArgument& arg, std::string_view key);
std::string* argInfoText(ArgInfo& info, std::string_view key);
// Keys read elsewhere or ignored in each mapping: no warning, any value.
enum class KeyScope { kTopLevel, kKernel, kExecutionEnv, kPayloadArgument };
bool isIgnoredKey(KeyScope scope, std::string_view key);

// "1.20" -> {1, 20}; false unless MAJOR.MINOR with parts up to 0xffff.
bool parseVersion(std::string_view text, ZeInfoVersion& version);

// Fills what each kernel's entries imply (arg_infos from `misc`, which it
// may move from, spill_bytes, private_bytes, threads_per_warp,
// user_arguments); warnings go to info.warnings.
Status deriveKernels(ZeInfo& info, MiscInfos& misc);

// What a kLaunch read leaves out of a full one (ZeInfoDetail), stated once:
// each kernel's payload_arguments, arg_infos and execution_env.flags.
void leaveLaunchDetail(ZeInfo& info);

} // namespace schema
} // namespace zebin
} // namespace xsl
