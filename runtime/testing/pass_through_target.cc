// An empty pipeline and the printer as the compiler.
#include "runtime/testing/pass_through_target.h"

#include "passes/testing/fake_targets.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::testing {
namespace {

class PassThroughTarget final : public targets::Target {
 public:
  explicit PassThroughTarget(const std::string& family) : Target({family, "", {}}) {}

  std::shared_ptr<const passes::TargetInfo> info() const override {
    absl::StatusOr<std::shared_ptr<const passes::TargetInfo>> info =
        passes::testing::FindFakeTarget("test-cpu");
    return info.ok() ? *info : nullptr;
  }
  std::string DefaultPipeline() const override { return ""; }
  absl::StatusOr<std::string> Emit(const Module& lowered,
                                   const targets::EmitOptions& options) const override {
    return Print(lowered);
  }
  std::string source_extension() const override { return "tile"; }
  absl::StatusOr<std::string> FindCompiler() const override { return std::string("the printer"); }
  // The source is the binary: the fake device reads its module from `lowered`.
  bool CompilesFromSource() const override { return false; }
  absl::StatusOr<targets::Binary> Compile(const Module& lowered, const std::string& source,
                                          std::string_view kernel) const override {
    targets::Binary binary;
    binary.format = "tile";
    binary.entry = std::string(kernel);
    binary.bytes = Print(lowered);
    binary.compiler = "the printer";
    return binary;
  }
};

}  // namespace

std::unique_ptr<targets::Target> MakePassThroughTarget(const std::string& family) {
  return std::make_unique<PassThroughTarget>(family);
}

}  // namespace tile_ir::runtime::testing
