// tile-run's plan stage: the run's kernel specialized as the specialization plan says.
#include "tools/tile_run/specialize_for_run.h"

#include <ostream>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "tools/tile_run/autotune_op.h"

namespace tile_ir::tools {

int SpecializeForRun(const RunRequest& request, const Compiler& compiler, const std::string& name,
                     Module& module, RunOptions& options, std::ostream& out, std::ostream& err) {
  for (Kernel& each : module.kernels) {
    if (each->name != name) continue;
    absl::StatusOr<RunSpecialization> run =
        SpecializeAsRun(each, options.dims, request.static_shapes,
                        compiler.target_object ? compiler.target_object->info().get() : nullptr);
    if (!run.ok()) {
      err << "tile-run: error: " << request.path << ": " << run.status().message() << "\n";
      return 2;
    }
    if (!request.static_shapes && !run->compiled_in.empty()) {
      out << "specialized " << absl::StrJoin(run->compiled_in, ", ")
          << " (sizing fragments, so compiled in as constants)\n";
    }
    if (!run->requirements.empty()) {
      out << "divisibility " << absl::StrJoin(run->requirements, ", ")
          << " (compiled in; the shapes stay dynamic)\n";
    }
    options.specialized_dims.insert(options.specialized_dims.end(), run->compiled_in.begin(),
                                    run->compiled_in.end());
    each = std::move(run->kernel);
  }
  return kGoOn;
}

}  // namespace tile_ir::tools
