#include "tools/tile_run/run_values.h"

#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "ops/op_tensors.h"
#include "tools/common/assignments.h"

namespace tile_ir::tools {
namespace {

std::string FormatSize(double bytes) {
  constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit + 1 < static_cast<int>(std::size(kUnits))) {
    bytes /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(static_cast<int64_t>(bytes), " bytes");
  return absl::StrFormat("%.1f %s", bytes, kUnits[unit]);
}

}  // namespace

absl::Status ScalarValues(const KernelNode& kernel, const std::map<std::string, std::string>& given,
                          std::map<std::string, double>& scalars,
                          std::map<std::string, int64_t>& integers) {
  for (const auto& [name, text] : given) {
    const std::string assignment = absl::StrCat(name, "=", cli::ShownValue(text));
    const Param* param = nullptr;
    for (const Param& each : kernel.params) {
      if (!each.is_buffer() && each.name() == name) param = &each;
    }
    const bool integer_param =
        param != nullptr && (param->scalar->dtype().is_int() || param->scalar->dtype().is_bool());
    if (!integer_param) {
      double value = 0;
      if (!absl::SimpleAtod(text, &value)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--scalars: ", assignment, ": the value is not a number"));
      }
      scalars[name] = value;  // a name that is no parameter: the run names what the kernel has
      integers.erase(name);
      continue;
    }
    const DataType dtype = param->scalar->dtype();
    const std::string where =
        absl::StrCat("scalar parameter '", name, "' of kernel '", kernel.name, "'");
    if (!cli::LooksLikeInteger(text)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--scalars: ", assignment, " is not an integer, and ", where, " is an ",
                       dtype.ToString(), ": write an integer, without a point or an exponent"));
    }
    const auto [low, high] = cli::IntegerRange(dtype);
    int64_t value = 0;
    if (!absl::SimpleAtoi(text, &value) || value < low || value > high) {
      return absl::InvalidArgumentError(
          absl::StrCat("--scalars: ", assignment, " is out of range for ", where, ", whose type ",
                       dtype.ToString(), " holds ", low, " to ", high));
    }
    integers[name] = value;
    scalars[name] = static_cast<double>(value);
  }
  return absl::OkStatus();
}

int64_t PhysicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(pages) * page_size;
}

absl::Status CheckHostMemory(const KernelNode& kernel, const ops::Shapes& dims, int64_t limit) {
  double total = 0;
  std::vector<std::string> parts;
  for (const Param& param : kernel.params) {
    if (!param.is_buffer()) continue;
    absl::StatusOr<std::vector<int64_t>> shape = ops::ParamShape(param, dims);
    if (!shape.ok()) return shape.status();
    double elements = 1;
    for (int64_t extent : *shape) elements *= static_cast<double>(std::max<int64_t>(extent, 0));
    // The host copy in the buffer's dtype, and the float64 copy the reference reads.
    const double bytes = elements * (param.buffer->dtype.bits() / 8.0 + 8);
    total += bytes;
    parts.push_back(absl::StrCat(param.name(), " ", FormatSize(bytes)));
  }
  if (total <= static_cast<double>(limit)) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "kernel '", kernel.name, "' at these shapes needs ", FormatSize(total),
      " of host memory (each buffer's copy and its float64 reference: ", absl::StrJoin(parts, ", "),
      "), more than this machine's ", FormatSize(static_cast<double>(limit)),
      "; give smaller --shapes"));
}

}  // namespace tile_ir::tools
