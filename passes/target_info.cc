#include "passes/target_info.h"

#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tile_ir::passes {
namespace {

struct TargetRegistry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const TargetInfo>, std::less<>> targets;
};

TargetRegistry& Registry() {
  static TargetRegistry* registry = new TargetRegistry;
  return *registry;
}

}  // namespace

std::string_view TileOpKindName(TileOpKind kind) {
  switch (kind) {
    case TileOpKind::kCopy: return "copy";
    case TileOpKind::kGemm: return "gemm";
    case TileOpKind::kFill: return "fill";
    case TileOpKind::kReduce: return "reduce";
    case TileOpKind::kAtomicAdd: return "atomic_add";
    case TileOpKind::kCumsum: return "cumsum";
  }
  return "?";
}

absl::Status RegisterTarget(std::shared_ptr<const TargetInfo> target) {
  TargetRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string name = target->name();
  if (!r.targets.emplace(name, std::move(target)).second) {
    return absl::AlreadyExistsError(absl::StrCat("target '", name, "' is already registered"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const TargetInfo>> FindTarget(std::string_view name) {
  TargetRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.targets.find(name);
  if (it != r.targets.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& [n, t] : r.targets) names.push_back(n);
  return absl::NotFoundError(absl::StrCat("unknown target '", std::string(name),
                                          "'; registered targets: ",
                                          names.empty() ? "none" : absl::StrJoin(names, ", ")));
}

std::vector<std::string> TargetNames() {
  TargetRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [n, t] : r.targets) names.push_back(n);
  return names;
}

}  // namespace tile_ir::passes
