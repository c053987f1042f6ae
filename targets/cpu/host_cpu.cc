// Host CPU queries through LLVM's Host.h.
#include "targets/cpu/host_cpu.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_join.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

namespace tile_ir::cpu {
namespace {

llvm::StringMap<bool> HostFeatureMap() {
  llvm::StringMap<bool> features;
  // On failure (an unknown host) the map stays empty: LLVM then uses the CPU
  // name's defaults, which is still correct code.
  llvm::sys::getHostCPUFeatures(features);
  return features;
}

}  // namespace

std::string HostCpuName() { return llvm::sys::getHostCPUName().str(); }

std::vector<std::string> HostCpuFeatureList() {
  std::vector<std::string> list;
  for (const auto& entry : HostFeatureMap()) {
    list.push_back((entry.getValue() ? "+" : "-") + entry.getKey().str());
  }
  // StringMap iterates in hash order; sorting makes the list a stable key.
  std::sort(list.begin(), list.end(),
            [](const std::string& a, const std::string& b) { return a.substr(1) < b.substr(1); });
  return list;
}

std::string HostCpuFeatures() { return absl::StrJoin(HostCpuFeatureList(), ","); }

int64_t HostL2CacheBytes() {
  const long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return bytes > 0 ? bytes : int64_t{1} << 20;
}

int HostVectorBytes() {
  llvm::StringMap<bool> features = HostFeatureMap();
  auto has = [&](const char* name) { return features.lookup(name); };
  if (has("avx512f")) return 64;
  if (has("avx2")) return 32;
  return 16;
}

}  // namespace tile_ir::cpu
