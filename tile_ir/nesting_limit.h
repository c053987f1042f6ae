// The one bound on how deeply statements and expressions may nest in a module. Every reader
// (the text parser, the .tilepb and the JSON readers) applies it, so that a module one form
// accepts the others accept too, and a module too deep for one is refused by all with the
// same message after each form's own "where".
#ifndef TILE_IR_NESTING_LIMIT_H_
#define TILE_IR_NESTING_LIMIT_H_

#include <string>

namespace tile_ir {

// A kernel's body is at depth 1, a statement or expression directly inside a node at depth N
// is at depth N + 1 (statements and expressions count alike: `A[0] = s + (s + s);` as the
// body's second statement puts the innermost `s` at depth 5). A body (of a kernel, loop or if)
// that is not a Seq counts as one inside a Seq, as the text form writes it, so that printing a
// module never makes it deeper. Deeper modules are refused as
// they are read, before anything recurses over them: the printer, the verifier and the passes
// walk the IR recursively (tools/tile_opt/nesting_limit_test runs the CPU pipeline and
// the code generators at this depth).
inline constexpr int kMaxNestingDepth = 1000;

// "statements and expressions nest more than 1000 deep; ...", with what to do about it.
std::string NestingTooDeepMessage();

}  // namespace tile_ir

#endif  // TILE_IR_NESTING_LIMIT_H_
