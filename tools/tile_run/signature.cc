// Signatures compared part by part, so a mismatch is named, not just found.
#include "tools/tile_run/signature.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tile_ir/printer.h"

namespace tile_ir::tools {
namespace {

std::string FormatExprs(const std::vector<Expr>& exprs) {
  std::vector<std::string> parts;
  for (const Expr& expr : exprs) parts.push_back(Print(expr));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::string FormatParam(const Param& param) {
  if (!param.is_buffer()) return absl::StrCat(param.name(), ": ", param.scalar->dtype().ToString());
  std::string text = absl::StrCat(param.name(), ": ", param.buffer->dtype.ToString(),
                                  FormatExprs(param.buffer->shape));
  if (!param.buffer->strides.empty()) {
    absl::StrAppend(&text, " strides", FormatExprs(param.buffer->strides));
  }
  return text;
}

std::vector<std::string> ParamNames(const KernelNode& kernel) {
  std::vector<std::string> names;
  for (const Param& param : kernel.params) names.push_back(param.name());
  return names;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Both hold the same parameter name; says how the two declarations differ.
std::optional<std::string> ParamDifference(const Param& mine, const Param& theirs) {
  const std::string quoted = absl::StrCat("its parameter '", mine.name(), "'");
  if (mine.is_buffer() != theirs.is_buffer()) {
    return absl::StrCat(quoted, " is a ", mine.is_buffer() ? "buffer" : "scalar",
                        " where the operator's is a ", theirs.is_buffer() ? "buffer" : "scalar",
                        " (", FormatParam(theirs), ")");
  }
  if (!mine.is_buffer()) {
    if (mine.scalar->dtype() == theirs.scalar->dtype()) return std::nullopt;
    return absl::StrCat(quoted, " is ", mine.scalar->dtype().ToString(),
                        " where the operator's is ", theirs.scalar->dtype().ToString());
  }
  const BufferNode& a = *mine.buffer;
  const BufferNode& b = *theirs.buffer;
  if (a.dtype != b.dtype) {
    return absl::StrCat(quoted, " is ", a.dtype.ToString(), " where the operator's is ",
                        b.dtype.ToString());
  }
  if (a.rank() != b.rank()) {
    return absl::StrCat(quoted, " has rank ", a.rank(), " (", FormatExprs(a.shape),
                        ") where the operator's has rank ", b.rank(), " (", FormatExprs(b.shape),
                        ")");
  }
  if (FormatExprs(a.shape) != FormatExprs(b.shape)) {
    return absl::StrCat(quoted, " has the shape ", FormatExprs(a.shape),
                        " where the operator's is ", FormatExprs(b.shape));
  }
  if (FormatExprs(a.strides) != FormatExprs(b.strides)) {
    auto strides = [](const BufferNode& buffer) {
      return buffer.strides.empty() ? std::string("dense row-major strides")
                                    : absl::StrCat("the strides ", FormatExprs(buffer.strides));
    };
    return absl::StrCat(quoted, " has ", strides(a), " where the operator's has ", strides(b));
  }
  return std::nullopt;
}

}  // namespace

std::string FormatSignature(const KernelNode& kernel) {
  std::vector<std::string> params;
  for (const Param& param : kernel.params) params.push_back(FormatParam(param));
  return absl::StrCat(kernel.name, "(", absl::StrJoin(params, ", "), ")");
}

std::optional<std::string> SignatureDifference(const KernelNode& kernel,
                                               const KernelNode& op_kernel) {
  auto dims = [](const KernelNode& k) {
    std::vector<std::string> parts;
    for (const VarRef& dim : k.dims)
      parts.push_back(absl::StrCat(dim->name, ": ", dim->dtype().ToString()));
    return absl::StrCat("<", absl::StrJoin(parts, ", "), ">");
  };
  // Dimensions bind the shapes the reference is computed at.
  if (dims(kernel) != dims(op_kernel)) {
    return absl::StrCat("its dimensions are ", dims(kernel), " where the operator's are ",
                        dims(op_kernel));
  }
  const std::vector<std::string> mine = ParamNames(kernel);
  const std::vector<std::string> theirs = ParamNames(op_kernel);
  for (const std::string& name : theirs) {
    if (!Contains(mine, name)) {
      std::string extra;
      for (const std::string& own : mine) {
        if (!Contains(theirs, own)) {
          extra = absl::StrCat(" (it has '", own, "', which the operator lacks)");
          break;
        }
      }
      return absl::StrCat("it lacks the operator's parameter '", name, "'", extra);
    }
  }
  for (const std::string& name : mine) {
    if (!Contains(theirs, name)) {
      return absl::StrCat("it has the parameter '", name, "', which the operator lacks");
    }
  }
  // Arguments are passed by position.
  if (mine != theirs) {
    return absl::StrCat("its parameters come in the order (", absl::StrJoin(mine, ", "),
                        ") where the operator's are (", absl::StrJoin(theirs, ", "), ")");
  }
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    if (std::optional<std::string> difference =
            ParamDifference(kernel.params[i], op_kernel.params[i])) {
      return difference;
    }
  }
  return std::nullopt;
}

}  // namespace tile_ir::tools
