// The embedded HIP device library: every header the generated code reaches.
#include "targets/hip/hip_device_headers.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace tile_ir::hip {
namespace {

TEST(HipDeviceHeadersTest, EmbedsTheWholeLibrary) {
  std::set<std::string> names;
  for (const c_source::EmbeddedFile& header : HipDeviceHeaders()) {
    names.insert(std::string(header.name));
    EXPECT_FALSE(header.source.empty()) << header.name;
  }
  for (const char* name : {"tl/common.h", "tl/arith.h", "tl/convert.h", "tl/gemm_mfma.h",
                           "tl/math.h", "tl/memory.h", "tl/wave_reduce.h"}) {
    EXPECT_TRUE(names.contains(name)) << name;
  }
  EXPECT_NE(HipDeviceLibraryFingerprint(), 0u);
}

}  // namespace
}  // namespace tile_ir::hip
