// What a .npy array means for a kernel parameter: which header dtypes hold
// each IR dtype, and conversions between .npy arrays and host buffers.
//
// NumPy has no bf16 or fp8; ml_dtypes' arrays of them save with a header
// that lost the type: bfloat16 as '<V2', float8_e4m3fn as '<V1' and
// float8_e5m2 as '<f1' (measured with NumPy 2.4 and ml_dtypes 0.7; see
// tools/npy/testdata/make_fixtures.py). Such raw-byte arrays are taken for
// what the parameter declares; the names 'bfloat16', 'float8_e4m3fn' and
// 'float8_e5m2' are accepted too, for writers that spell them out.
#ifndef TOOLS_TILE_RUN_NPY_TENSORS_H_
#define TOOLS_TILE_RUN_NPY_TENSORS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/host_buffer.h"
#include "tile_ir/dtype.h"
#include "tools/npy/npy.h"

namespace tile_ir::tools {

// The descr tile-run writes for a dtype: '<f4', '|i1', ...; bf16 '<V2' and
// fp8 '<V1' as ml_dtypes does (np.load gives a void array; .view(
// ml_dtypes.bfloat16) restores it), i4 '|i1' with one value per byte.
std::string NpyDescrOf(DataType dtype);

// How NumPy users name a dtype: "float32", "ml_dtypes.bfloat16", ...
std::string NumpyNameOf(DataType dtype);

// OK when an array with `descr` can hold a parameter of `dtype`; otherwise
// what it holds instead ("'<f4' (float32)"), for the caller's message.
absl::Status CheckNpyDtype(DataType dtype, const std::string& descr);

// The array's bytes as a host buffer of `dtype` (CheckNpyDtype must pass);
// i4 values outside [-8, 7] are refused naming the first.
absl::StatusOr<std::unique_ptr<runtime::HostBuffer>> NpyToHostBuffer(const npy::NpyArray& array,
                                                                     DataType dtype);

// The buffer as an array with NpyDescrOf(dtype).
npy::NpyArray HostBufferToNpy(const runtime::HostBuffer& buffer);

// Every element as a double, for --expect: any bool, integer or float descr,
// or one that CheckNpyDtype accepts for `output_dtype` (so a bf16 output's
// reference may be ml_dtypes bfloat16, or float64).
absl::StatusOr<std::vector<double>> NpyToDoubles(const npy::NpyArray& array, DataType output_dtype);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_NPY_TENSORS_H_
