// The code-hash cache: build ids read from the loaded objects' notes, one file per identity.
#include "tools/tile_matrix/code_hash_cache.h"

#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/jit/disk_cache.h"
#include "runtime/jit/sha256.h"

namespace tile_ir::matrix {
namespace {

constexpr char kHeader[] = "tile-matrix code hashes v1";

// The GNU build id among an object's notes, as hex; empty when it has none.
std::string BuildIdOf(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info.dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const size_t align = segment.p_align == 8 ? 8 : 4;
    auto padded = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
    const char* note = reinterpret_cast<const char*>(info.dlpi_addr + segment.p_vaddr);
    const char* end = note + segment.p_memsz;
    while (note + sizeof(ElfW(Nhdr)) <= end) {
      const auto* header = reinterpret_cast<const ElfW(Nhdr)*>(note);
      const char* name = note + sizeof(ElfW(Nhdr));
      const char* desc = name + padded(header->n_namesz);
      if (desc + header->n_descsz > end) break;
      if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        std::string hex;
        for (uint32_t b = 0; b < header->n_descsz; ++b) {
          absl::StrAppend(&hex, absl::Hex(static_cast<unsigned char>(desc[b]), absl::kZeroPad2));
        }
        return hex;
      }
      note = desc + padded(header->n_descsz);
    }
  }
  return "";
}

}  // namespace

std::optional<std::string> LoadedCodeIdentity() {
  struct Walk {
    std::string ids;
    bool complete = true;
  } walk;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        Walk& walk = *static_cast<Walk*>(data);
        std::string id = BuildIdOf(*info);
        if (id.empty()) walk.complete = false;
        absl::StrAppend(&walk.ids, id, " ", info->dlpi_name, "\n");
        return 0;
      },
      &walk);
  if (!walk.complete) return std::nullopt;
  return walk.ids;
}

std::optional<std::string> CodeHashCacheDirectory() {
  std::optional<std::string> root = runtime::jit::CacheDirectoryFromEnvironment();
  if (!root) return std::nullopt;
  return absl::StrCat(*root, "/tile-matrix");
}

CodeHashCache::CodeHashCache(std::string directory, std::string identity)
    : directory_(std::move(directory)), identity_(std::move(identity)) {
  path_ = absl::StrCat(directory_, "/code-hashes-",
                       runtime::jit::Sha256Hex(identity_).substr(0, 16), ".tsv");
  std::ifstream file(path_);
  std::string line;
  // The identity is written out in full: a file of another build whose name collides is ignored.
  std::string expected = absl::StrCat(kHeader, "\n", identity_);
  std::string head;
  while (std::getline(file, line) && !line.empty()) absl::StrAppend(&head, line, "\n");
  if (head != expected) return;
  while (std::getline(file, line)) {
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields.size() != 5) return;
    hashes_[{fields[0], fields[1]}] = {fields[2], fields[3], fields[4]};
  }
}

std::optional<std::string> CodeHashCache::Find(const std::string& op, const std::string& target,
                                               const std::string& ir_hash,
                                               const std::string& lowering_hash) const {
  auto found = hashes_.find({op, target});
  if (found == hashes_.end() || found->second.ir_hash != ir_hash ||
      found->second.lowering_hash != lowering_hash) {
    return std::nullopt;
  }
  return found->second.code_hash;
}

void CodeHashCache::Store(const std::string& op, const std::string& target, CachedCodeHash hash) {
  hashes_[{op, target}] = std::move(hash);
  changed_ = true;
}

void CodeHashCache::Save() {
  if (!changed_) return;
  ::mkdir(directory_.c_str(), 0700);
  std::string text = absl::StrCat(kHeader, "\n", identity_, "\n");
  for (const auto& [cell, hash] : hashes_) {
    absl::StrAppend(&text, cell.first, "\t", cell.second, "\t", hash.ir_hash, "\t",
                    hash.lowering_hash, "\t", hash.code_hash, "\n");
  }
  std::string temp = absl::StrCat(path_, ".", getpid(), ".tmp");
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    file << text;
    if (!file.flush()) {
      std::remove(temp.c_str());
      return;
    }
  }
  if (std::rename(temp.c_str(), path_.c_str()) != 0) std::remove(temp.c_str());
  changed_ = false;
}

}  // namespace tile_ir::matrix
