// The embedded HIP device library: every header the generated code reaches, the portable ones
// under "tl/portable/", each naming the file it came from, with includes that resolve inside the
// library and a fingerprint that is the library's.
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
  for (const c_source::EmbeddedFile& header : HipDeviceHeaders()) {
    const std::string_view base = header.name.substr(header.name.rfind('/') + 1);
    const std::string_view dir = header.name.substr(0, 12) == "tl/portable/"
                                     ? "targets/c_source/device/"
                                     : "targets/hip/device/";
    EXPECT_EQ(header.origin, std::string(dir) + std::string(base));
  }
}

TEST(HipDeviceHeadersTest, IncludesResolveInsideTheLibrary) {
  std::set<std::string> names;
  for (const c_source::EmbeddedFile& header : HipDeviceHeaders()) names.emplace(header.name);
  for (const c_source::EmbeddedFile& header : HipDeviceHeaders()) {
    std::string_view rest = header.source;
    const std::string_view directive = "#include \"";
    for (size_t at = rest.find(directive); at != std::string_view::npos;
         at = rest.find(directive)) {
      rest = rest.substr(at + directive.size());
      std::string included(rest.substr(0, rest.find('"')));
      EXPECT_TRUE(names.contains(included)) << header.name << " includes " << included;
    }
  }
}

}  // namespace
}  // namespace tile_ir::hip
