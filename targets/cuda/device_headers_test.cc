// The embedded device library: every header is there under "tl/" with the portable ones under
// "tl/portable/", each names the file it came from, includes between headers resolve inside the
// library, and the fingerprint is the library's.
#include "targets/cuda/device_headers.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

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
  for (const c_source::EmbeddedFile& header : DeviceHeaders()) {
    const std::string_view base = header.name.substr(header.name.rfind('/') + 1);
    const std::string_view dir = header.name.substr(0, 12) == "tl/portable/"
                                     ? "targets/c_source/device/"
                                     : "targets/cuda/device/";
    EXPECT_EQ(header.origin, std::string(dir) + std::string(base));
  }
}

TEST(DeviceHeadersTest, IncludesResolveInsideTheLibrary) {
  std::set<std::string> names;
  for (const c_source::EmbeddedFile& header : DeviceHeaders()) names.emplace(header.name);
  for (const c_source::EmbeddedFile& header : DeviceHeaders()) {
    std::string_view rest = header.source;
    const std::string_view directive = "#include \"";
    for (size_t at = rest.find(directive); at != std::string_view::npos;
         at = rest.find(directive)) {
      rest = rest.substr(at + directive.size());
      std::string included(rest.substr(0, rest.find('"')));
      EXPECT_TRUE(names.count(included)) << header.name << " includes " << included;
    }
  }
}

TEST(DeviceHeadersTest, FingerprintIsTheLibrarys) {
  EXPECT_EQ(DeviceLibraryFingerprint(), c_source::Fingerprint(DeviceHeaders()));
  EXPECT_NE(DeviceLibraryFingerprint(), 0u);
}

}  // namespace
}  // namespace tile_ir::cuda
