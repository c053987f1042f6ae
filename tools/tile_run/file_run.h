// tile-run on the user's own data: --in NAME=FILE.npy for inputs, --out
// NAME=FILE.npy for outputs written back, --expect NAME=FILE.npy compared
// with --rtol/--atol. Any kernel of any module, on any device tile-run has;
// no operator-suite entry is needed.
#ifndef TOOLS_TILE_RUN_FILE_RUN_H_
#define TOOLS_TILE_RUN_FILE_RUN_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/op_suite.h"
#include "runtime/device_base.h"
#include "runtime/host_buffer.h"
#include "tile_ir/module.h"
#include "tools/tile_run/compare.h"

namespace tile_ir::tools {

// The flags, each "NAME=PATH", in command-line order.
struct FileFlags {
  std::vector<std::string> inputs;   // --in
  std::vector<std::string> outputs;  // --out
  std::vector<std::string> expects;  // --expect
  std::optional<double> rtol, atol;  // else by the output's dtype (ToleranceOf)

  bool any() const { return !inputs.empty() || !outputs.empty() || !expects.empty(); }
};

// The files read and checked against one kernel's signature.
struct FileTensors {
  std::map<std::string, std::unique_ptr<runtime::HostBuffer>> inputs;  // by parameter
  std::map<std::string, ops::RefTensor> expects;                       // by parameter
  std::map<std::string, std::string> expect_paths;
  std::map<std::string, std::string> outputs;          // parameter -> path to write
  std::map<std::string, std::vector<int64_t>> shapes;  // every buffer parameter's
  // Per --expect parameter: (rtol, atol), the flags' or ToleranceOf its dtype.
  std::map<std::string, std::pair<double, double>> tolerances;
};

// torch.testing.assert_close's defaults where it has them (f64 1e-7/1e-7,
// f32 1.3e-6/1e-5, f16 1e-3/1e-5, bf16 1.6e-2/1e-5), about one unit of the
// last place for fp8 (e4m3 0.125, e5m2 0.25; atol 1e-5), exact for integers.
std::pair<double, double> ToleranceOf(DataType dtype);

// Reads every file and checks it against `kernel`: each NAME is a buffer
// parameter, named by at most one --in, one --out and one --expect, and
// every buffer parameter by at least one flag; an --in array has a dtype
// that holds the parameter's (npy_tensors.h), an --expect array any numeric
// one; every array the parameter's rank. Bare dimensions in parameter shapes
// are bound from the arrays' shapes and must agree with each other and with
// `dims` (--shapes), which receives them; a dimension no array binds must be
// in `dims`. Then each array's shape must be its parameter's. Every error
// names the kernel, the parameter, the file, and the expected and given
// shape or dtype.
absl::StatusOr<FileTensors> LoadFileTensors(const KernelNode& kernel, const FileFlags& flags,
                                            ops::Shapes& dims);

struct FileRunResult {
  double launch_seconds = 0;
  std::vector<OutputCheck> checks;   // one per --expect, in parameter order
  std::vector<std::string> written;  // "C -> c.npy" per --out

  bool passed() const;
};

// Copies the inputs to `device`, poisons the other buffers (0xFF: NaN in
// floats), launches `loaded` once with `scalars` (an integer parameter's value from
// `integer_scalars` where it has one, exactly), copies the outputs back,
// writes each --out file and compares each --expect.
absl::StatusOr<FileRunResult> RunOnFiles(runtime::Device& device, runtime::LoadedKernel& loaded,
                                         const FileTensors& files,
                                         const std::map<std::string, double>& scalars,
                                         const std::map<std::string, int64_t>& integer_scalars);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_FILE_RUN_H_
