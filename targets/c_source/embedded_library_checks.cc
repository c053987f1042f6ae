// gtest expectations over an embedded library (see embedded_library_checks.h).
#include "targets/c_source/embedded_library_checks.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace tile_ir::c_source {

void ExpectOriginsIn(absl::Span<const EmbeddedFile> library, std::string_view vendor_dir) {
  for (const EmbeddedFile& header : library) {
    const std::string_view base = header.name.substr(header.name.rfind('/') + 1);
    const std::string_view dir = header.name.substr(0, 12) == "tl/portable/"
                                     ? "targets/c_source/device/"
                                     : vendor_dir;
    EXPECT_EQ(header.origin, std::string(dir) + std::string(base));
  }
}

void ExpectIncludesResolve(absl::Span<const EmbeddedFile> library) {
  std::set<std::string> names;
  for (const EmbeddedFile& header : library) names.emplace(header.name);
  for (const EmbeddedFile& header : library) {
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

}  // namespace tile_ir::c_source
