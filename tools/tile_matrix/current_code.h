// The code a record is judged against: the operator suite's kernels and the
// targets' lowering as this build has them. A record whose hashes differ is
// stale: its evidence is about code that no longer exists.
#ifndef TOOLS_TILE_MATRIX_CURRENT_CODE_H_
#define TOOLS_TILE_MATRIX_CURRENT_CODE_H_

#include <map>
#include <string>
#include <vector>

#include "ops/op_suite.h"
#include "tools/tile_matrix/prober.h"
#include "tools/tile_matrix/record.h"

namespace tile_ir::matrix {

struct CurrentCode {
  std::vector<std::string> ops;                      // the suite's order
  std::map<std::string, std::string> dtype;          // by op
  std::map<std::string, std::string> ir_hash;        // by op
  std::vector<TargetSpec> targets;                   // every prober's, in the probers' order
  std::map<std::string, std::string> backend;        // by target
  std::map<std::string, std::string> lowering_hash;  // by target
  std::map<std::string, std::string> arch;           // by target
  // What generating each operator's code gives now, by (op, target): every operator is
  // lowered for every target (a few seconds for the suite).
  std::map<std::pair<std::string, std::string>, std::string> code_hash;
};

CurrentCode DescribeCurrentCode(const std::vector<ops::OpCase>& suite, const Probers& probers);

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
