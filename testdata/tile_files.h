// Test helpers over the .tile files under testdata/ (in a test's runfiles):
// finding them all, and splitting golden-test files into their modules.
#ifndef TESTDATA_TILE_FILES_H_
#define TESTDATA_TILE_FILES_H_

#include <string>
#include <vector>

namespace tile_ir::testdata {

// Every .tile file below testdata/, sorted.
std::vector<std::string> AllTileFiles();

// The whole file; empty when it cannot be read (the caller's parse then fails).
std::string ReadTextFile(const std::string& path);

// Golden tests keep several modules in one file, split by "// -----" lines.
std::vector<std::string> SplitModules(const std::string& text);

}  // namespace tile_ir::testdata

#endif  // TESTDATA_TILE_FILES_H_
