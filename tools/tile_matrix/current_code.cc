// Hashing the suite and the probers' targets; judging records against them.
#include "tools/tile_matrix/current_code.h"

#include <algorithm>
#include <set>
#include <utility>

#include "tools/tile_matrix/code_hash_cache.h"

namespace tile_ir::matrix {

// The code hashes not computed yet: the probers' targets, the suite, and the cache of this build.
class CodeGeneration {
 public:
  CodeGeneration(const std::vector<ops::OpCase>& suite, Probers probers,
                 std::optional<CodeHashCache> cache)
      : suite_(suite), probers_(std::move(probers)), cache_(std::move(cache)) {
    for (const auto& prober : probers_) {
      for (TargetSpec& target : prober->Targets()) {
        std::string name = target.target;
        columns_.emplace(std::move(name), Column{prober.get(), std::move(target), nullptr, false});
      }
    }
  }
  ~CodeGeneration() {
    if (cache_) cache_->Save();
  }

  std::optional<std::string> Generate(const std::string& op_name, const std::string& target,
                                      const CurrentCode& code) {
    auto column = columns_.find(target);
    if (column == columns_.end() || column->second.spec.code_follows_host) return std::nullopt;
    const ops::OpCase* op = nullptr;
    for (const ops::OpCase& each : suite_) {
      if (each.name == op_name) op = &each;
    }
    if (op == nullptr) return std::nullopt;
    const std::string& ir_hash = code.ir_hash.at(op_name);
    const std::string& lowering_hash = code.lowering_hash.at(target);
    if (cache_) {
      if (std::optional<std::string> cached = cache_->Find(op_name, target, ir_hash, lowering_hash))
        return cached;
    }
    Column& c = column->second;
    if (!c.asked_info) {
      c.info = c.prober->Info(c.spec);
      c.asked_info = true;
    }
    absl::StatusOr<Module> module = ProbeModule(*op, c.info.get());
    std::string hash = CodeHash(module.ok() ? c.prober->Generate(*module, c.spec)
                                            : absl::StatusOr<std::string>(module.status()));
    if (cache_) cache_->Store(op_name, target, {ir_hash, lowering_hash, hash});
    return hash;
  }

 private:
  struct Column {
    BackendProber* prober;
    TargetSpec spec;
    std::shared_ptr<const passes::TargetInfo> info;
    bool asked_info;
  };
  const std::vector<ops::OpCase>& suite_;
  Probers probers_;
  std::map<std::string, Column> columns_;
  std::optional<CodeHashCache> cache_;
};

CurrentCode DescribeCurrentCode(const std::vector<ops::OpCase>& suite, Probers probers,
                                const std::string& cache_directory) {
  CurrentCode code;
  for (const ops::OpCase& op : suite) {
    code.ops.push_back(op.name);
    code.dtype[op.name] = OpDtype(op);
    absl::StatusOr<std::string> text = OpIrText(op);
    code.ir_hash[op.name] = text.ok() ? HashText(*text) : "none";
  }
  for (const auto& prober : probers) {
    for (TargetSpec& target : prober->Targets()) {
      code.backend[target.target] = prober->backend();
      code.lowering_hash[target.target] = HashText(target.lowering);
      code.arch[target.target] = target.arch;
      code.targets.push_back(std::move(target));
    }
  }
  std::optional<CodeHashCache> cache;
  if (!cache_directory.empty()) {
    if (std::optional<std::string> identity = LoadedCodeIdentity()) {
      cache.emplace(cache_directory, *identity);
    }
  }
  code.generation = std::make_shared<CodeGeneration>(suite, std::move(probers), std::move(cache));
  return code;
}

std::optional<std::string> CurrentCode::CodeHashOf(const std::string& op,
                                                   const std::string& target) const {
  auto known = code_hash.find({op, target});
  if (known != code_hash.end()) return known->second;
  if (generation == nullptr) return std::nullopt;
  std::optional<std::string> generated = generation->Generate(op, target, *this);
  if (generated) code_hash[{op, target}] = *generated;
  return generated;
}

std::string StaleReason(const Record& record, const CurrentCode& code) {
  auto ir = code.ir_hash.find(record.op);
  if (ir == code.ir_hash.end()) return "the operator is not in the suite any more";
  auto lowering = code.lowering_hash.find(record.target);
  if (ir->second != record.ir_hash) return "the kernel's IR changed since this record";
  if (lowering == code.lowering_hash.end()) return "";
  if (lowering->second != record.lowering_hash) {
    return "the target's lowering (pipeline or device library) changed since this record";
  }
  // Generating the code is the slow part: only for a record whose hash it can contradict.
  auto arch = code.arch.find(record.target);
  if (record.code_hash.empty() || arch == code.arch.end() || arch->second != record.arch) return "";
  std::optional<std::string> generated = code.CodeHashOf(record.op, record.target);
  if (generated && *generated != record.code_hash) {
    return "the code generated for it changed since this record (a pass or an emitter)";
  }
  return "";
}

std::vector<std::string> MatrixTargets(const std::vector<Record>& records,
                                       const CurrentCode& code) {
  std::vector<std::string> targets;
  for (const TargetSpec& target : code.targets) targets.push_back(target.target);
  std::set<std::string> others;
  for (const Record& record : records) {
    if (std::find(targets.begin(), targets.end(), record.target) == targets.end())
      others.insert(record.target);
  }
  targets.insert(targets.end(), others.begin(), others.end());
  return targets;
}

std::vector<std::string> MatrixOps(const std::vector<Record>& records, const CurrentCode& code) {
  std::vector<std::string> ops = code.ops;
  std::set<std::string> others;
  for (const Record& record : records) {
    if (std::find(ops.begin(), ops.end(), record.op) == ops.end()) others.insert(record.op);
  }
  ops.insert(ops.end(), others.begin(), others.end());
  return ops;
}

}  // namespace tile_ir::matrix
