#include "tile_ir/intrinsics.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace tile_ir {
namespace {

using Result = IntrinsicInfo::ResultType;

struct Registry {
  std::mutex mu;
  std::map<std::string, IntrinsicInfo, std::less<>> by_name;
};

IntrinsicInfo Math(std::string name, int num_args, std::string description) {
  IntrinsicInfo info;
  info.name = std::move(name);
  info.num_args = num_args;
  info.float_only = true;
  info.description = std::move(description);
  return info;
}

Registry& GetRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    std::vector<IntrinsicInfo> builtins = {
        Math("exp", 1, "e raised to x"),
        Math("exp2", 1, "2 raised to x"),
        // exp2 without its care for results below the smallest normal number: GPUs compute
        // it with their exp2 instruction alone, where exp2 adds a range fix-up around it.
        Math("exp2_ftz", 1, "2 raised to x; a result below the smallest normal may be 0"),
        Math("log", 1, "natural logarithm"),
        Math("log2", 1, "base-2 logarithm"),
        Math("sqrt", 1, "square root"),
        Math("rsqrt", 1, "1 / sqrt(x)"),
        Math("tanh", 1, "hyperbolic tangent"),
        Math("erf", 1, "error function"),
        Math("sin", 1, "sine"),
        Math("cos", 1, "cosine"),
        Math("floor", 1, "largest integer not above x"),
        Math("ceil", 1, "smallest integer not below x"),
        Math("pow", 2, "x raised to y"),
        Math("fma", 3, "x * y + z with one rounding"),
    };
    IntrinsicInfo abs;
    abs.name = "abs";
    abs.description = "absolute value";
    builtins.push_back(abs);
    IntrinsicInfo atomic_add;
    atomic_add.name = kAtomicAddAt;
    atomic_add.num_args = 2;
    atomic_add.result = Result::kVoid;
    atomic_add.pure = false;
    atomic_add.updates_first_arg = true;
    atomic_add.description = "adds the value to the element the load names, atomically";
    builtins.push_back(atomic_add);
    IntrinsicInfo atomic_max = atomic_add;
    atomic_max.name = kAtomicMaxAt;
    atomic_max.description = "the larger of the element the load names and the value, atomically";
    builtins.push_back(atomic_max);
    IntrinsicInfo atomic_min = atomic_add;
    atomic_min.name = kAtomicMinAt;
    atomic_min.description =
        "the smaller of the element the load names and the value, atomically";
    builtins.push_back(atomic_min);
    IntrinsicInfo reinterpret;
    reinterpret.name = kReinterpret;
    reinterpret.result = Result::kDeclared;
    reinterpret.description = "the value's bits read as the call's type, of the same width";
    builtins.push_back(reinterpret);
    // Software pipelining (inject-software-pipeline): where a target with asynchronous
    // copies closes a group of copies and waits until at most n groups are in flight.
    IntrinsicInfo async_commit;
    async_commit.name = "async_commit";
    async_commit.num_args = 0;
    async_commit.result = Result::kVoid;
    async_commit.pure = false;
    async_commit.description = "closes the group of asynchronous copies issued since the last one";
    builtins.push_back(async_commit);
    IntrinsicInfo async_wait;
    async_wait.name = "async_wait";
    async_wait.num_args = 1;
    async_wait.result = Result::kVoid;
    async_wait.pure = false;
    async_wait.description =
        "waits until at most n (a literal) groups of asynchronous copies are pending";
    builtins.push_back(async_wait);
    // Lane reductions (thread-binding): a register of another lane of the warp.
    IntrinsicInfo shuffle;
    shuffle.name = kLaneShuffleXor;
    shuffle.num_args = 2;
    shuffle.pure = false;
    shuffle.description = "the value in lane (lane ^ mask) of the warp; every lane takes part";
    builtins.push_back(shuffle);
    for (IntrinsicInfo& info : builtins) r->by_name.emplace(info.name, std::move(info));
    return r;
  }();
  return *registry;
}

}  // namespace

const IntrinsicInfo* FindIntrinsic(std::string_view name) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_name.find(name);
  // Entries are never removed, so the pointer stays valid after unlocking.
  return it == r.by_name.end() ? nullptr : &it->second;
}

bool RegisterIntrinsic(IntrinsicInfo info) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string name = info.name;
  return r.by_name.emplace(std::move(name), std::move(info)).second;
}

std::vector<std::string> IntrinsicNames() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [name, info] : r.by_name) names.push_back(name);
  return names;
}

DataType IntrinsicResultType(const IntrinsicInfo& info, const std::vector<Expr>& args) {
  switch (info.result) {
    case Result::kSameAsFirstArg:
      return args.empty() ? kVoid : args.front()->dtype();
    case Result::kFixed:
      return info.fixed_result;
    case Result::kVoid:
    case Result::kDeclared:
      return kVoid;
  }
  return kVoid;
}

bool IsAtomicUpdate(std::string_view name) {
  return name == kAtomicAddAt || name == kAtomicMaxAt || name == kAtomicMinAt;
}

}  // namespace tile_ir
