// The operator families of the suite, one file each, and what they share:
// element sizes for the traffic figures and the tolerances that follow from
// rounding an output to a narrow float type.
#ifndef OPS_FAMILIES_H_
#define OPS_FAMILIES_H_

#include <vector>

#include "ops/op_suite.h"
#include "tile_ir/dtype.h"

namespace tile_ir::ops {

std::vector<OpCase> GemmOps();               // ops_gemm.cc
std::vector<OpCase> ElementwiseOps();        // ops_elementwise.cc
std::vector<OpCase> ReductionOps();          // ops_reduce.cc
std::vector<OpCase> SoftmaxOps();            // ops_softmax.cc
std::vector<OpCase> NormOps();               // ops_norm.cc
std::vector<OpCase> RowOps();                // ops_rows.cc
std::vector<OpCase> ScanOps();               // ops_scan.cc
std::vector<OpCase> AttentionOps();          // ops_attention.cc
std::vector<OpCase> AttentionBackwardOps();  // ops_attention_bwd.cc
std::vector<OpCase> DecodeOps();             // ops_attention_decode.cc
std::vector<OpCase> VarlenOps();             // ops_attention_varlen.cc
std::vector<OpCase> ConvOps();               // ops_conv.cc
std::vector<OpCase> QuantGemmOps();          // ops_quant_gemm.cc
std::vector<OpCase> GemvOps();               // ops_gemv.cc

// Bytes of one element in memory (i4 is packed: half a byte).
inline double ElementBytes(DataType dtype) { return dtype.bits() / 8.0; }

// One rounding of an exact value to f16 errs by at most 2^-11 relative
// (4.9e-4); allowing twice that also covers the fp32 work before it.
inline constexpr double kF16OutputRtol = 1e-3;
// bf16 keeps 8 significant bits: one rounding errs by at most 2^-8 (3.9e-3)
// relative; likewise doubled.
inline constexpr double kBF16OutputRtol = 8e-3;

}  // namespace tile_ir::ops

#endif  // OPS_FAMILIES_H_
