#include "fuzz/fuzz_checks.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/statusor.h"
#include "frontends/text/parser.h"
#include "tile_ir/printer.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

namespace tile_ir::fuzz {
namespace {

// `read` is the module read back from one form of `module`, whose canonical text is `text`.
void CheckReadBack(std::string_view form, const absl::StatusOr<Module>& read,
                   const std::string& text) {
  if (!read.ok()) {
    Fail(std::string(form) + " of a verified module does not read back",
         std::string(read.status().message()) + "\n--- module:\n" + text);
  }
  if (absl::Status valid = Verify(*read); !valid.ok()) {
    Fail(std::string(form) + " of a verified module reads back as a module that does not verify",
         std::string(valid.message()) + "\n--- module:\n" + text);
  }
  const std::string again = Print(*read);
  if (again != text) {
    Fail(std::string(form) + " of a verified module reads back as another module",
         "--- module:\n" + text + "--- read back:\n" + again);
  }
}

}  // namespace

void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz check failed: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

void CheckRoundTrips(const Module& module) {
  const std::string text = Print(module);
  CheckReadBack("the text form", text::ParseModule(text, "printed.tile"), text);
  CheckReadBack("the .tilepb form", ReadModuleProto(WriteModuleProto(module), "written.tilepb"),
                text);
  CheckReadBack("the JSON form", ReadModuleJson(WriteModuleJson(module), "written.json"), text);
}

}  // namespace tile_ir::fuzz
