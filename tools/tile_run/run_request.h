// tile-run's command line as a RunRequest: its flags, their values read and every usage error
// (bad numbers, flags that cannot go together) decided before a target resolves or a device
// opens.
#ifndef TOOLS_TILE_RUN_RUN_REQUEST_H_
#define TOOLS_TILE_RUN_RUN_REQUEST_H_

#include <iosfwd>
#include <map>
#include <optional>
#include <string>

#include "tools/common/cli.h"
#include "tools/tile_run/file_run.h"
#include "tools/tile_run/run_kernel.h"

namespace tile_ir::tools {

// A stage's result: kGoOn to go on to the next stage; else the exit status of what was reported.
constexpr int kGoOn = -1;

// --shapes and --scalars as given (name -> text): their values are read once the kernel is
// known, against its dtypes (tools/common/assignments.h, run_values.h).
struct GivenValues {
  std::map<std::string, std::string> shapes;
  std::map<std::string, std::string> scalars;
};

// What the command line asks, read and checked before anything is opened or read.
struct RunRequest {
  std::string path;                   // FILE or OP
  std::optional<std::string> kernel;  // --kernel
  RunOptions base;                    // --check, --bench, --iters, --warmup, --seed
  GivenValues given;                  // --shapes, --scalars
  FileFlags file_flags;               // --in, --out, --expect, --rtol, --atol
  bool all = false;
  bool ragged = false;
  bool static_shapes = false;
  bool autotune = false;
  bool retune = false;
  bool explain = false;
  std::optional<std::string> config;    // --config
  std::optional<std::string> dump_dir;  // --dump-cubin
  std::optional<std::string> cache_dir;
  std::string target;
  // --explain alone describes compile-time choices: the target, not a device, answers it.
  bool explain_only() const {
    return explain && !base.check && !base.bench && !autotune && !ragged;
  }
};

// tile-run's flags and help.
cli::ArgParser MakeRunParser();

// Stage 1: the parsed command line as `request`, every usage error decided (reported on `err`,
// exit status 2) before anything is opened. kGoOn when the request is complete.
int ParseRequest(const cli::ArgParser& parser, RunRequest& request, std::ostream& err);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_RUN_REQUEST_H_
