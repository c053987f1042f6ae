// Writes every operator's kernel as canonical text to <dir>/<name>.tile, the
// files //ops:op_suite_test keeps in sync with the C++ definitions.
//   bazel run //ops:export_ops            (into the source tree)
//   bazel-bin/ops/export_ops OUTPUT_DIR
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "ops/op_suite.h"

int main(int argc, char** argv) {
  std::string dir;
  if (argc == 2 && std::string(argv[1]) != "--help") {
    dir = argv[1];
  } else if (argc == 1 && std::getenv("BUILD_WORKSPACE_DIRECTORY") != nullptr) {
    dir = std::string(std::getenv("BUILD_WORKSPACE_DIRECTORY")) + "/ops";
  } else {
    std::fprintf(stderr,
                 "usage: export_ops [OUTPUT_DIR]\n"
                 "Writes each operator's kernel to OUTPUT_DIR/<name>.tile; under `bazel run`\n"
                 "OUTPUT_DIR defaults to ops/ of the workspace.\n");
    return argc == 2 ? 0 : 2;
  }
  int failures = 0;
  for (const tile_ir::ops::OpCase& op : tile_ir::ops::OperatorSuite()) {
    absl::StatusOr<std::string> text = tile_ir::ops::OpText(op);
    if (!text.ok()) {
      std::fprintf(stderr, "export_ops: %s: %s\n", op.name.c_str(),
                   std::string(text.status().message()).c_str());
      ++failures;
      continue;
    }
    std::string path = dir + "/" + op.name + ".tile";
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << *text;
    out.close();
    if (!out) {
      std::fprintf(stderr, "export_ops: cannot write %s\n", path.c_str());
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
