// Report formatting shared by single runs and the --all table.
#include "tools/tile_run/report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace tile_ir::tools {

std::string FormatSeconds(double seconds) {
  if (seconds < 1e-6) return absl::StrFormat("%.0f ns", seconds * 1e9);
  if (seconds < 1e-3) return absl::StrFormat("%.1f us", seconds * 1e6);
  if (seconds < 1) return absl::StrFormat("%.2f ms", seconds * 1e3);
  return absl::StrFormat("%.2f s", seconds);
}

std::string FormatError(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return absl::StrFormat("%.3g", value);
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return absl::StrFormat("%.9g", value);
}

std::string FormatShapes(const ops::Shapes& dims, const std::vector<std::string>& order) {
  std::vector<std::string> parts;
  for (const std::string& name : order) {
    if (auto it = dims.find(name); it != dims.end())
      parts.push_back(absl::StrCat(name, "=", it->second));
  }
  for (const auto& [name, value] : dims) {
    if (std::find(order.begin(), order.end(), name) == order.end()) {
      parts.push_back(absl::StrCat(name, "=", value));
    }
  }
  return absl::StrJoin(parts, ",");
}

std::string FormatCheck(const OutputCheck& check) {
  std::string line =
      absl::StrCat(check.name, check.inputs.empty() ? "" : absl::StrCat(" [", check.inputs, "]"),
                   ": max abs err ", FormatError(check.max_abs_error), ", max rel err ",
                   FormatError(check.max_rel_error));
  if (check.worst >= 0) {
    absl::StrAppend(&line, ", worst at ", FormatIndex(check.shape, check.worst), " (got ",
                    FormatValue(check.worst_got), ", want ", FormatValue(check.worst_want), ")");
  }
  absl::StrAppend(&line, ", ", check.mismatches, " of ", check.elements, " mismatched, ",
                  check.nans, " NaN: ", check.passed() ? "PASS" : "FAIL");
  return line;
}

std::string FormatBench(const RunResult& result, int iters) {
  std::string line = absl::StrCat("median ", FormatSeconds(result.median_seconds.value_or(0)),
                                  " over ", iters, " launches");
  if (result.flops_per_second) {
    absl::StrAppend(&line, absl::StrFormat(", %.3g GFLOP/s", *result.flops_per_second / 1e9));
  }
  if (result.bytes_per_second) {
    absl::StrAppend(&line, absl::StrFormat(", %.3g GB/s", *result.bytes_per_second / 1e9));
  }
  return line;
}

std::string FormatTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(header.size());
  for (size_t c = 0; c < header.size(); ++c) widths[c] = header[c].size();
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  auto format_row = [&widths](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size() && c < widths.size(); ++c) {
      if (c > 0) line += "  ";
      line += cells[c];
      if (c + 1 < cells.size()) line += std::string(widths[c] - cells[c].size(), ' ');
    }
    // No trailing spaces, even where the last cells are empty.
    line.erase(line.find_last_not_of(' ') + 1);
    return line + "\n";
  };
  std::string text = format_row(header);
  std::vector<std::string> rules;
  for (size_t width : widths) rules.push_back(std::string(width, '-'));
  text += format_row(rules);
  for (const auto& row : rows) text += format_row(row);
  return text;
}

}  // namespace tile_ir::tools
