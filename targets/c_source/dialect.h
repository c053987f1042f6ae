// What differs between the C++ dialects that targets emit (CUDA C++, HIP C++,
// the Metal Shading Language): spellings of the kernel, its parameters, the
// shared pool, indices, barriers, types, conversions and math, and the hook
// through which a target emits its own intrinsics. The emitter of this package
// walks the thread-level IR once for all of them and asks a Dialect for every
// vendor spelling; it never names a vendor itself.
#ifndef TARGETS_C_SOURCE_DIALECT_H_
#define TARGETS_C_SOURCE_DIALECT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "targets/c_source/c_expr.h"
#include "tile_ir/dtype.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::c_source {

// What a dialect's EmitTargetCall may ask of the emitter.
class CallContext {
 public:
  virtual ~CallContext() = default;
  virtual CExpr Emit(const Expr& expr) = 0;
  // `&buffer[offset]` of the element a load names.
  virtual CExpr AddressOf(const BufferLoad& load) = 0;
  // Records the first error (located at the statement being emitted) and
  // returns a placeholder.
  virtual CExpr Fail(const std::string& message) = 0;
  // The kernel being emitted (a dialect's calls may depend on its signature).
  virtual const KernelNode& kernel() const = 0;
};

class Dialect {
 public:
  virtual ~Dialect() = default;

  // Names in messages: target() "cuda" ("cuda target: ...", "for target cuda"),
  // language() "CUDA" ("has no CUDA form"), lowering() "LowerForCuda".
  virtual std::string target() const = 0;
  virtual std::string language() const = 0;
  virtual std::string lowering() const = 0;

  // Launch limits: threads per block, and on the z axis.
  virtual int64_t max_threads_per_block() const { return 1024; }
  virtual int64_t max_threads_z() const { return 1024; }
  // Identifiers the dialect's built-ins and headers take, beyond C++'s keywords
  // and the names every dialect's emitted code uses (c_names.cc).
  virtual const std::vector<std::string>& reserved_words() const = 0;
  // OK when the dialect has a form for `type`; otherwise Unimplemented text
  // naming the missing capability ("Metal has no 64-bit float type").
  virtual absl::Status CheckType(ScalarType type) const { return absl::OkStatus(); }
  // Whether the device library has an atomic add (`add`) or atomic maximum and minimum of
  // `type` elements: the CUDA and HIP ones have them for every whole-byte type.
  virtual bool has_atomic(ScalarType type, bool add) const { return true; }

  // Types: a value in a register, an element in memory (i4 is packed two per
  // byte in the u8 type).
  virtual std::string ValueType(ScalarType type) const = 0;
  std::string MemoryType(ScalarType type) const {
    return type == ScalarType::kI4 ? ValueType(ScalarType::kU8) : ValueType(type);
  }
  // Whether `double` exists; without it, integer-to-narrow-float conversions
  // go through f32.
  virtual bool has_f64() const { return true; }
  // `value`'s bits read as `to`, a type of the same width (the IR's reinterpret): the device
  // library's tl::bit_cast, or the language's own.
  virtual std::string BitCast(ScalarType to, const std::string& value) const {
    return "tl::bit_cast<" + ValueType(to) + ">(" + value + ")";
  }
  // The suffix of an i64 literal ("LL").
  virtual std::string i64_suffix() const { return "LL"; }
  // The function that widens an f16, bf16 or fp8 value exactly to f32, or
  // "static_cast<float>".
  virtual std::string WidenToF32(ScalarType from) const = 0;
  // The function that rounds an f32 or f64 (`wide`) value once to nearest
  // even into the narrow float `to`.
  virtual std::string NarrowFrom(ScalarType wide, ScalarType to) const = 0;

  // The kernel's opening line, "... symbol(params) {", for a block of `threads`; `symbol` is
  // the kernel's exported name (c_names.h: KernelSymbols).
  virtual std::string KernelOpen(const KernelNode& kernel, const std::string& symbol,
                                 int64_t threads, const std::string& params) const = 0;
  // Parameter `index` of the kernel (buffers, scalars, then dimensions).
  virtual std::string BufferParam(ScalarType element, const std::string& name, int index) const = 0;
  virtual std::string ScalarParam(ScalarType type, const std::string& name, int index) const = 0;
  // Parameters after those, for built-in values (Metal's thread positions).
  virtual std::vector<std::string> BuiltinParams() const { return {}; }
  // Parameters after the dimensions that the dialect derives from the kernel's code (CUDA's
  // TMA tensor maps, which the runtime fills in at launch); an error fails the emission.
  virtual absl::StatusOr<std::vector<std::string>> DerivedParams(const KernelNode&) const {
    return std::vector<std::string>{};
  }
  // The declaration(s) of the byte pool `smem` of `bytes` bytes holding every
  // shared buffer, aligned to 128 bytes.
  virtual std::vector<std::string> SharedPoolDecl(int64_t bytes) const = 0;
  // A shared buffer of element type `type` at `offset` in the pool.
  virtual std::string SharedBufferDecl(const std::string& type, const std::string& name,
                                       int64_t offset) const = 0;
  // The block and thread index of axis 0, 1 or 2; by default the built-ins
  // blockIdx.x and threadIdx.x (.y, .z).
  virtual std::string BlockIndex(int axis) const { return std::string("blockIdx.") + "xyz"[axis]; }
  virtual std::string ThreadIndex(int axis) const {
    return std::string("threadIdx.") + "xyz"[axis];
  }
  virtual std::string Barrier(BarrierScope scope) const = 0;
  // Widest contiguous move through a vector type (uint4, uint2, unsigned);
  // 0 moves every element on its own.
  virtual int max_vector_move_bytes() const { return 16; }
  // Declares a local array aligned for such moves ("__align__(16) ").
  virtual std::string AlignedArrayPrefix() const { return "__align__(16) "; }

  // The function computing math intrinsic `name` (tile_ir/intrinsics.h:
  // exp, exp2, log, ..., abs of floats) on `type`, or nullopt.
  virtual std::optional<std::string> MathFunction(const std::string& name,
                                                  ScalarType type) const = 0;
  // The dialect's own calls (software-pipeline waits, "<target>." library
  // intrinsics); nullopt for a call it does not know, which the emitter then
  // reports as having no form in language().
  virtual std::optional<CExpr> EmitTargetCall(const Call& call, CallContext& context) const = 0;
};

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_DIALECT_H_
