// The one grammar of target names, parsed here and nowhere else:
//
//   target  := FAMILY (':' ARCH)? ('{' option (',' option)* '}')?
//   option  := KEY '=' VALUE
//   FAMILY, ARCH, KEY, VALUE := [A-Za-z0-9_.]+
//
// "cpu", "cuda" (the family's default architecture), "cuda:sm_80",
// "cuda:sm_90a{gemm=wgmma}". What the family, architecture and options mean
// is each target family's business (TargetRegistry::Resolve checks them);
// this file only reads and prints the spelling.
#ifndef TARGETS_TARGET_NAME_H_
#define TARGETS_TARGET_NAME_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace tile_ir::targets {

struct TargetName {
  std::string family;  // "cuda"
  std::string arch;    // "sm_90a"; empty when the name gives none
  // (key, value), sorted by key, each key once.
  std::vector<std::pair<std::string, std::string>> options;

  // The value of option `key`, or "" when the name does not give it.
  std::string Option(std::string_view key) const;
  // "family[:arch][{k=v,...}]" with the options sorted: the canonical spelling.
  std::string ToString() const;

  friend bool operator==(const TargetName&, const TargetName&) = default;
};

// InvalidArgument naming the column and what was expected, e.g.
// "target 'cuda:{gemm}': at column 6, expected an architecture after ':'".
absl::StatusOr<TargetName> ParseTargetName(std::string_view text);

}  // namespace tile_ir::targets

#endif  // TARGETS_TARGET_NAME_H_
