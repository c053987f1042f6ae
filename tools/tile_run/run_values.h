// The scalar values a run is given on the command line, checked against the kernel's dtypes, and
// the host memory its buffers need, all before anything is allocated: a dimension an i32 cannot
// hold (tools/common/assignments.h checks --shapes) or a shape too large for the machine must not
// fill gigabytes of buffers first.
#ifndef TOOLS_TILE_RUN_RUN_VALUES_H_
#define TOOLS_TILE_RUN_RUN_VALUES_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/op_suite.h"
#include "tile_ir/module.h"

namespace tile_ir::tools {

// --scalars' values into `scalars` (every one as a double, what the reference sees) and
// `integers` (an integer parameter's value, exactly: what the kernel gets). An integer
// parameter's value must be an integer its dtype holds, named with the parameter when it is not;
// a float parameter's any number.
absl::Status ScalarValues(const KernelNode& kernel, const std::map<std::string, std::string>& given,
                          std::map<std::string, double>& scalars,
                          std::map<std::string, int64_t>& integers);

// The physical memory of this machine, in bytes.
int64_t PhysicalMemoryBytes();

// Refuses a run whose buffers need more host memory than `limit` bytes: each buffer's host copy
// and the float64 copy its reference reads (ops/op_tensors.h), at the shapes `dims` gives.
absl::Status CheckHostMemory(const KernelNode& kernel, const ops::Shapes& dims, int64_t limit);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_RUN_VALUES_H_
