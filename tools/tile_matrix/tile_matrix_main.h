// tile-matrix as a library: `run` probes the operator suite on the backends
// this binary has and records a status with its evidence per operator and
// target; `merge` folds records from other machines into the committed
// file; `query` answers from it; `render` writes the Markdown and HTML
// matrix. The binaries are one-line mains that choose the probers
// (tile-matrix: every backend; tile-matrix-gpu: CUDA alone, no LLVM).
#ifndef TOOLS_TILE_MATRIX_TILE_MATRIX_MAIN_H_
#define TOOLS_TILE_MATRIX_TILE_MATRIX_MAIN_H_

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "ops/op_suite.h"
#include "tools/tile_matrix/prober.h"

namespace tile_ir::matrix {

// Where the committed matrix lives, relative to the repository root.
inline constexpr char kRecordsPath[] = "docs/support_matrix/records.json";
inline constexpr char kMarkdownPath[] = "docs/SUPPORT_MATRIX.md";
inline constexpr char kHtmlPath[] = "docs/support_matrix/index.html";

struct TileMatrixEnvironment {
  std::string program = "tile-matrix";
  // Fresh probers of every backend this binary has, in the matrix's column order.
  std::function<Probers()> make_probers;
  const std::vector<ops::OpCase>* suite = nullptr;
  // Prefixed to the default paths above: the repository root ("" = the
  // current directory). Paths given on the command line are used as given.
  std::string root;
  // The project's commit (`git rev-parse`, "unknown" without git), the UTC
  // time and the host name; tests pin them.
  std::function<std::string()> commit;
  std::function<std::string()> now;
  std::function<std::string()> machine;
  // Where code hashes are kept between runs of one build (code_hash_cache.h); "" keeps none.
  std::string code_hash_cache;
};

// The environment of the binaries: `make_probers` as given, the real suite,
// the root from $BUILD_WORKSPACE_DIRECTORY (bazel run) or the current directory,
// git, the clock, the host name and the code-hash cache's folder.
TileMatrixEnvironment DefaultEnvironment(std::string program,
                                         std::function<Probers()> make_probers);

// Returns the exit status: 0 success; 1 a failure (a cell failed during run,
// nothing found by query, a file unreadable or out of date); 2 a bad command line.
int TileMatrixMain(int argc, char** argv, std::ostream& out, std::ostream& err,
                   const TileMatrixEnvironment& env);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_TILE_MATRIX_MAIN_H_
