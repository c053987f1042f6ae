// hipcc as a subprocess: a temporary folder with the source and the device
// library, posix_spawn with the output captured in a file, then cleanup.
#include "targets/hip/hipcc_compiler.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "targets/hip/hip_device_headers.h"
#include "targets/hip/hip_target_info.h"

extern char** environ;

namespace tile_ir::hip {
namespace {

namespace fs = std::filesystem;

bool IsExecutable(const fs::path& path) { return access(path.c_str(), X_OK) == 0; }

// A temporary folder removed when this goes out of scope.
class TempDir {
 public:
  static absl::StatusOr<TempDir> Create() {
    std::error_code error;
    fs::path base = fs::temp_directory_path(error);
    if (error) base = "/tmp";
    std::string pattern = (base / "tile-hipcc-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError(
          absl::StrCat("cannot create a temporary folder under ", base.string(), " for hipcc"));
    }
    return TempDir(pattern);
  }
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  explicit TempDir(fs::path path) : path_(std::move(path)) {}
  fs::path path_;
};

absl::Status WriteFile(const fs::path& path, std::string_view contents) {
  std::ofstream out(path, std::ios::binary);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// hipcc asks rocm_agent_enumerator for the machine's GPUs even when told the
// architecture; without one, that prints a Python traceback worth nothing.
std::string WithoutEnumeratorNoise(const std::string& log) {
  std::vector<std::string> kept;
  bool in_traceback = false;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (absl::StartsWith(line, "Traceback (most recent call last)")) {
      in_traceback = true;
      continue;
    }
    if (in_traceback) {
      // The traceback ends with the exception's own line ("FileNotFoundError: ...").
      if (!absl::StartsWith(line, " ")) in_traceback = false;
      continue;
    }
    kept.push_back(std::string(line));
  }
  while (!kept.empty() && kept.back().empty()) kept.pop_back();
  return absl::StrJoin(kept, "\n");
}

// Runs `argv` with stdout and stderr into `log`; its exit status, or an error
// when it could not run.
absl::StatusOr<int> Run(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot run ", argv[0], ": errno ", spawned));
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return absl::InternalError("waiting for hipcc failed");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// "HIP version: ...; <clang version line>", asked once per process.
std::string CompilerVersion(const std::string& hipcc, const fs::path& folder) {
  static const std::string* version = [&] {
    fs::path log = folder / "version.log";
    absl::StatusOr<int> exit = Run({hipcc, "--version"}, log);
    std::vector<std::string> parts;
    if (exit.ok() && *exit == 0) {
      for (absl::string_view line : absl::StrSplit(ReadFile(log), '\n')) {
        if (absl::StartsWith(line, "HIP version") || absl::StrContains(line, "clang version")) {
          parts.push_back(std::string(line));
        }
      }
    }
    return new std::string(parts.empty() ? "hipcc (version unknown)" : absl::StrJoin(parts, "; "));
  }();
  return *version;
}

}  // namespace

absl::StatusOr<std::string> FindHipcc() {
  if (const char* env = std::getenv("HIPCC"); env != nullptr && *env != '\0') {
    if (IsExecutable(env)) return std::string(env);
    return absl::FailedPreconditionError(
        absl::StrCat("$HIPCC is '", env, "', which is not an executable file"));
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    for (absl::string_view dir : absl::StrSplit(path, ':')) {
      if (dir.empty()) continue;
      fs::path candidate = fs::path(std::string(dir)) / "hipcc";
      if (IsExecutable(candidate)) return candidate.string();
    }
  }
  for (const char* fallback : {"/usr/bin/hipcc", "/opt/rocm/bin/hipcc"}) {
    if (IsExecutable(fallback)) return std::string(fallback);
  }
  return absl::FailedPreconditionError(
      "hipcc not found ($HIPCC, $PATH, /opt/rocm/bin); install Debian's packages `hipcc "
      "libamdhip64-dev rocm-device-libs` (scripts/setup.sh does) to compile HIP code");
}

absl::Status HipccAvailable() { return FindHipcc().status(); }

absl::StatusOr<HipCodeObject> CompileHipCodeObject(const std::string& source,
                                                   const std::string& arch) {
  if (absl::Status known = CheckHipArch(arch); !known.ok()) return known;
  absl::StatusOr<std::string> hipcc = FindHipcc();
  if (!hipcc.ok()) return hipcc.status();
  absl::StatusOr<TempDir> folder = TempDir::Create();
  if (!folder.ok()) return folder.status();
  const fs::path& dir = folder->path();
  for (const c_source::EmbeddedFile& header : HipDeviceHeaders()) {
    const fs::path path = dir / std::string(header.name);
    std::error_code error;
    fs::create_directories(path.parent_path(), error);
    if (absl::Status written = WriteFile(path, header.source); !written.ok()) {
      return written;
    }
  }
  fs::path input = dir / "kernel.hip";
  fs::path output = dir / "kernel.co";
  fs::path log = dir / "hipcc.log";
  if (absl::Status written = WriteFile(input, source); !written.ok()) return written;
  std::vector<std::string> argv = {*hipcc,        absl::StrCat("--offload-arch=", arch),
                                   "--genco",     "-O3",
                                   "-I",          dir.string(),
                                   "-o",          output.string(),
                                   input.string()};
  absl::StatusOr<int> exit = Run(argv, log);
  if (!exit.ok()) return exit.status();
  std::string diagnostics = WithoutEnumeratorNoise(ReadFile(log));
  if (*exit != 0 || !fs::exists(output)) {
    return absl::InternalError(
        absl::StrCat("hipcc failed for ", arch, " (exit status ", *exit, "):\n", diagnostics));
  }
  HipCodeObject object;
  object.bytes = ReadFile(output);
  object.compiler_version = CompilerVersion(*hipcc, dir);
  if (object.bytes.empty()) return absl::InternalError("hipcc wrote an empty code object");
  return object;
}

}  // namespace tile_ir::hip
