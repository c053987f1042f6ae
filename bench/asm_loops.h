// Reading loops out of x86 assembly text (AT&T syntax, as LLVM prints it), so
// that a benchmark can show which SIMD instructions a kernel's hot loop uses.
#ifndef BENCH_ASM_LOOPS_H_
#define BENCH_ASM_LOOPS_H_

#include <string>
#include <string_view>

namespace tile_ir::bench {

// Packed fused multiply-adds (vfmadd..., vfmsub..., vfnmadd..., vfnmsub...
// ending in ps or pd) whose operands name a `reg` register ("zmm", "ymm", "xmm").
int CountVectorFmas(std::string_view assembly, std::string_view reg);

struct AsmLoop {
  std::string text;  // from the loop's label to its backward branch, both included
  int num_lines = 0;
  int fmas = 0;  // vector FMAs of any width
};

// Of the innermost loops with vector FMAs (a label and a later branch back to
// it, containing no other such loop), the one with the most of them, the
// shortest among equals; empty when no loop has one.
AsmLoop HottestFmaLoop(std::string_view assembly);

// The first `max_lines` lines of `text`, then a line saying how many were left out.
std::string Excerpt(std::string_view text, int max_lines);

}  // namespace tile_ir::bench

#endif  // BENCH_ASM_LOOPS_H_
