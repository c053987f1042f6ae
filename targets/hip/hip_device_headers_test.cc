// The embedded HIP device library: every header the generated code reaches, the portable ones
// under "tl/portable/", each naming the file it came from, with includes that resolve inside the
// library and a fingerprint that is the library's.
#include "targets/hip/hip_device_headers.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "targets/c_source/embedded_library_checks.h"

namespace tile_ir::hip {
namespace {

TEST(HipDeviceHeadersTest, EmbedsTheWholeLibrary) {
  std::set<std::string> names;
  for (const c_source::EmbeddedFile& header : HipDeviceHeaders()) {
    names.insert(std::string(header.name));
    EXPECT_FALSE(header.source.empty()) << header.name;
  }
  for (const char* name :
       {"tl/common.h", "tl/arith.h", "tl/convert.h", "tl/gemm_mfma.h", "tl/math.h", "tl/memory.h",
        "tl/wave_reduce.h", "tl/prelude.h", "tl/portable/arith.h", "tl/portable/convert.h",
        "tl/portable/math.h", "tl/portable/memory.h"}) {
    EXPECT_TRUE(names.contains(name)) << name;
  }
  EXPECT_EQ(HipDeviceLibraryFingerprint(), c_source::Fingerprint(HipDeviceHeaders()));
  EXPECT_NE(HipDeviceLibraryFingerprint(), 0u);
}

TEST(HipDeviceHeadersTest, EachHeaderNamesItsOrigin) {
  c_source::ExpectOriginsIn(HipDeviceHeaders(), "targets/hip/device/");
}

TEST(HipDeviceHeadersTest, IncludesResolveInsideTheLibrary) {
  c_source::ExpectIncludesResolve(HipDeviceHeaders());
}

}  // namespace
}  // namespace tile_ir::hip
