// How tile-matrix finds a status: each backend has a prober that can
// generate code for its targets, compile it when this machine has the
// backend's real compiler, and run and check it when it has the hardware.
// ProbeOperator walks those levels for one operator and one target and
// writes the record; probers never decide a status themselves.
#ifndef TOOLS_TILE_MATRIX_PROBER_H_
#define TOOLS_TILE_MATRIX_PROBER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/op_suite.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"
#include "tools/tile_matrix/record.h"

namespace tile_ir::matrix {

// A target a backend generates code for: a column of the matrix.
struct TargetSpec {
  std::string target;  // "cuda:sm_90a"; the cell key
  std::string arch;    // "sm_90a"
  // Everything besides the kernel that the generated code depends on: the
  // lowering pipeline string, and the device library's fingerprint where
  // there is one. Its hash is half of a record's staleness context.
  std::string lowering;
  // The generated code follows the machine that generates it (Target::CodeFollowsHost: the
  // CPU's carries the host's CPU name, features and vector width), so two machines would hash
  // different code for one kernel: records of such a target keep no code_hash.
  bool code_follows_host = false;
};

// What this machine offers for one target.
struct MachineFacts {
  std::string arch;         // when the machine decides it (the host CPU); else the spec's
  std::string compiler;     // "NVRTC 13.0"; empty: nothing here compiles this target's code
  std::string no_compiler;  // why not, when `compiler` is empty
  std::string hardware;     // "NVIDIA H200 (...)"; empty: nothing here runs it
  std::string no_hardware;  // why not, when `hardware` is empty
  std::string toolkit;      // the versions a record names: compiler, driver
};

// The numbers of one run checked against the float64 reference.
struct RunFigures {
  bool passed = false;
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::string shapes;
  std::string report;  // the check lines, one per output
};

// What a compile left: the compiler's messages and, where the compiler
// reports it, its exact version (it then replaces MachineFacts::toolkit).
struct CompileOutput {
  std::string log;
  std::string compiler_version;
};

class BackendProber {
 public:
  virtual ~BackendProber() = default;
  // "cpu", "cuda", "hip", "metal": the first part of its targets' names.
  virtual std::string backend() const = 0;
  // Its targets, in the order the matrix shows them; needs nothing of the machine.
  virtual std::vector<TargetSpec> Targets() const = 0;
  // What the target tells the specialization plan (divisibility classes), or null for a target
  // that asks for none.
  virtual std::shared_ptr<const passes::TargetInfo> Info(const TargetSpec& target) const {
    return nullptr;
  }
  // Looks for the compiler and the hardware (opens a device: may take a while).
  virtual MachineFacts Discover(const TargetSpec& target) = 0;
  // Lowers the tile-level `module` and emits its source. Unimplemented (an
  // operation the target has no form for) and ResourceExhausted (more shared
  // memory than the target has) mean the target refuses the operator, the
  // message naming the missing capability: unsupported. Any other error is a failure.
  virtual absl::StatusOr<std::string> Generate(const Module& module, const TargetSpec& target) = 0;
  // Compiles what Generate gave with the backend's real compiler. Called
  // only when Discover found a compiler.
  virtual absl::StatusOr<CompileOutput> Compile(const Module& module, const std::string& source,
                                                const TargetSpec& target) = 0;
  // Runs `op` on the hardware at its default shapes and checks it. Called
  // only when Discover found hardware.
  virtual absl::StatusOr<RunFigures> Run(const ops::OpCase& op, const TargetSpec& target,
                                         uint64_t seed) = 0;
};

using Probers = std::vector<std::unique_ptr<BackendProber>>;

// What every record of one run shares.
struct ProbeContext {
  std::string commit;
  std::string date;
  std::string machine;
  uint64_t seed = 1;
};

// The hashes of a record's staleness context (16 hex digits of FNV-1a).
std::string HashText(absl::string_view text);
// The operator's canonical text, or its build error.
absl::StatusOr<std::string> OpIrText(const ops::OpCase& op);
// The dtype a record files the operator under: its first buffer parameter's.
std::string OpDtype(const ops::OpCase& op);

// The module a probe generates code from: the operator's kernel as a call at its default
// shapes compiles on `target` (runtime/jit/specialization_plan.h: the dims that size fragments
// compiled in, the others' divisibility classes required where the target asks), which is what
// the run step checks. Errors name the step that failed.
absl::StatusOr<Module> ProbeModule(const ops::OpCase& op, const passes::TargetInfo* target);

// A record's code_hash: the hash of the generated source, or of the refusal (its status
// code and message) where generation failed.
std::string CodeHash(const absl::StatusOr<std::string>& source);

// Walks generate -> compile -> run as far as `facts` allows and answers with
// the record: unsupported or failed where a level refused, else the highest
// level reached, each with its evidence.
Record ProbeOperator(BackendProber& prober, const TargetSpec& target, const MachineFacts& facts,
                     const ops::OpCase& op, const ProbeContext& context);

// The last `max_lines` lines of `text`, at most `max_chars` characters.
std::string Excerpt(absl::string_view text, int max_lines = 20, size_t max_chars = 2000);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_PROBER_H_
