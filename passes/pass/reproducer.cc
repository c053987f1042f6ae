// Writing and reading the header line of crash reproducers.
#include "passes/pass/reproducer.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {

std::string FormatReproducer(const Module& module, std::string_view pipeline_text,
                             std::string_view target) {
  PrintOptions options;
  options.print_locs = true;
  std::string text =
      absl::StrCat(std::string(kReproducerPrefix), std::string(pipeline_text), "'\n");
  if (!target.empty()) {
    absl::StrAppend(&text, std::string(kReproducerTargetPrefix), std::string(target), "\n");
  }
  return text + Print(module, options);
}

absl::Status WriteReproducer(const std::string& path, const Module& module,
                             std::string_view pipeline_text, std::string_view target) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file << FormatReproducer(module, pipeline_text, target);
  if (file) file.close();
  if (!file) {
    return absl::UnavailableError(
        absl::StrCat("could not write reproducer '", path, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadReproducerPipeline(std::string_view file_text) {
  std::string_view line = file_text.substr(0, file_text.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.substr(0, kReproducerPrefix.size()) != kReproducerPrefix ||
      line.size() == kReproducerPrefix.size() || line.back() != '\'') {
    return absl::InvalidArgumentError("not a tile-opt reproducer: its first line must be " +
                                      std::string(kReproducerPrefix) + "...'");
  }
  line.remove_prefix(kReproducerPrefix.size());
  line.remove_suffix(1);
  return std::string(line);
}

std::string ReadReproducerTarget(std::string_view file_text) {
  size_t end = file_text.find('\n');
  if (end == std::string_view::npos) return "";
  std::string_view line = file_text.substr(end + 1);
  line = line.substr(0, line.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.substr(0, kReproducerTargetPrefix.size()) != kReproducerTargetPrefix) return "";
  return std::string(line.substr(kReproducerTargetPrefix.size()));
}

}  // namespace tile_ir::passes
