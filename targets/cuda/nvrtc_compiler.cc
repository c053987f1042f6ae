// NVRTC through dlopen: the handful of entry points the compile check uses,
// declared here so that no CUDA header is needed to build.
#include "targets/cuda/nvrtc_compiler.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "targets/cuda/device_headers.h"

namespace tile_ir::cuda {
namespace {

using NvrtcResult = int;  // nvrtcResult; 0 is NVRTC_SUCCESS
using NvrtcProgram = struct NvrtcProgramOpaque*;

struct NvrtcApi {
  const char* (*get_error_string)(NvrtcResult);
  NvrtcResult (*version)(int*, int*);
  NvrtcResult (*create_program)(NvrtcProgram*, const char*, const char*, int, const char* const*,
                                const char* const*);
  NvrtcResult (*destroy_program)(NvrtcProgram*);
  NvrtcResult (*compile_program)(NvrtcProgram, int, const char* const*);
  NvrtcResult (*get_ptx_size)(NvrtcProgram, size_t*);
  NvrtcResult (*get_ptx)(NvrtcProgram, char*);
  NvrtcResult (*get_cubin_size)(NvrtcProgram, size_t*);
  NvrtcResult (*get_cubin)(NvrtcProgram, char*);
  NvrtcResult (*get_log_size)(NvrtcProgram, size_t*);
  NvrtcResult (*get_log)(NvrtcProgram, char*);
};

std::string CudaHome() {
  const char* home = std::getenv("CUDA_HOME");
  return home != nullptr && *home != '\0' ? home : "/usr/local/cuda";
}

template <typename Fn>
bool Bind(void* library, const char* symbol, Fn*& fn) {
  fn = reinterpret_cast<Fn*>(dlsym(library, symbol));
  return fn != nullptr;
}

absl::StatusOr<NvrtcApi> LoadNvrtc() {
  const std::string fallback = CudaHome() + "/lib64/libnvrtc.so.13";
  void* library = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) library = dlopen(fallback.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("NVRTC is not available: neither libnvrtc.so.13 on the library path nor ",
                     fallback, " could be loaded (install the CUDA 13 toolkit or set CUDA_HOME)"));
  }
  NvrtcApi api;
  bool complete = Bind(library, "nvrtcGetErrorString", api.get_error_string) &&
                  Bind(library, "nvrtcVersion", api.version) &&
                  Bind(library, "nvrtcCreateProgram", api.create_program) &&
                  Bind(library, "nvrtcDestroyProgram", api.destroy_program) &&
                  Bind(library, "nvrtcCompileProgram", api.compile_program) &&
                  Bind(library, "nvrtcGetPTXSize", api.get_ptx_size) &&
                  Bind(library, "nvrtcGetPTX", api.get_ptx) &&
                  Bind(library, "nvrtcGetCUBINSize", api.get_cubin_size) &&
                  Bind(library, "nvrtcGetCUBIN", api.get_cubin) &&
                  Bind(library, "nvrtcGetProgramLogSize", api.get_log_size) &&
                  Bind(library, "nvrtcGetProgramLog", api.get_log);
  if (!complete) {
    return absl::UnavailableError(
        absl::StrCat("NVRTC was loaded but lacks an entry point this build needs: ", dlerror()));
  }
  return api;
}

// Loaded once per process; the library stays loaded.
const absl::StatusOr<NvrtcApi>& Nvrtc() {
  static const auto* api = new absl::StatusOr<NvrtcApi>(LoadNvrtc());
  return *api;
}

// Frees the program on every return path.
class ProgramHolder {
 public:
  ProgramHolder(const NvrtcApi& api, NvrtcProgram program) : api_(api), program_(program) {}
  ~ProgramHolder() { api_.destroy_program(&program_); }
  ProgramHolder(const ProgramHolder&) = delete;
  ProgramHolder& operator=(const ProgramHolder&) = delete;

 private:
  const NvrtcApi& api_;
  NvrtcProgram program_;
};

// Reads one of the program's outputs through its size and copy functions.
std::string ReadOutput(NvrtcProgram program, NvrtcResult (*size_fn)(NvrtcProgram, size_t*),
                       NvrtcResult (*read_fn)(NvrtcProgram, char*)) {
  size_t size = 0;
  if (size_fn(program, &size) != 0 || size == 0) return "";
  std::string bytes(size, '\0');
  if (read_fn(program, bytes.data()) != 0) return "";
  // Text outputs end with a NUL that is no part of their contents.
  if (!bytes.empty() && bytes.back() == '\0') bytes.pop_back();
  return bytes;
}

bool IsDirectory(const std::string& path) { return access(path.c_str(), R_OK | X_OK) == 0; }

}  // namespace

absl::Status NvrtcAvailable() { return Nvrtc().status(); }

absl::StatusOr<std::string> NvrtcVersion() {
  const absl::StatusOr<NvrtcApi>& api = Nvrtc();
  if (!api.ok()) return api.status();
  int major = 0;
  int minor = 0;
  if (api->version(&major, &minor) != 0) return absl::InternalError("nvrtcVersion failed");
  return absl::StrCat(major, ".", minor);
}

absl::StatusOr<NvrtcOutput> CompileWithNvrtc(std::string_view source, std::string_view program_name,
                                             const NvrtcOptions& options) {
  const absl::StatusOr<NvrtcApi>& api = Nvrtc();
  if (!api.ok()) return api.status();
  std::vector<std::string> names;
  std::vector<std::string> sources;
  for (const c_source::EmbeddedFile& header : DeviceHeaders()) {
    names.emplace_back(header.name);
    sources.emplace_back(header.source);
  }
  std::vector<const char*> name_ptrs;
  std::vector<const char*> source_ptrs;
  for (size_t i = 0; i < names.size(); ++i) {
    name_ptrs.push_back(names[i].c_str());
    source_ptrs.push_back(sources[i].c_str());
  }
  const std::string text(source);
  const std::string name(program_name);
  NvrtcProgram program = nullptr;
  NvrtcResult created =
      api->create_program(&program, text.c_str(), name.c_str(), static_cast<int>(names.size()),
                          source_ptrs.data(), name_ptrs.data());
  if (created != 0) {
    return absl::InternalError(absl::StrCat("nvrtcCreateProgram for '", name,
                                            "' failed: ", api->get_error_string(created)));
  }
  ProgramHolder holder(*api, program);

  bool real = absl::StartsWith(options.arch, "sm_");
  std::vector<std::string> flags = {"--gpu-architecture=" + options.arch, "-std=c++17"};
  const std::string include = CudaHome() + "/include";
  if (IsDirectory(include)) flags.push_back("--include-path=" + include);
  if (IsDirectory(include + "/cccl")) flags.push_back("--include-path=" + include + "/cccl");
  if (real && options.resource_usage) flags.push_back("--ptxas-options=-v");
  flags.insert(flags.end(), options.extra_options.begin(), options.extra_options.end());
  std::vector<const char*> flag_ptrs;
  for (const std::string& flag : flags) flag_ptrs.push_back(flag.c_str());

  NvrtcResult compiled =
      api->compile_program(program, static_cast<int>(flag_ptrs.size()), flag_ptrs.data());
  NvrtcOutput output;
  output.log = ReadOutput(program, api->get_log_size, api->get_log);
  if (compiled != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("NVRTC could not compile '", name, "' for ", options.arch, " (",
                     api->get_error_string(compiled), "):\n", output.log));
  }
  output.ptx = ReadOutput(program, api->get_ptx_size, api->get_ptx);
  if (real) {
    size_t size = 0;
    if (api->get_cubin_size(program, &size) == 0 && size > 0) {
      output.cubin.assign(size, '\0');
      if (api->get_cubin(program, output.cubin.data()) != 0) output.cubin.clear();
    }
  }
  output.registers = ParsePtxasRegisters(output.log);
  return output;
}

std::map<std::string, int> ParsePtxasRegisters(std::string_view log) {
  std::map<std::string, int> registers;
  std::string kernel;
  constexpr std::string_view kEntry = "Compiling entry function '";
  for (absl::string_view line : absl::StrSplit(absl::string_view(log.data(), log.size()), '\n')) {
    size_t entry = line.find(absl::string_view(kEntry.data(), kEntry.size()));
    if (entry != absl::string_view::npos) {
      absl::string_view rest = line.substr(entry + kEntry.size());
      kernel = std::string(rest.substr(0, rest.find('\'')));
      continue;
    }
    size_t used = line.find("Used ");
    size_t unit = line.find(" registers");
    if (kernel.empty() || used == absl::string_view::npos || unit == absl::string_view::npos ||
        unit < used) {
      continue;
    }
    int count = 0;
    if (absl::SimpleAtoi(line.substr(used + 5, unit - used - 5), &count)) registers[kernel] = count;
  }
  return registers;
}

}  // namespace tile_ir::cuda
