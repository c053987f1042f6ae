// Structure-aware mutation of tile_ir.v1.Module messages, for the fuzz targets
// that take .tilepb bytes: a few edits through protobuf reflection (numbers
// nudged or set to edge values, enums set to another value, strings and bools
// changed, repeated messages such as statements dropped, duplicated or
// swapped), so that most mutants still read and many still verify, and the
// verifier and the pipelines see interesting IR rather than garbage.
#ifndef FUZZ_MODULE_MUTATOR_H_
#define FUZZ_MODULE_MUTATOR_H_

#include <random>

#include "google/protobuf/message.h"

namespace tile_ir::fuzz {

// Applies one random edit to `message` and its submessages, or in one call
// of four between two and four.
void MutateMessage(google::protobuf::Message& message, std::mt19937_64& rng);

}  // namespace tile_ir::fuzz

#endif  // FUZZ_MODULE_MUTATOR_H_
