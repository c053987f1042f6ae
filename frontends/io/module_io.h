// Reading and writing modules in any of the three forms (text .tile, protobuf
// .tilepb, JSON .json), chosen by file extension or by name. Tools and the
// runtime load modules through here so every entry point treats input alike.
#ifndef FRONTENDS_IO_MODULE_IO_H_
#define FRONTENDS_IO_MODULE_IO_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tile_ir/module.h"
#include "tile_ir/printer.h"

namespace tile_ir::io {

enum class ModuleFormat { kText, kProto, kJson };

// "tile"/"text", "tilepb"/"proto", "json"; nullopt otherwise.
std::optional<ModuleFormat> ParseModuleFormat(std::string_view name);
// From a path's extension: .tile, .tilepb, .json.
std::optional<ModuleFormat> ModuleFormatFromPath(std::string_view path);

// Decodes `contents`; every error message starts with source_name.
absl::StatusOr<Module> ReadModule(std::string_view contents, ModuleFormat format,
                                  std::string_view source_name);
std::string WriteModule(const Module& module, ModuleFormat format,
                        const PrintOptions& options = {});

// Whole-file helpers; errors name the path and the reason (errno text). ReadFile reads a
// regular file of at most kMaxModuleBytes (bounded_file.h): a FIFO, a device or a directory is
// refused, naming what it is.
absl::StatusOr<std::string> ReadFile(const std::string& path);
absl::Status WriteFile(const std::string& path, std::string_view contents);
// Reads the file, picking the format from its extension.
absl::StatusOr<Module> ReadModuleFile(const std::string& path);

}  // namespace tile_ir::io

#endif  // FRONTENDS_IO_MODULE_IO_H_
