// Hashing the suite and the probers' targets; judging records against them.
#include "tools/tile_matrix/current_code.h"

#include <algorithm>
#include <set>

namespace tile_ir::matrix {

CurrentCode DescribeCurrentCode(const std::vector<ops::OpCase>& suite, const Probers& probers) {
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
      const std::shared_ptr<const passes::TargetInfo> info = prober->Info(target);
      for (const ops::OpCase& op : suite) {
        if (target.code_follows_host) break;
        absl::StatusOr<Module> module = ProbeModule(op, info.get());
        code.code_hash[{op.name, target.target}] =
            CodeHash(module.ok() ? prober->Generate(*module, target)
                                 : absl::StatusOr<std::string>(module.status()));
      }
      code.targets.push_back(std::move(target));
    }
  }
  return code;
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
  auto generated = code.code_hash.find({record.op, record.target});
  auto arch = code.arch.find(record.target);
  if (!record.code_hash.empty() && generated != code.code_hash.end() && arch != code.arch.end() &&
      arch->second == record.arch && generated->second != record.code_hash) {
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
