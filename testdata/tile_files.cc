#include "testdata/tile_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"

namespace tile_ir::testdata {

std::vector<std::string> AllTileFiles() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           "testdata", std::filesystem::directory_options::follow_directory_symlink)) {
    if (entry.is_regular_file() && entry.path().extension() == ".tile") {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::string ReadTextFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

std::vector<std::string> SplitModules(const std::string& text) {
  std::vector<std::string> chunks(1);
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StripAsciiWhitespace(line) == "// -----") {
      chunks.emplace_back();
    } else {
      chunks.back().append(line.data(), line.size());
      chunks.back().push_back('\n');
    }
  }
  return chunks;
}

}  // namespace tile_ir::testdata
