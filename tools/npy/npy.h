// NumPy's .npy file format, read and written without NumPy: the header
// (versions 1.0, 2.0 and 3.0, which differ only in the width of the header
// length and the header's encoding) and the C-order data after it. The dtype
// stays a string (`descr`, "<f4", "|i1", "<V2"): what it means for a kernel
// parameter is the caller's business (tools/tile_run/npy_dtypes.h).
#ifndef TOOLS_NPY_NPY_H_
#define TOOLS_NPY_NPY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tile_ir::npy {

struct NpyArray {
  // The header's 'descr' as written: a byte order ('<', '>', '|', '='), a
  // kind and an item size in bytes, e.g. "<f4"; or a name some writers use
  // ("bfloat16"). Structured (list) descrs are refused on reading.
  std::string descr;
  std::vector<int64_t> shape;  // () is a scalar, one element
  std::string data;            // row-major bytes, num_elements() * item size

  int64_t num_elements() const;
};

// The item size in bytes that `descr` names: the digits after the kind
// ("<f4" is 4, "<V2" is 2), 2 for "bfloat16", 1 for "float8_e4m3fn" and
// "float8_e5m2". Refused: big-endian multi-byte items (">f4": save with
// a.astype('<f4')), object arrays ('O', pickled Python objects), strings,
// dates and anything that is not one kind letter and a size.
absl::StatusOr<int64_t> DescrItemSize(std::string_view descr);

// Decodes a whole .npy file's bytes. Every error starts with `source` (the
// file name) and says what is wrong: bad magic, an unknown version, a header
// that is truncated or not a dict of exactly 'descr', 'fortran_order' and
// 'shape', Fortran order (unsupported: save np.ascontiguousarray(a)), data
// shorter or longer than the shape says.
absl::StatusOr<NpyArray> ParseNpy(std::string_view bytes, std::string_view source);

// Encodes `array` as version 1.0 (2.0 when the header outgrows 64 KiB), the
// header padded so the data starts at a multiple of 64 bytes, as NumPy does.
// `array.data` must hold exactly num_elements() items of its descr.
absl::StatusOr<std::string> SerializeNpy(const NpyArray& array);

// The largest .npy file read: 16 GiB, more than any host buffer tile-run allocates.
inline constexpr int64_t kMaxNpyFileBytes = int64_t{16} << 30;

// File helpers; errors name the path. ReadNpyFile reads only a regular file of at most
// kMaxNpyFileBytes (a FIFO or a device such as /dev/zero is refused, naming what it is), and
// checks the data size the header declares against the file's size before reading the data.
absl::StatusOr<NpyArray> ReadNpyFile(const std::string& path);
absl::Status WriteNpyFile(const std::string& path, const NpyArray& array);

}  // namespace tile_ir::npy

#endif  // TOOLS_NPY_NPY_H_
