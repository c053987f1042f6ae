// libFuzzer's custom mutator for the fuzz targets whose input is .tilepb
// bytes: inputs that parse as a tile_ir.v1.Module are mutated through the
// message (module_mutator.h) and written back; the rest, and one mutation in
// eight, go through libFuzzer's byte-level mutations, so the wire format
// itself stays fuzzed too.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "fuzz/module_mutator.h"
#include "tile_ir/proto/tile_ir.pb.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  tile_ir::v1::Module module;
  if (rng() % 8 == 0 || !module.ParseFromArray(data, static_cast<int>(size))) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  tile_ir::fuzz::MutateMessage(module, rng);
  std::string bytes;
  if (!module.SerializeToString(&bytes) || bytes.size() > max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}
