// The target families a binary links, and the resolution of a target name to
// a Target object: parsed once (target_name.h), checked against the family's
// architectures and options, made once and shared.
//
// LinkedTargets() is the one list: targets/linked_targets.cc names every
// family. It is an explicit list, not static initializers, so a binary holds
// exactly what it names; the GPU machine's binaries link
// //targets:linked_targets_without_llvm, the same list less the CPU, whose
// code generator is LLVM.
#ifndef TARGETS_TARGET_REGISTRY_H_
#define TARGETS_TARGET_REGISTRY_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "targets/target.h"
#include "targets/target_name.h"

namespace tile_ir::targets {

class TargetRegistry {
 public:
  // Adds a family and its intrinsics. A family name given twice is a bug in
  // the list and aborts.
  void Add(std::unique_ptr<TargetFamily> family);

  // The target `text` names. Errors: the grammar's, an unknown family
  // (listing the linked ones), an unknown architecture or option or value
  // (listing the accepted ones), and a replaced spelling (naming the new one).
  absl::StatusOr<std::shared_ptr<const Target>> Resolve(std::string_view text) const;
  absl::StatusOr<std::shared_ptr<const Target>> Resolve(const TargetName& name) const;

  // The linked family names, sorted.
  std::vector<std::string> FamilyNames() const;
  const TargetFamily* FindFamily(std::string_view name) const;
  // Every accepted spelling, for --help: "cuda[:sm_80|sm_90a][{gemm=auto|wgmma|mma}]: CUDA ...".
  std::string Describe() const;

 private:
  absl::StatusOr<TargetName> Canonical(const TargetName& name, const TargetFamily& family) const;

  std::map<std::string, std::unique_ptr<TargetFamily>, std::less<>> families_;
  mutable std::mutex mutex_;
  // Made once per canonical name.
  mutable std::map<std::string, std::shared_ptr<const Target>, std::less<>> made_;
};

// The families this binary links (see the top of this file). Built on first
// use, thread-safe, never destroyed.
const TargetRegistry& LinkedTargets();

}  // namespace tile_ir::targets

#endif  // TARGETS_TARGET_REGISTRY_H_
