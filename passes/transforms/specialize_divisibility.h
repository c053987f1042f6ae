// Divisibility specialization: the powers of two a call's shapes are divisible by, compiled
// in as shape requirements (`require K % 16 == 0`) while the dims themselves stay symbolic.
// One binary then serves every shape of that divisibility class, as Triton specializes on
// "divisible by 16", and the passes that read requirements as facts
// (passes/analysis/divisibility.h) can prove what a constant shape would prove about
// alignment: a row pitch that is a multiple of 16 bytes, which the Hopper TMA needs. The
// runtime checks every requirement at launch, so a binary is never run outside its class.
#ifndef PASSES_TRANSFORMS_SPECIALIZE_DIVISIBILITY_H_
#define PASSES_TRANSFORMS_SPECIALIZE_DIVISIBILITY_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// The largest power of two dividing `value`, at most `max_divisor` (itself a power of two):
// the class a dim of that value falls in. 0 is divisible by everything, so it gets
// `max_divisor`; a negative value is classed by its magnitude.
int64_t DivisibilityClass(int64_t value, int64_t max_divisor);

// `kernel` with `require D % d == 0` added for each symbolic dim D named in `values`, d its
// DivisibilityClass under `max_divisor`, where d > 1 and no requirement says so already.
// Dims not named, and values named for dims the kernel does not have (or has made constant),
// are left alone: a caller passes every shape it knows. `kernel` itself when nothing is
// added (max_divisor <= 1 adds nothing). An error when `max_divisor` is not a power of two.
absl::StatusOr<Kernel> SpecializeDivisibility(const Kernel& kernel,
                                              const std::map<std::string, int64_t>& values,
                                              int64_t max_divisor);

// The pass: `specialize-divisibility{values="K=520,N=1000",max=16}`, on every kernel.
PassInfo SpecializeDivisibilityPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_SPECIALIZE_DIVISIBILITY_H_
