#include "compile/capi.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "compile/zebin_compiler.h"
#include "ocloc/compiler.h"
#include "ocloc/discovery.h"

struct xsl_compiler {
  std::unique_ptr<xsl::compile::ZebinCompiler> compiler;
  std::string description;
};

struct xsl_compile_result {
  xsl::ocloc::CompileResult result;
};

namespace {

void setError(char** error, const std::string& message) {
  if (error == nullptr) {
    return;
  }
  char* copy = static_cast<char*>(std::malloc(message.size() + 1));
  if (copy != nullptr) {
    std::memcpy(copy, message.c_str(), message.size() + 1);
  }
  *error = copy;
}

xsl::ocloc::BackendChoice backendChoice(int backend) {
  switch (backend) {
    case 1:
      return xsl::ocloc::BackendChoice::kLibrary;
    case 2:
      return xsl::ocloc::BackendChoice::kExecutable;
    default:
      return xsl::ocloc::BackendChoice::kAuto;
  }
}

} // namespace

extern "C" {

xsl_compiler* xsl_compile_open(
    int backend,
    const char* ocloc_path,
    const char* python_paths,
    char** error) {
  using namespace xsl::ocloc;
  using xsl::compile::CompilerKind;
  using xsl::compile::ZebinCompiler;
  if (error != nullptr) {
    *error = nullptr;
  }
  DiscoveryEnvironment env = DiscoveryEnvironment::host();
  if (ocloc_path != nullptr) {
    env = withExplicitOcloc(std::move(env), ocloc_path);
  }
  if (python_paths != nullptr) {
    env.python_paths = splitPathList(python_paths, env.windows);
  }
  const CompilerKind kind = backend == 3 ? CompilerKind::kDriver
      : backend == 1 || backend == 2     ? CompilerKind::kOcloc
                                         : CompilerKind::kAuto;
  auto opened = ZebinCompiler::open(kind, backendChoice(backend), env);
  if (!opened) {
    setError(error, opened.error().message());
    return nullptr;
  }
  auto handle =
      std::unique_ptr<xsl_compiler>(new (std::nothrow) xsl_compiler());
  if (!handle) {
    setError(error, "out of memory");
    return nullptr;
  }
  handle->description = (*opened)->description() + "\ntried:";
  for (const auto& place : (*opened)->tried()) {
    handle->description += "\n  " + place;
  }
  handle->compiler = std::move(*opened);
  return handle.release();
}

void xsl_compile_close(xsl_compiler* compiler) {
  delete compiler;
}

const char* xsl_compile_describe(const xsl_compiler* compiler) {
  return compiler == nullptr ? "" : compiler->description.c_str();
}

xsl_compile_result* xsl_compile_spirv(
    xsl_compiler* compiler,
    const void* spirv,
    size_t spirv_size,
    const char* device,
    const char* build_flags,
    int retry_large_grf,
    char** error) {
  if (error != nullptr) {
    *error = nullptr;
  }
  if (compiler == nullptr || (spirv == nullptr && spirv_size > 0)) {
    setError(error, "xsl_compile_spirv: null compiler or SPIR-V pointer.");
    return nullptr;
  }
  xsl::ocloc::CompileOptions options;
  options.device = device != nullptr ? device : "";
  options.build_flags = build_flags != nullptr ? build_flags : "";
  options.retry_large_grf = retry_large_grf != 0;
  auto compiled = compiler->compiler->compile(
      std::string_view(static_cast<const char*>(spirv), spirv_size), options);
  if (!compiled) {
    setError(error, compiled.error().message());
    return nullptr;
  }
  auto* result = new (std::nothrow) xsl_compile_result();
  if (result == nullptr) {
    setError(error, "out of memory");
    return nullptr;
  }
  result->result = std::move(*compiled);
  return result;
}

const void* xsl_compile_result_zebin(
    const xsl_compile_result* result,
    size_t* size) {
  if (result == nullptr) {
    if (size != nullptr) {
      *size = 0;
    }
    return nullptr;
  }
  if (size != nullptr) {
    *size = result->result.zebin.size();
  }
  return result->result.zebin.data();
}

const char* xsl_compile_result_build_flags(const xsl_compile_result* result) {
  return result == nullptr ? "" : result->result.build_flags.c_str();
}

uint64_t xsl_compile_result_spill_bytes(const xsl_compile_result* result) {
  return result == nullptr ? 0 : result->result.spill_bytes;
}

const char* xsl_compile_result_log(const xsl_compile_result* result) {
  return result == nullptr ? "" : result->result.log.c_str();
}

void xsl_compile_result_free(xsl_compile_result* result) {
  delete result;
}

void xsl_compile_string_free(char* text) {
  std::free(text);
}

} // extern "C"
