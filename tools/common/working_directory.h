// `bazel run` starts a tool inside its runfiles tree; relative paths on the
// command line mean the user's directory, which Bazel passes in
// BUILD_WORKING_DIRECTORY.
#ifndef TOOLS_COMMON_WORKING_DIRECTORY_H_
#define TOOLS_COMMON_WORKING_DIRECTORY_H_

namespace tile_ir::cli {

// chdir to $BUILD_WORKING_DIRECTORY when set; otherwise nothing.
void EnterUserWorkingDirectory();

}  // namespace tile_ir::cli

#endif  // TOOLS_COMMON_WORKING_DIRECTORY_H_
