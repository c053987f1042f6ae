// Kernel-level checks: dimensions, parameters, launch configuration, buffer
// declarations and layouts; and the order in which a kernel is verified.
#include "tile_ir/verifier_kernel.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/verifier_expr.h"
#include "tile_ir/visitor.h"

namespace tile_ir::verifier {
namespace {

// The CUDA, HIP and Metal limit on threads per block. Targets may be stricter;
// they check their own limits when they lower a kernel.
constexpr int64_t kMaxThreadsPerBlock = 1024;

// Kernel names only follow the word `kernel`, where a grammar keyword cannot be
// mistaken for anything else (the example kernel of TEXT_FORMAT.md is `gemm`),
// so only the characters matter.
bool IsValidKernelName(std::string_view name) {
  if (name.empty() || !IsIdentifierStart(name[0])) return false;
  for (char c : name) {
    if (!IsIdentifierChar(c)) return false;
  }
  return true;
}

// The first term of a requirement that launch-time integer evaluation cannot give a value.
class RequirementTerms : public IRVisitor {
 public:
  using IRVisitor::Visit;
  std::string problem;

 protected:
  void VisitVar(const Var& node) override {
    if (!node.dtype().is_int() && !node.dtype().is_bool()) {
      Note(absl::StrCat("'", node.name, "' (", node.dtype().ToString(), ")"));
    }
  }
  void VisitFloatImm(const FloatImm&) override { Note("a floating-point constant"); }
  void VisitCall(const Call& node) override { Note(absl::StrCat("a call of '", node.name, "'")); }
  void VisitRamp(const Ramp&) override { Note("a vector"); }
  void VisitBroadcast(const Broadcast&) override { Note("a vector"); }
  void VisitCast(const Cast& node) override {
    if (!node.dtype().is_int() && !node.dtype().is_bool()) {
      Note(absl::StrCat("a cast to ", node.dtype().ToString()));
    }
    IRVisitor::VisitCast(node);
  }

 private:
  void Note(std::string what) {
    if (problem.empty()) problem = std::move(what);
  }
};

}  // namespace

KernelVerifier::KernelVerifier(const KernelNode& kernel, DiagnosticSink& sink)
    : kernel_(kernel), sink_(sink) {}

void KernelVerifier::Run() {
  if (!IsValidKernelName(kernel_.name)) {
    sink_.ReportPlain(
        kernel_.loc,
        absl::StrCat("'", kernel_.name, "' is not a valid kernel name ([A-Za-z_][A-Za-z0-9_.]*)"));
  }
  CheckDimsAndScalars();
  CheckBufferParams();
  CheckLaunch();
  CheckRequirements();
  if (!kernel_.body) {
    sink_.ReportPlain(kernel_.loc, "the kernel has no body");
    return;
  }
  scope_.EnterFrame();
  CheckStmt(kernel_.body, kernel_.loc, 0);
  scope_.ExitFrame();
}

void KernelVerifier::Declare(const std::string& name, const Site& site) {
  if (!IsValidIdentifier(name)) {
    sink_.Report(site, absl::StrCat("'", name,
                                    "' is not a valid name (names match [A-Za-z_][A-Za-z0-9_.]* "
                                    "and are not keywords of the text form)"));
  }
  if (!declared_names_.emplace(name).second) {
    sink_.Report(site, absl::StrCat("'", name,
                                    "' is already declared in this kernel (variables and buffers "
                                    "share one namespace and nothing may be shadowed)"));
  }
}

// Dimensions and scalar parameters are the values bound at launch; parameter
// shapes and grid extents may use any of them, whatever the parameter order.
void KernelVerifier::CheckDimsAndScalars() {
  for (size_t i = 0; i < kernel_.dims.size(); ++i) {
    const VarRef& dim = kernel_.dims[i];
    if (!dim) {
      sink_.Report({kernel_.loc, "kernel signature"}, absl::StrCat("dimension ", i, " is missing"));
      continue;
    }
    Site site{kernel_.loc, absl::StrCat("dimension '", dim->name, "'")};
    Declare(dim->name, site);
    if (dim->dtype() != kI32 && dim->dtype() != kI64) {
      sink_.Report(site,
                   absl::StrCat("a dimension must be i32 or i64, not ", dim->dtype().ToString()));
    }
    scope_.AddVar(dim.get());
    launch_scope_.AddVar(dim.get());
  }
  for (size_t i = 0; i < kernel_.params.size(); ++i) {
    const Param& param = kernel_.params[i];
    if ((param.buffer == nullptr) == (param.scalar == nullptr)) {
      sink_.Report({kernel_.loc, "kernel signature"},
                   absl::StrCat("parameter ", i, " must be either a buffer or a scalar"));
      continue;
    }
    if (param.is_buffer()) continue;
    Site site{kernel_.loc, absl::StrCat("parameter '", param.scalar->name, "'")};
    Declare(param.scalar->name, site);
    DataType t = param.scalar->dtype();
    if (t.is_void() || t.is_vector()) {
      sink_.Report(site, absl::StrCat("a scalar parameter needs a non-void scalar type, not ",
                                      t.ToString()));
    }
    scope_.AddVar(param.scalar.get());
    launch_scope_.AddVar(param.scalar.get());
  }
}

void KernelVerifier::CheckBufferParams() {
  for (const Param& param : kernel_.params) {
    if (!param.buffer || param.scalar) continue;
    const BufferNode& buffer = *param.buffer;
    Site site{kernel_.loc, absl::StrCat("parameter '", buffer.name, "'")};
    Declare(buffer.name, site);
    if (buffer.scope != MemoryScope::kGlobal) {
      sink_.Report(site, absl::StrCat("buffer parameters are global, but this one is ",
                                      std::string(MemoryScopeName(buffer.scope))));
    }
    if (buffer.layout) {
      sink_.Report(site, "buffer parameters cannot have a layout (use strides)");
    }
    CheckBufferDecl(buffer, launch_scope_, site);
    scope_.AddBuffer(&buffer);
  }
}

void KernelVerifier::CheckLaunch() {
  const Launch& launch = kernel_.launch;
  Site site{kernel_.loc, "launch"};
  if (launch.grid.empty() || launch.grid.size() > 3) {
    sink_.Report(site, absl::StrCat("the grid needs 1 to 3 axes, not ", launch.grid.size()));
  }
  for (size_t i = 0; i < launch.grid.size(); ++i) {
    const GridAxis& axis = launch.grid[i];
    Site axis_site{kernel_.loc, axis.var ? absl::StrCat("grid axis '", axis.var->name, "'")
                                         : absl::StrCat("grid axis ", i)};
    if (!axis.var) {
      sink_.Report(axis_site, "missing block index variable");
    } else {
      Declare(axis.var->name, axis_site);
      if (axis.var->dtype() != kI32) {
        sink_.Report(axis_site, absl::StrCat("a block index variable must be i32, not ",
                                             axis.var->dtype().ToString()));
      }
    }
    if (CheckIntegerExpr(axis.extent, "grid extent", launch_scope_, axis_site, sink_)) {
      std::optional<int64_t> extent = AsConstInt(axis.extent);
      if (extent && *extent <= 0) {
        sink_.Report(axis_site, absl::StrCat("grid extent ", *extent, " must be positive"));
      }
    }
  }
  // Block indices are visible to the body only, not to other grid extents.
  for (const GridAxis& axis : launch.grid) {
    if (axis.var) scope_.AddVar(axis.var.get());
  }

  if (launch.threads.empty() || launch.threads.size() > 3) {
    sink_.Report(site, absl::StrCat("threads needs 1 to 3 extents, not ", launch.threads.size()));
  }
  int64_t total_threads = 1;
  for (int64_t threads : launch.threads) {
    if (threads <= 0) {
      sink_.Report(site, absl::StrCat("thread extent ", threads, " must be positive"));
      total_threads = 0;
    } else if (total_threads > 0) {
      // Capped so that the product cannot overflow.
      total_threads = std::min(total_threads * std::min(threads, kMaxThreadsPerBlock + 1),
                               kMaxThreadsPerBlock + 1);
    }
  }
  if (total_threads > kMaxThreadsPerBlock) {
    sink_.Report(site, absl::StrCat("a block has more than ", kMaxThreadsPerBlock, " threads"));
  }

  if (launch.cluster.size() > 3) {
    sink_.Report(site,
                 absl::StrCat("a cluster has at most 3 extents, not ", launch.cluster.size()));
  }
  for (int64_t extent : launch.cluster) {
    if (extent <= 0) {
      sink_.Report(site, absl::StrCat("cluster extent ", extent, " must be positive"));
    }
  }
  if (launch.swizzle && launch.swizzle->panel_size <= 0) {
    sink_.Report(
        site, absl::StrCat("swizzle panel size ", launch.swizzle->panel_size, " must be positive"));
  }
}

void KernelVerifier::CheckRequirements() {
  for (size_t i = 0; i < kernel_.requirements.size(); ++i) {
    const ShapeRequirement& requirement = kernel_.requirements[i];
    Site site{requirement.loc.known() ? requirement.loc : kernel_.loc,
              absl::StrCat("shape requirement ", i + 1)};
    if (!requirement.condition) {
      sink_.Report(site, "the requirement has no condition");
      continue;
    }
    // Only the launch's integers are in scope: no buffers, no block indices.
    if (!CheckExpr(requirement.condition, "a shape requirement", launch_scope_, site, sink_)) {
      continue;
    }
    const DataType t = requirement.condition->dtype();
    if (!t.is_bool() || t.is_vector()) {
      sink_.Report(site, absl::StrCat("a shape requirement must be a bool scalar, not ",
                                      t.ToString(), " (write a comparison, e.g. K % 32 == 0)"));
      continue;
    }
    RequirementTerms terms;
    terms.Visit(requirement.condition);
    if (!terms.problem.empty()) {
      sink_.Report(site, absl::StrCat("a shape requirement is evaluated from the launch's "
                                      "integers alone, so it cannot use ",
                                      terms.problem));
    }
  }
}

void KernelVerifier::CheckBufferDecl(const BufferNode& buffer, const NameScope& scope,
                                     const Site& site) {
  if (buffer.dtype.is_void() || buffer.dtype.is_vector()) {
    sink_.Report(
        site, absl::StrCat("buffer '", buffer.name, "' needs a non-void scalar element type, not ",
                           buffer.dtype.ToString()));
  }
  for (size_t d = 0; d < buffer.shape.size(); ++d) {
    const Expr& size = buffer.shape[d];
    std::string role = absl::StrCat("size of dimension ", d, " of '", buffer.name, "'");
    if (!CheckIntegerExpr(size, role, scope, site, sink_)) continue;
    std::optional<int64_t> value = AsConstInt(size);
    if (value && *value <= 0)
      sink_.Report(site, absl::StrCat(role, " is ", *value, "; sizes must be positive"));
  }
  if (!buffer.strides.empty() && buffer.strides.size() != buffer.shape.size()) {
    sink_.Report(
        site, absl::StrCat("'", buffer.name, "' has ", buffer.strides.size(), " strides for rank ",
                           buffer.rank(), " (give none for row-major, or one per dimension)"));
  }
  for (size_t d = 0; d < buffer.strides.size(); ++d) {
    CheckIntegerExpr(buffer.strides[d],
                     absl::StrCat("stride of dimension ", d, " of '", buffer.name, "'"), scope,
                     site, sink_);
  }
  if (buffer.layout) CheckLayout(buffer, site);
}

// A layout's inputs are bound only inside it, so they are outside the kernel's
// namespace; its outputs may use nothing else.
void KernelVerifier::CheckLayout(const BufferNode& buffer, const Site& site) {
  const Layout& layout = *buffer.layout;
  std::string what = absl::StrCat("the layout of '", buffer.name, "'");
  if (static_cast<int>(layout.inputs.size()) != buffer.rank()) {
    sink_.Report(site, absl::StrCat(what, " has ", layout.inputs.size(),
                                    " inputs, but the buffer has rank ", buffer.rank()));
  }
  NameScope inputs_scope("the layout's input variables");
  absl::flat_hash_set<std::string> input_names;
  for (const VarRef& input : layout.inputs) {
    if (!input) {
      sink_.Report(site, absl::StrCat(what, " has a missing input"));
      continue;
    }
    if (!IsValidIdentifier(input->name)) {
      sink_.Report(site, absl::StrCat(what, " has an input named '", input->name,
                                      "', which is not a valid name"));
    }
    if (!input_names.insert(input->name).second) {
      sink_.Report(site, absl::StrCat(what, " names the input '", input->name, "' twice"));
    }
    if (input->dtype() != kI32) {
      sink_.Report(site, absl::StrCat("input '", input->name, "' of ", what, " must be i32, not ",
                                      input->dtype().ToString()));
    }
    inputs_scope.AddVar(input.get());
  }
  if (layout.outputs.empty()) sink_.Report(site, absl::StrCat(what, " has no outputs"));
  // The replica is visible in the thread output only: each replica keeps the element in the
  // same register of its own thread.
  NameScope with_replica = inputs_scope;
  // The other outputs see the inputs only, and say so when one uses the replica.
  NameScope without_replica(
      layout.replica ? absl::StrCat("the layout's input variables (its replica '",
                                    layout.replica->name, "' only in the thread output)")
                     : "the layout's input variables");
  for (const VarRef& input : layout.inputs) {
    if (input) without_replica.AddVar(input.get());
  }
  if (layout.replica) {
    const VarRef& replica = layout.replica;
    if (buffer.scope != MemoryScope::kFragment) {
      sink_.Report(site, absl::StrCat(what, " replicates, but only fragment layouts may (",
                                      buffer.name, " is ", std::string(MemoryScopeName(buffer.scope)), ")"));
    }
    if (!IsValidIdentifier(replica->name)) {
      sink_.Report(site, absl::StrCat(what, " has a replica named '", replica->name,
                                      "', which is not a valid name"));
    }
    if (input_names.contains(replica->name)) {
      sink_.Report(site, absl::StrCat(what, " names '", replica->name,
                                      "' as both an input and its replica"));
    }
    if (replica->dtype() != kI32) {
      sink_.Report(site, absl::StrCat("replica '", replica->name, "' of ", what,
                                      " must be i32, not ", replica->dtype().ToString()));
    }
    if (layout.replicate < 1 || layout.replicate > std::numeric_limits<int32_t>::max()) {
      // The replica is an i32 that takes every value below the count.
      sink_.Report(site, absl::StrCat(what, " replicates ", layout.replicate,
                                      " times; the count must be from 1 to 2147483647 (its "
                                      "replica is an i32)"));
    }
    with_replica.AddVar(replica.get());
  } else if (layout.replicate != 1) {
    sink_.Report(site, absl::StrCat(what, " has a replica count of ", layout.replicate,
                                    " but no replica variable"));
  }
  for (size_t i = 0; i < layout.outputs.size(); ++i) {
    CheckIntegerExpr(layout.outputs[i], absl::StrCat("output ", i, " of ", what),
                     i == 0 ? with_replica : without_replica, site, sink_);
  }
}

}  // namespace tile_ir::verifier
