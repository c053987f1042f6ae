// Output statistics: errors, the worst element, mismatches and NaNs.
#include "tools/tile_run/compare.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tile_ir::tools {

std::string FormatIndex(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    if (shape[d] != 0) flat /= shape[d];
  }
  return absl::StrCat("[", absl::StrJoin(index, ", "), "]");
}

OutputCheck CompareOutput(const std::string& name, const runtime::HostBuffer& got,
                          const ops::RefTensor& want, double atol, double rtol) {
  OutputCheck check;
  check.name = name;
  check.shape = got.shape();
  check.elements = got.num_elements();
  double worst_excess = -INFINITY;
  // Below |want| = atol / rtol the absolute tolerance governs; dividing by
  // smaller references would only report noise around zero.
  const double relative_floor = rtol > 0 ? atol / rtol : 0;
  for (int64_t i = 0; i < check.elements; ++i) {
    double g = got.Get(i);
    double w = want.data[i];
    if (std::isnan(g)) ++check.nans;
    double excess;
    if (std::isnan(g) || std::isnan(w)) {
      bool both = std::isnan(g) && std::isnan(w);
      if (!both) ++check.mismatches;
      excess = both ? -INFINITY : INFINITY;
    } else {
      // Equal infinities subtract to NaN; they are an exact match.
      double error = g == w ? 0.0 : std::fabs(g - w);
      double tolerance = atol + rtol * std::fabs(w);
      if (!(error <= tolerance)) ++check.mismatches;
      check.max_abs_error = std::max(check.max_abs_error, error);
      double scale = std::max(std::fabs(w), relative_floor);
      if (scale != 0) check.max_rel_error = std::max(check.max_rel_error, error / scale);
      excess = error - tolerance;
    }
    if (check.worst < 0 || excess > worst_excess) {
      worst_excess = excess;
      check.worst = i;
      check.worst_got = g;
      check.worst_want = w;
    }
  }
  return check;
}

}  // namespace tile_ir::tools
