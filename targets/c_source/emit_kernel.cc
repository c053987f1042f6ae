// Function setup for one kernel: the signature (docs/LOWERING.md, the calling
// conventions), the shared pool, block indices, buffer declarations.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/diagnostics.h"
#include "targets/c_source/kernel_emitter.h"
#include "targets/c_source/shared_memory.h"
#include "tile_ir/visitor.h"

namespace tile_ir::c_source {
namespace {

// The variables a body reads and whether it declares shared buffers.
class BodyFacts : public IRVisitor {
 public:
  absl::flat_hash_set<const Var*> vars;
  bool has_shared = false;

 protected:
  void VisitVar(const Var& node) override { vars.insert(&node); }
  void VisitAllocate(const Allocate& node) override {
    has_shared = has_shared || node.buffer->scope == MemoryScope::kShared;
    IRVisitor::VisitAllocate(node);
  }
};

}  // namespace

KernelEmitter::KernelEmitter(const KernelNode& kernel, const Dialect& dialect, std::string symbol)
    : kernel_(kernel), dialect_(dialect), names_(dialect), symbol_(std::move(symbol)) {
  names_.Reserve(symbol_);
}

absl::StatusOr<std::string> KernelEmitter::Emit() {
  loc_ = kernel_.loc;
  BodyFacts facts;
  facts.Visit(kernel_.body);
  used_vars_ = std::move(facts.vars);
  int64_t threads = 1;
  for (int64_t extent : kernel_.launch.threads) threads *= extent;
  out_ = dialect_.KernelOpen(kernel_, symbol_, threads, Signature()) + "\n";
  if (facts.has_shared) {
    for (const std::string& line : dialect_.SharedPoolDecl(SharedMemoryBytes(kernel_))) Line(line);
  }
  for (size_t axis = 0; axis < kernel_.launch.grid.size() && axis < 3; ++axis) {
    const VarRef& var = kernel_.launch.grid[axis].var;
    if (!used_vars_.contains(var.get())) continue;
    Line(absl::StrCat("const ", dialect_.ValueType(var->dtype().scalar()), " ",
                      names_.Declare(var.get(), var->name), " = ", dialect_.BlockIndex(axis), ";"));
  }
  EmitStmt(kernel_.body);
  out_ += "}\n";
  if (!error_.ok()) return error_;
  return out_;
}

std::string KernelEmitter::Signature() {
  std::vector<std::string> params;
  for (const Param& param : kernel_.params) {
    int index = static_cast<int>(params.size());
    if (param.is_buffer()) {
      const BufferNode& buffer = *param.buffer;
      params.push_back(
          dialect_.BufferParam(buffer.dtype.scalar(), names_.Declare(&buffer, buffer.name), index));
    } else {
      params.push_back(dialect_.ScalarParam(param.scalar->dtype().scalar(),
                                            names_.Declare(param.scalar.get(), param.scalar->name),
                                            index));
    }
  }
  for (const VarRef& dim : kernel_.dims) {
    int index = static_cast<int>(params.size());
    params.push_back(
        dialect_.ScalarParam(dim->dtype().scalar(), names_.Declare(dim.get(), dim->name), index));
  }
  absl::StatusOr<std::vector<std::string>> derived = dialect_.DerivedParams(kernel_);
  if (!derived.ok()) {
    Fail(std::string(derived.status().message()));
  } else {
    for (std::string& param : *derived) params.push_back(std::move(param));
  }
  for (const std::string& builtin : dialect_.BuiltinParams()) params.push_back(builtin);
  return absl::StrJoin(params, ", ");
}

void KernelEmitter::EmitAllocate(const Allocate& node) {
  const BufferNode& buffer = *node.buffer;
  std::optional<int64_t> elements = BufferElements(buffer);
  if (!elements) {
    Fail(absl::StrCat("buffer '", buffer.name, "' needs a constant shape"));
    return;
  }
  std::string type = dialect_.MemoryType(buffer.dtype.scalar());
  const std::string& name = names_.Declare(&buffer, buffer.name);
  if (buffer.scope == MemoryScope::kShared) {
    if (!node.shared_offset) {
      Fail(absl::StrCat("shared buffer '", buffer.name,
                        "' has no offset(N); run "
                        "plan-shared-memory first"));
      return;
    }
    shared_offsets_[&buffer] = *node.shared_offset;
    Line(dialect_.SharedBufferDecl(type, name, *node.shared_offset));
    return;
  }
  if (buffer.scope != MemoryScope::kLocal) {
    Fail(absl::StrCat(std::string(MemoryScopeName(buffer.scope)), " buffer '", buffer.name,
                      "' cannot be declared in a kernel"));
    return;
  }
  // i4 packs two elements per byte; zero-sized arrays are not C++, so one
  // unused element stands in.
  int64_t length = buffer.dtype.scalar() == ScalarType::kI4 ? (*elements + 1) / 2 : *elements;
  length = std::max<int64_t>(length, 1);
  Line(absl::StrCat(type, " ", name, "[", length, "];"));
}

CExpr KernelEmitter::Fail(const std::string& message) {
  if (error_.ok()) {
    error_ =
        KernelError(absl::StatusCode::kUnimplemented, kernel_, loc_, dialect_.target(), message);
  }
  return Primary("0");
}

}  // namespace tile_ir::c_source
