// tile-run's run and report stages: the loaded kernel run on the suite's random inputs (checked
// against the operator's reference with --check) or on --in/--out/--expect files, and the lines
// of the report that follow the run's header.
#ifndef TOOLS_TILE_RUN_RUN_AND_REPORT_H_
#define TOOLS_TILE_RUN_RUN_AND_REPORT_H_

#include <iosfwd>
#include <string>

#include "ops/op_suite.h"
#include "runtime/device_base.h"
#include "tools/tile_run/file_run.h"
#include "tools/tile_run/run_kernel.h"

namespace tile_ir::tools {

// Stage 7: the run on the suite's random inputs (checked against `op`'s reference with --check;
// `op` null for a kernel outside the suite), and its report; the exit status.
int ReportRun(runtime::Device& device, runtime::LoadedKernel& loaded, const ops::OpCase* op,
              const RunOptions& options, const std::string& cache_line, const std::string& path,
              std::ostream& out, std::ostream& err);

// Stage 7 on --in/--out/--expect files, and its report; the exit status.
int ReportFileRun(runtime::Device& device, runtime::LoadedKernel& loaded, const FileTensors& files,
                  const RunOptions& options, const std::string& path, std::ostream& out,
                  std::ostream& err);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_RUN_AND_REPORT_H_
