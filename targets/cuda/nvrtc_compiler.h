// Compiles CUDA C++ with NVRTC, which needs no GPU: generated code can be
// checked for sm_80 and sm_90a on any machine with the CUDA toolkit. NVRTC is
// loaded at run time with dlopen (libnvrtc.so.13 from the library path, then
// $CUDA_HOME/lib64; CUDA_HOME defaults to /usr/local/cuda), never linked, so
// binaries build and run where CUDA is absent.
#ifndef TARGETS_CUDA_NVRTC_COMPILER_H_
#define TARGETS_CUDA_NVRTC_COMPILER_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tile_ir::cuda {

// OK when NVRTC could be loaded; otherwise Unavailable saying where it was
// looked for (tests skip the compile checks with this message).
absl::Status NvrtcAvailable();

// "13.0" for the loaded NVRTC, or its Unavailable error.
absl::StatusOr<std::string> NvrtcVersion();

struct NvrtcOptions {
  // "sm_80", "sm_90a": PTX and a cubin; "compute_80", "compute_90a": PTX only.
  std::string arch = "sm_90a";
  // Ask ptxas for each kernel's resource usage (NvrtcOutput::registers).
  bool resource_usage = true;
  // More NVRTC options, e.g. "-lineinfo".
  std::vector<std::string> extra_options;
};

struct NvrtcOutput {
  std::string ptx;
  std::string cubin;  // empty for a virtual architecture
  std::string log;    // NVRTC's and ptxas's messages
  // Registers per thread of each kernel, from ptxas's resource report.
  std::map<std::string, int> registers;
};

// Compiles `source` (named `program_name` in messages) with the embedded
// device library (device_headers.h) as headers and $CUDA_HOME/include (and
// include/cccl) on the include path, for cuda_fp16.h and friends. A
// compilation error is InvalidArgument carrying the program name, the
// architecture and NVRTC's log; a missing NVRTC is Unavailable.
absl::StatusOr<NvrtcOutput> CompileWithNvrtc(std::string_view source, std::string_view program_name,
                                             const NvrtcOptions& options = {});

// The registers per kernel that a ptxas resource report (--ptxas-options=-v)
// in `log` lists.
std::map<std::string, int> ParsePtxasRegisters(std::string_view log);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_NVRTC_COMPILER_H_
