// tile-cache: lists, verifies and clears the JIT's disk cache
// (runtime/jit/disk_cache.h), at $TILE_CACHE_DIR or --cache-dir, or with
// --remote its remote level (runtime/jit/remote_cache.h) at $TILE_CACHE_URL
// or --remote-url.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "runtime/jit/disk_cache.h"
#include "runtime/jit/remote_cache.h"
#include "tools/common/cli.h"

namespace tile_ir::tools {
namespace {

using runtime::jit::DiskCache;
using runtime::jit::EntryInfo;
using runtime::jit::RemoteCache;

std::string Field(const EntryInfo& entry, const char* name) {
  if (!entry.context) return "?";
  return entry.context->Get(name).value_or("-");
}

std::string Age(absl::Time modified) {
  const int64_t seconds = absl::ToInt64Seconds(absl::Now() - modified);
  if (seconds < 120) return absl::StrCat(seconds, "s");
  if (seconds < 7200) return absl::StrCat(seconds / 60, "m");
  if (seconds < 172800) return absl::StrCat(seconds / 3600, "h");
  return absl::StrCat(seconds / 86400, "d");
}

// A positive age: "7d" (days are ours), or what absl parses ("12h", "30m").
absl::StatusOr<absl::Duration> ParseAge(const std::string& text) {
  absl::Duration duration;
  if (text.size() > 1 && text.back() == 'd') {
    int64_t days = 0;
    if (!absl::SimpleAtoi(text.substr(0, text.size() - 1), &days) || days > 100000 ||
        days < -100000) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad duration '", text, "' (e.g. 7d, 12h, 30m)"));
    }
    duration = absl::Hours(24 * days);
  } else if (!absl::ParseDuration(text, &duration) || duration == absl::InfiniteDuration() ||
             duration == -absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad duration '", text, "' (e.g. 7d, 12h, 30m)"));
  }
  if (duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", text, "' is ", duration < absl::ZeroDuration() ? "negative" : "zero",
                     ": an age must be positive (e.g. 7d, 12h, 30m; without --older-than, "
                     "clear removes every entry)"));
  }
  return duration;
}

cli::ArgParser MakeParser() {
  cli::ArgParser parser(
      "tile-cache",
      "ls | verify | clear [--older-than=DURATION] [--cache-dir=DIR]\n"
      "       tile-cache ls | verify | clear --remote [--remote-url=URL] [--remote-key=FILE]",
      "Lists, verifies or clears the JIT's kernel cache: $TILE_CACHE_DIR, else\n"
      "$XDG_CACHE_HOME/tile, else ~/.cache/tile.\n"
      "  ls      each entry's key, kind, kernel, target, arch, size and age\n"
      "  verify  re-checks that every entry is a file of yours, written under this folder's\n"
      "          key (its HMAC), and that its context hashes to its key; exit 1 when any\n"
      "          entry is bad (the runtime refuses and rebuilds those)\n"
      "  clear   removes every entry, or those older than --older-than (e.g. 7d, 12h, 30m)\n"
      "None creates the folder; each refuses one that is not yours or that others may\n"
      "write (see runtime/README.md).\n"
      "With --remote the same on the remote level ($TILE_CACHE_URL, e.g.\n"
      "redis://127.0.0.1:6379/0): its entries' size and time to live; verify checks each\n"
      "under your remote key file ($TILE_CACHE_REMOTE_KEY, else\n"
      "~/.config/tile/remote-cache.key); clear removes every tile:kernel:* key (entries\n"
      "expire by their time to live, so there is no --older-than).");
  parser.Add({"cache-dir", "DIR", "the cache folder (default: from the environment)"});
  parser.Add({"older-than", "DURATION", "clear only entries last written before now - DURATION"});
  parser.Add({"remote", "", "act on the remote level ($TILE_CACHE_URL) instead of the folder"});
  parser.Add({"remote-url", "URL", "the remote level's URL (implies --remote)"});
  parser.Add({"remote-key", "FILE", "the remote key file (default: from the environment)"});
  parser.Add({"help", "", "show this help"});
  return parser;
}

// What the command line asks, every usage error decided before the cache is opened.
struct CacheRequest {
  std::string command;  // ls, verify or clear
  std::string directory;
  std::optional<absl::Duration> older_than;  // clear's
  std::optional<std::string> remote_url;     // set: act on the remote level
  std::string remote_key;
};

// --remote's URL and key file; nullopt when complete, else the usage error's status (2).
std::optional<int> ParseRemote(const cli::ArgParser& parser, CacheRequest& request) {
  request.remote_url = parser.Has("remote-url")
                           ? std::optional<std::string>(parser.Get("remote-url"))
                           : runtime::jit::RemoteCacheUrlFromEnvironment();
  if (!request.remote_url) {
    std::cerr << "tile-cache: error: --remote needs $TILE_CACHE_URL or --remote-url\n";
    return 2;
  }
  std::optional<std::string> key = parser.Has("remote-key")
                                       ? std::optional<std::string>(parser.Get("remote-key"))
                                       : runtime::jit::RemoteKeyPathFromEnvironment();
  if (!key) {
    std::cerr << "tile-cache: error: no remote key file is known (no HOME); give --remote-key\n";
    return 2;
  }
  request.remote_key = *key;
  if (parser.Has("older-than")) {
    std::cerr << "tile-cache: error: --older-than is for the folder; remote entries expire by "
                 "their time to live\n";
    return 2;
  }
  return std::nullopt;
}

// The command, the folder and --older-than; nullopt when `request` is complete, else the exit
// status of the usage error reported (2).
std::optional<int> ParseRequest(const cli::ArgParser& parser, CacheRequest& request) {
  if (parser.positional().size() != 1) {
    std::cerr << "tile-cache: error: expected one command: ls, verify or clear (see --help)\n";
    return 2;
  }
  request.command = parser.positional()[0];
  const std::string& command = request.command;
  if (command != "ls" && command != "verify" && command != "clear") {
    std::cerr << "tile-cache: error: unknown command '" << command
              << "': expected ls, verify or clear\n";
    return 2;
  }
  if (parser.Has("remote") || parser.Has("remote-url")) return ParseRemote(parser, request);
  std::optional<std::string> directory = parser.Has("cache-dir")
                                             ? std::optional<std::string>(parser.Get("cache-dir"))
                                             : runtime::jit::CacheDirectoryFromEnvironment();
  if (!directory) {
    std::cerr << "tile-cache: error: the cache is disabled (TILE_DISABLE_CACHE=1) or no folder "
                 "is known (no HOME); give --cache-dir\n";
    return 2;
  }
  request.directory = *directory;
  if (!parser.Has("older-than")) return std::nullopt;
  if (command != "clear") {
    std::cerr << "tile-cache: error: --older-than is for clear, not " << command << "\n";
    return 2;
  }
  absl::StatusOr<absl::Duration> duration = ParseAge(parser.Get("older-than"));
  if (!duration.ok()) {
    std::cerr << "tile-cache: error: --older-than: " << duration.status().message() << "\n";
    return 2;
  }
  request.older_than = *duration;
  return std::nullopt;
}

// ls: a line per entry and the total.
int ListEntries(const DiskCache& cache, const std::string& directory) {
  std::vector<EntryInfo> entries = cache.List();
  std::cout << absl::StrFormat("%-32s  %-8s  %-20s  %-6s  %-16s  %9s  %5s\n", "KEY", "KIND",
                               "KERNEL", "TARGET", "ARCH", "SIZE", "AGE");
  int64_t total = 0;
  for (const EntryInfo& entry : entries) {
    total += entry.size_bytes;
    std::cout << absl::StrFormat("%-32s  %-8s  %-20s  %-6s  %-16s  %9d  %5s\n", entry.key,
                                 Field(entry, "kind"), Field(entry, "kernel"),
                                 Field(entry, "target"), Field(entry, "arch"), entry.size_bytes,
                                 Age(entry.modified));
  }
  std::cout << entries.size() << " entries, " << total << " bytes in " << directory << "\n";
  return 0;
}

// verify: each bad entry with its problems; 1 when there is one.
int VerifyEntries(const DiskCache& cache) {
  std::vector<EntryInfo> entries = cache.Verify();
  int bad = 0;
  for (const EntryInfo& entry : entries) {
    if (entry.problems.empty()) continue;
    ++bad;
    std::cout << "BAD " << entry.path << " (kernel " << Field(entry, "kernel") << ")\n";
    for (const std::string& problem : entry.problems) std::cout << "  " << problem << "\n";
  }
  std::cout << entries.size() << " entries checked, " << bad << " bad"
            << (bad ? " (the runtime refuses and rebuilds them; tile-cache clear removes all)"
                    : ": the cache is consistent")
            << "\n";
  return bad ? 1 : 0;
}

// clear: every entry, or those older than --older-than.
int ClearEntries(DiskCache& cache, const CacheRequest& request) {
  absl::StatusOr<int> removed = cache.Clear(request.older_than);
  if (!removed.ok()) {
    std::cerr << "tile-cache: error: " << removed.status().message() << "\n";
    return 1;
  }
  std::cout << "removed " << *removed << " entries from " << request.directory << "\n";
  return 0;
}

std::string TimeToLive(const EntryInfo& entry) {
  if (!entry.time_to_live) return "never";
  const int64_t seconds = absl::ToInt64Seconds(*entry.time_to_live);
  if (seconds < 120) return absl::StrCat(seconds, "s");
  if (seconds < 7200) return absl::StrCat(seconds / 60, "m");
  if (seconds < 172800) return absl::StrCat(seconds / 3600, "h");
  return absl::StrCat(seconds / 86400, "d");
}

// ls, verify and clear on the remote level; 1 on a server error.
int RemoteMain(const CacheRequest& request) {
  absl::StatusOr<std::unique_ptr<RemoteCache>> remote = RemoteCache::Open(
      *request.remote_url, request.remote_key, /*create_key=*/false,
      [](const std::string& message) { std::cerr << "tile-cache: warning: " << message << "\n"; });
  if (!remote.ok()) {
    std::cerr << "tile-cache: error: " << remote.status().message() << "\n";
    return 1;
  }
  const std::string& name = (*remote)->name();
  if (request.command == "clear") {
    absl::StatusOr<int64_t> removed = (*remote)->Clear();
    if (!removed.ok()) {
      std::cerr << "tile-cache: error: " << removed.status().message() << "\n";
      return 1;
    }
    std::cout << "removed " << *removed << " entries from " << name << "\n";
    return 0;
  }
  const bool verify = request.command == "verify";
  absl::StatusOr<std::vector<EntryInfo>> entries = verify ? (*remote)->Verify() : (*remote)->List();
  if (!entries.ok()) {
    std::cerr << "tile-cache: error: " << entries.status().message() << "\n";
    return 1;
  }
  if (verify) {
    int bad = 0;
    for (const EntryInfo& entry : *entries) {
      if (entry.problems.empty()) continue;
      ++bad;
      std::cout << "BAD " << entry.path << " (kernel " << Field(entry, "kernel") << ")\n";
      for (const std::string& problem : entry.problems) std::cout << "  " << problem << "\n";
    }
    std::cout << entries->size() << " entries checked on " << name << ", " << bad << " bad"
              << (bad ? " (the runtime refuses them and compiles; tile-cache clear --remote "
                        "removes all)"
                      : ": the remote cache is consistent")
              << "\n";
    return bad ? 1 : 0;
  }
  std::cout << absl::StrFormat("%-32s  %-8s  %-20s  %-6s  %-16s  %9s  %5s\n", "KEY", "KIND",
                               "KERNEL", "TARGET", "ARCH", "SIZE", "TTL");
  int64_t total = 0;
  for (const EntryInfo& entry : *entries) {
    total += entry.size_bytes;
    std::cout << absl::StrFormat("%-32s  %-8s  %-20s  %-6s  %-16s  %9d  %5s\n", entry.key,
                                 Field(entry, "kind"), Field(entry, "kernel"),
                                 Field(entry, "target"), Field(entry, "arch"), entry.size_bytes,
                                 TimeToLive(entry));
  }
  std::cout << entries->size() << " entries, " << total << " bytes on " << name << "\n";
  return 0;
}

int Main(int argc, char** argv) {
  cli::ArgParser parser = MakeParser();
  if (absl::Status status = parser.Parse(argc, argv); !status.ok()) {
    std::cerr << "tile-cache: error: " << status.message() << "\n";
    return 2;
  }
  if (parser.Has("help")) {
    std::cout << parser.Help();
    return 0;
  }
  CacheRequest request;
  if (std::optional<int> done = ParseRequest(parser, request)) return *done;
  if (request.remote_url) return RemoteMain(request);
  absl::StatusOr<DiskCache> cache = DiskCache::OpenExisting(request.directory);
  if (!cache.ok()) {
    std::cerr << "tile-cache: error: " << cache.status().message() << "\n";
    return 1;
  }
  if (request.command == "ls") return ListEntries(*cache, request.directory);
  if (request.command == "verify") return VerifyEntries(*cache);
  return ClearEntries(*cache, request);
}

}  // namespace
}  // namespace tile_ir::tools

int main(int argc, char** argv) { return tile_ir::tools::Main(argc, argv); }
