// Element-wise comparison of a kernel's output with its float64 reference,
// with the statistics tile-run reports.
#ifndef TOOLS_TILE_RUN_COMPARE_H_
#define TOOLS_TILE_RUN_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/host_buffer.h"
#include "ops/op_suite.h"

namespace tile_ir::tools {

struct OutputCheck {
  std::string name;
  std::string inputs;  // the input case it ran ("normal"), empty when the caller has none
  std::vector<int64_t> shape;
  int64_t elements = 0;
  // Elements with !(|got - want| <= atol + rtol * |want|); a NaN where the
  // reference is not NaN always mismatches.
  int64_t mismatches = 0;
  int64_t nans = 0;  // NaN outputs
  // Over elements where both values are numbers; inf when they disagree on an infinity.
  double max_abs_error = 0;
  // |got - want| / max(|want|, atol / rtol): relative where the relative
  // tolerance governs (with rtol == 0, over elements whose reference is not 0).
  double max_rel_error = 0;
  // The element farthest beyond (or closest to) its tolerance; -1 when empty.
  int64_t worst = -1;
  double worst_got = 0;
  double worst_want = 0;

  bool passed() const { return mismatches == 0; }
};

// Compares `got` (read through HostBuffer::Get) with `want`; the shapes must
// agree (the caller allocated both from one shape).
OutputCheck CompareOutput(const std::string& name, const runtime::HostBuffer& got,
                          const ops::RefTensor& want, double atol, double rtol);

// "[i, j, k]" for a row-major flat index.
std::string FormatIndex(const std::vector<int64_t>& shape, int64_t flat);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_COMPARE_H_
