// The code a record is judged against: the operator suite's kernels and the
// targets' lowering as this build has them. A record whose hashes differ is
// stale: its evidence is about code that no longer exists.
#ifndef TOOLS_TILE_MATRIX_CURRENT_CODE_H_
#define TOOLS_TILE_MATRIX_CURRENT_CODE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/op_suite.h"
#include "tools/tile_matrix/prober.h"
#include "tools/tile_matrix/record.h"

namespace tile_ir::matrix {

class CodeGeneration;

struct CurrentCode {
  std::vector<std::string> ops;                      // the suite's order
  std::map<std::string, std::string> dtype;          // by op
  std::map<std::string, std::string> ir_hash;        // by op
  std::vector<TargetSpec> targets;                   // every prober's, in the probers' order
  std::map<std::string, std::string> backend;        // by target
  std::map<std::string, std::string> lowering_hash;  // by target
  std::map<std::string, std::string> arch;           // by target
  // What generating each operator's code gives now, by (op, target), filled in as CodeHashOf
  // is asked: one operator on one target lowers in up to a second unoptimized, the whole suite
  // on every target in a minute, so a query judges only the records it shows.
  mutable std::map<std::pair<std::string, std::string>, std::string> code_hash;
  // Generates what code_hash lacks (and keeps it in the code-hash cache when there is one);
  // null where code_hash is filled by hand (tests).
  std::shared_ptr<CodeGeneration> generation;

  // The code hash of `op` on `target` now, or nullopt where there is none to compare: a target
  // whose code follows the host, or one this build has no prober for.
  std::optional<std::string> CodeHashOf(const std::string& op, const std::string& target) const;
};

// The suite and the probers' targets described; code hashes are generated when first asked, by
// `probers` (kept for that), and read from and written to `cache_directory`'s code-hash cache
// (code_hash_cache.h) unless it is empty. The cache is written when the description is destroyed.
CurrentCode DescribeCurrentCode(const std::vector<ops::OpCase>& suite, Probers probers,
                                const std::string& cache_directory = "");

// Why `record` no longer describes the current code ("the kernel changed
// since", "the operator is not in the suite", ...), or empty when it still
// does. A target this build has no prober for cannot be judged: not stale. Nor can the
// code of a record without a code_hash (made before they existed, or for a target whose code
// follows the host), nor of one made for another arch than the target's here.
std::string StaleReason(const Record& record, const CurrentCode& code);

// The columns of a matrix: the probers' targets, then any other target a
// record names, sorted.
std::vector<std::string> MatrixTargets(const std::vector<Record>& records, const CurrentCode& code);
// The rows: the suite's operators, then any other operator a record names, sorted.
std::vector<std::string> MatrixOps(const std::vector<Record>& records, const CurrentCode& code);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_CURRENT_CODE_H_
