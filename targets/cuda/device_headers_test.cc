// The embedded device library: every header is there under "tl/" with the portable ones under
// "tl/portable/", each names the file it came from, includes between headers resolve inside the
// library, and the fingerprint is the library's.
#include "targets/cuda/device_headers.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "targets/c_source/embedded_library_checks.h"

namespace tile_ir::cuda {
namespace {

TEST(DeviceHeadersTest, LibraryIsEmbedded) {
  std::set<std::string> names;
  for (const c_source::EmbeddedFile& header : DeviceHeaders()) {
    EXPECT_EQ(header.name.substr(0, 3), "tl/");
    EXPECT_FALSE(header.source.empty()) << header.name;
    names.emplace(header.name);
  }
  for (const char* name :
       {"tl/common.cuh", "tl/arith.cuh", "tl/async_copy.cuh", "tl/convert.cuh", "tl/math.cuh",
        "tl/memory.cuh", "tl/warp_reduce.cuh", "tl/prelude.h", "tl/portable/arith.h",
        "tl/portable/convert.h", "tl/portable/math.h", "tl/portable/memory.h"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
}

TEST(DeviceHeadersTest, EachHeaderNamesItsOrigin) {
  c_source::ExpectOriginsIn(DeviceHeaders(), "targets/cuda/device/");
}

TEST(DeviceHeadersTest, IncludesResolveInsideTheLibrary) {
  c_source::ExpectIncludesResolve(DeviceHeaders());
}

TEST(DeviceHeadersTest, FingerprintIsTheLibrarys) {
  EXPECT_EQ(DeviceLibraryFingerprint(), c_source::Fingerprint(DeviceHeaders()));
  EXPECT_NE(DeviceLibraryFingerprint(), 0u);
}

}  // namespace
}  // namespace tile_ir::cuda
