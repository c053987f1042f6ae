// Which variables an expression or statement names: the question several passes ask before
// they move code (can a copy go to the producer, does a loop bound depend on the block index,
// does a region depend on the pipelined loop's variable).
#ifndef PASSES_ANALYSIS_VAR_MENTIONS_H_
#define PASSES_ANALYSIS_VAR_MENTIONS_H_

#include "absl/container/flat_hash_set.h"
#include "tile_ir/expr.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

using VarSet = absl::flat_hash_set<const Var*>;

// Every variable `e` reads, or the expressions of `s` and its statements read (a let's or a
// loop's own variable counts where it is read, not where it is declared).
VarSet MentionedVars(const Expr& e);
VarSet MentionedVars(const Stmt& s);

// Whether `e` names a variable of `vars`.
bool MentionsAny(const Expr& e, const VarSet& vars);

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_VAR_MENTIONS_H_
