// tile-cache: lists, verifies and clears the JIT's disk cache
// (runtime/jit/disk_cache.h), at $TILE_CACHE_DIR or --cache-dir.
#include <iostream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "runtime/jit/disk_cache.h"
#include "tools/common/cli.h"

namespace tile_ir::tools {
namespace {

using runtime::jit::DiskCache;
using runtime::jit::EntryInfo;

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

int Main(int argc, char** argv) {
  cli::ArgParser parser(
      "tile-cache", "ls | verify | clear [--older-than=DURATION] [--cache-dir=DIR]",
      "Lists, verifies or clears the JIT's kernel cache: $TILE_CACHE_DIR, else\n"
      "$XDG_CACHE_HOME/tile, else ~/.cache/tile.\n"
      "  ls      each entry's key, kind, kernel, target, arch, size and age\n"
      "  verify  re-checks every entry's checksum and that its context hashes to its key;\n"
      "          exit 1 when any entry is bad (the runtime refuses and rebuilds those)\n"
      "  clear   removes every entry, or those older than --older-than (e.g. 7d, 12h, 30m)");
  parser.Add({"cache-dir", "DIR", "the cache folder (default: from the environment)"});
  parser.Add({"older-than", "DURATION", "clear only entries last written before now - DURATION"});
  parser.Add({"help", "", "show this help"});
  if (absl::Status status = parser.Parse(argc, argv); !status.ok()) {
    std::cerr << "tile-cache: error: " << status.message() << "\n";
    return 2;
  }
  if (parser.Has("help")) {
    std::cout << parser.Help();
    return 0;
  }
  if (parser.positional().size() != 1) {
    std::cerr << "tile-cache: error: expected one command: ls, verify or clear (see --help)\n";
    return 2;
  }
  const std::string command = parser.positional()[0];
  std::optional<std::string> directory = parser.Has("cache-dir")
                                             ? std::optional<std::string>(parser.Get("cache-dir"))
                                             : runtime::jit::CacheDirectoryFromEnvironment();
  if (!directory) {
    std::cerr << "tile-cache: error: the cache is disabled (TILE_DISABLE_CACHE=1) or no folder "
                 "is known (no HOME); give --cache-dir\n";
    return 2;
  }
  absl::StatusOr<DiskCache> cache = DiskCache::Open(*directory);
  if (!cache.ok()) {
    std::cerr << "tile-cache: error: " << cache.status().message() << "\n";
    return 1;
  }
  if (command == "ls") {
    std::vector<EntryInfo> entries = cache->List();
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
    std::cout << entries.size() << " entries, " << total << " bytes in " << *directory << "\n";
    return 0;
  }
  if (command == "verify") {
    std::vector<EntryInfo> entries = cache->Verify();
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
  if (command == "clear") {
    std::optional<absl::Duration> older_than;
    if (parser.Has("older-than")) {
      absl::Duration duration;
      std::string text = parser.Get("older-than");
      // absl parses "12h", "30m", "90s"; days are ours.
      if (!text.empty() && text.back() == 'd' && text.size() > 1) {
        int64_t days = 0;
        if (!absl::SimpleAtoi(text.substr(0, text.size() - 1), &days)) {
          std::cerr << "tile-cache: error: --older-than: bad duration '" << text << "'\n";
          return 2;
        }
        duration = absl::Hours(24 * days);
      } else if (!absl::ParseDuration(text, &duration)) {
        std::cerr << "tile-cache: error: --older-than: bad duration '" << text
                  << "' (e.g. 7d, 12h, 30m)\n";
        return 2;
      }
      older_than = duration;
    }
    absl::StatusOr<int> removed = cache->Clear(older_than);
    if (!removed.ok()) {
      std::cerr << "tile-cache: error: " << removed.status().message() << "\n";
      return 1;
    }
    std::cout << "removed " << *removed << " entries from " << *directory << "\n";
    return 0;
  }
  std::cerr << "tile-cache: error: unknown command '" << command
            << "': expected ls, verify or clear\n";
  return 2;
}

}  // namespace
}  // namespace tile_ir::tools

int main(int argc, char** argv) { return tile_ir::tools::Main(argc, argv); }
