// The host CPU as LLVM sees it: its name and SIMD features, which the CPU
// target compiles for and which cache keys and reports record.
#ifndef TARGETS_CPU_HOST_CPU_H_
#define TARGETS_CPU_HOST_CPU_H_

#include <cstdint>
#include <string>
#include <vector>

namespace tile_ir::cpu {

// LLVM's name for the host CPU ("icelake-server", "znver3", ...).
std::string HostCpuName();

// The host's features in LLVM's spelling, sorted, each with its sign
// ("+avx2", "-avx512fp16", ...): the same list every call, so it can key a cache.
std::vector<std::string> HostCpuFeatureList();

// HostCpuFeatureList() joined with commas, as a target-features string.
std::string HostCpuFeatures();

// The widest SIMD register in bytes: 64 with AVX-512F, 32 with AVX2, else 16.
int HostVectorBytes();

// The size of one core's L2 cache in bytes, as the C library reports it (1 MiB where it
// does not: a VM may hide it).
int64_t HostL2CacheBytes();

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_HOST_CPU_H_
