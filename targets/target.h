// A code-generation target as one object that owns its whole compile (the
// design of Triton's CUDABackend and Halide's Target): it is made from a
// parsed name once, and tools and the runtime ask it instead of parsing names
// or switching on vendors. It owns the TargetInfo the generic passes consult,
// its default pipeline (one printable string, `tile-opt --print-pipeline`),
// the passes only it runs (targets/<family>/passes/), and the steps
// Lower -> Emit -> Compile with the cache-context fields they depend on.
//
// A TargetFamily ("cuda") knows its architectures and options and makes
// Targets; the TargetRegistry (target_registry.h) lists the families a binary
// links.
#ifndef TARGETS_TARGET_H_
#define TARGETS_TARGET_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "passes/pass/registry.h"
#include "passes/pass/target_info.h"
#include "targets/target_name.h"
#include "tile_ir/module.h"

namespace tile_ir::targets {

struct EmitOptions {
  // The kernel to emit; empty: every kernel of the module.
  std::string kernel;
  // Inline the device library, so the source compiles as it is with the
  // vendor's own compiler (nvcc, hipcc) outside this project.
  bool self_contained = false;
};

// What the target's real compiler made of one kernel.
struct Binary {
  std::string format;  // "cubin", "hsaco", "object"
  std::string bytes;
  std::string entry;  // the symbol to launch
  // Dynamic shared memory the launch must ask for (GPUs), in bytes.
  int64_t dynamic_shared_bytes = 0;
  std::string compiler;  // the exact compiler, "NVRTC 12.4"
  std::string log;       // what the compiler said
  // Intermediate files worth keeping for inspection, by extension ("ptx").
  std::vector<std::pair<std::string, std::string>> files;
};

// One kernel as its target compiled it (Target::CompileKernel): what a device
// loads (runtime/device_base.h: LoadCompiled) and the kernel cache stores.
struct CompiledKernel {
  std::string kernel;  // its name
  // The thread-level module the binary came from, holding only `kernel`: its
  // signature (dimensions, grid variables) is what launches bind.
  Module lowered;
  // binary.files begins with Emit()'s source under source_extension() ("cu")
  // where Compile read one.
  Binary binary;
};

// The module holding only `kernel` of `module` (a kernel compiles and is cached
// alone: the others may not be meant for the target), or NotFound listing the
// module's kernels.
absl::StatusOr<Module> SingleKernelModule(const Module& module, std::string_view kernel);

class Target {
 public:
  virtual ~Target() = default;

  // The canonical name: architecture filled in, options at their defaults
  // left out ("cuda" resolves to "cuda:sm_90a").
  const TargetName& name() const { return name_; }
  std::string ToString() const { return name_.ToString(); }

  // What the generic passes ask (warp size, shared memory, gemm hooks).
  virtual std::shared_ptr<const passes::TargetInfo> info() const = 0;
  // The pass pipeline that lowers a tile-level module for this target; its
  // steps never name the target: the pass manager is given it once.
  virtual std::string DefaultPipeline() const = 0;
  // The passes only this target runs (they live in its folder).
  virtual std::vector<passes::PassInfo> Passes() const { return {}; }
  // The generic passes plus Passes(): what this target's pipelines resolve against.
  passes::PassRegistry PassRegistry() const;

  // Runs `pipeline` (DefaultPipeline() when empty) with this target over a
  // copy of `module`, giving thread-level IR. Errors name the failing pass.
  // `remarks`, when given, receives the passes' remarks (PassOptions::Remark).
  absl::StatusOr<Module> Lower(const Module& module, std::string_view pipeline = "",
                               std::vector<std::string>* remarks = nullptr) const;
  // The source code of lowered IR ("cu", "hip", "metal", "ll": source_extension()).
  virtual absl::StatusOr<std::string> Emit(const Module& lowered,
                                           const EmitOptions& options) const = 0;
  virtual std::string source_extension() const = 0;

  // The real compiler's exact version when this machine has it; otherwise
  // Unavailable saying why not ("NVRTC not found: ...", "no Metal compiler
  // here").
  virtual absl::StatusOr<std::string> FindCompiler() const = 0;
  // Compiles Emit()'s `source` of `kernel` (one of `lowered`'s) with the real
  // compiler. Unavailable when FindCompiler() is not OK.
  virtual absl::StatusOr<Binary> Compile(const Module& lowered, const std::string& source,
                                         std::string_view kernel) const = 0;
  // Whether Compile reads Emit()'s source; false where it makes its binary from
  // the lowered module itself (the CPU's object code), so that CompileKernel
  // does not pay for an emission nothing reads.
  virtual bool CompilesFromSource() const { return true; }
  // Whether Lower and Emit depend on the machine they run on (the CPU target compiles for the
  // host: its CPU name, features and vector width), so that two machines give one kernel
  // different code. The support matrix hashes the code of the others only.
  virtual bool CodeFollowsHost() const { return false; }

  // The whole compile of `kernel` of a tile-level module, the one path every
  // device and the kernel cache take: SingleKernelModule, Lower, Emit (where
  // CompilesFromSource()), Compile. Errors other than the missing kernel name
  // the target, the failing step and the kernel ("cuda:sm_80: lowering kernel
  // 'big': ...").
  absl::StatusOr<CompiledKernel> CompileKernel(const Module& module, std::string_view kernel) const;

  // Everything besides the kernel that its binary depends on, for the kernel
  // cache and the support matrix: "target", "pipeline", and what the family
  // adds (device library fingerprint, compiler version and options).
  virtual std::vector<std::pair<std::string, std::string>> CacheFields() const;

 protected:
  explicit Target(TargetName name) : name_(std::move(name)) {}

 private:
  TargetName name_;
};

// An option a family accepts in `{key=value}`.
struct TargetOption {
  std::string key;
  // The accepted values, the default first; an integer option lists only its default.
  std::vector<std::string> values;
  std::string description;
  // Set for an integer option ({sms=N}): any whole number from .first to .second.
  std::optional<std::pair<int64_t, int64_t>> integer_range;
};

class TargetFamily {
 public:
  virtual ~TargetFamily() = default;
  virtual std::string name() const = 0;  // "cuda"
  // One line for --help: "CUDA C++ through NVRTC".
  virtual std::string description() const = 0;
  // The architectures a name may give, oldest first; empty when the family
  // takes none (the CPU compiles for the host it runs on).
  virtual std::vector<std::string> archs() const = 0;
  // What a name without one means; one of archs() (unused when that is empty).
  virtual std::string default_arch() const { return ""; }
  virtual std::vector<TargetOption> options() const { return {}; }
  // Adds the intrinsics the family's lowering emits to tile_ir's table, so that
  // lowered IR (a cache entry, a dump) parses. Called once by the registry.
  virtual void RegisterIntrinsics() const {}
  // For a name that does not parse or resolve: a message naming what replaced
  // it when it is an old spelling, else nullopt.
  virtual std::optional<std::string> Replacement(std::string_view text) const {
    return std::nullopt;
  }
  // Refuses a process whose environment asks for what a target name must say
  // (a stale variable that once changed the compile), naming the replacement.
  // Asked on every resolution, so it holds for targets made before.
  virtual absl::Status CheckEnvironment() const { return absl::OkStatus(); }
  // Refuses options that the name's architecture cannot take, as the name was
  // written (its architecture filled in, every option it gave, default values
  // included, all known and accepted): the registry asks before it leaves the
  // defaults out, so that a default written for an architecture without the
  // feature ({overlap=on} on sm_80) is refused like any other value of it.
  virtual absl::Status CheckOptions(const TargetName& written) const { return absl::OkStatus(); }
  // `name` has this family, an architecture of archs() (or none when that is
  // empty) and only options() with accepted values, defaults left out.
  virtual absl::StatusOr<std::unique_ptr<Target>> Create(const TargetName& name) const = 0;
};

}  // namespace tile_ir::targets

#endif  // TARGETS_TARGET_H_
