// Scopes, field paths and nesting depth for the proto reader (proto_read_context.h).
#include "tile_ir/proto_read_context.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tile_ir/proto_convert.h"

namespace tile_ir::proto_read {
namespace {

// Paths of deeply nested errors keep their ends, which say where in the kernel and what.
constexpr int kPathHeadSteps = 6;
constexpr int kPathTailSteps = 8;

}  // namespace

void ReadContext::StartKernel(std::string kernel_name) {
  kernel_name_ = std::move(kernel_name);
  saw_undeclared_ = false;
  visible_.clear();
  frames_.clear();
  declared_in_kernel_.clear();
}

absl::Status ReadContext::Error(absl::string_view message) const {
  std::string where = PathString();
  if (!kernel_name_.empty()) absl::StrAppend(&where, " in kernel '", kernel_name_, "'");
  if (loc_.known()) absl::StrAppend(&where, " at ", loc_.ToString());
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", message));
}

std::string ReadContext::PathString() const {
  std::string text;
  auto append = [&](const PathStep& step) {
    if (!text.empty()) text += '.';
    absl::StrAppend(&text, step.field);
    if (step.index >= 0) absl::StrAppend(&text, "[", step.index, "]");
  };
  int size = static_cast<int>(path_.size());
  if (size <= kPathHeadSteps + kPathTailSteps) {
    for (const PathStep& step : path_) append(step);
    return text;
  }
  for (int i = 0; i < kPathHeadSteps; ++i) append(path_[i]);
  absl::StrAppend(&text, ".(", size - kPathHeadSteps - kPathTailSteps, " more)");
  for (int i = size - kPathTailSteps; i < size; ++i) append(path_[i]);
  return text;
}

void ReadContext::PopFrame() {
  for (const std::string& name : frames_.back()) visible_.erase(name);
  frames_.pop_back();
}

absl::Status ReadContext::Declare(const std::string& name, Binding binding, bool kernel_wide) {
  if (visible_.contains(name)) {
    return Error(absl::StrFormat(
        "'%s' is declared again while the earlier '%s' is in scope; names may not shadow", name,
        name));
  }
  if (kernel_wide && !declared_in_kernel_.insert(name).second) {
    return Error(absl::StrFormat(
        "'%s' is declared twice in this kernel; a name is declared once per kernel", name));
  }
  visible_.emplace(name, std::move(binding));
  frames_.back().push_back(name);
  return absl::OkStatus();
}

absl::Status ReadContext::DeclareVar(const VarRef& var, bool kernel_wide) {
  return Declare(var->name, Binding{var, nullptr}, kernel_wide);
}

absl::Status ReadContext::DeclareBuffer(const Buffer& buffer) {
  return Declare(buffer->name, Binding{nullptr, buffer}, /*kernel_wide=*/true);
}

absl::Status ReadContext::NotVisible(const std::string& name, absl::string_view expected) const {
  if (in_layout_) {
    return Error(absl::StrFormat(
        "%s '%s' is not an input of this layout; a layout's outputs use only its inputs", expected,
        name));
  }
  if (declared_in_kernel_.contains(name)) {
    return Error(absl::StrFormat("%s '%s' is used outside the block or loop that declares it",
                                 expected, name));
  }
  saw_undeclared_ = true;
  return Error(absl::StrFormat("%s '%s' is not declared before this use", expected, name));
}

absl::StatusOr<VarRef> ReadContext::LookupVar(const std::string& name) const {
  auto it = visible_.find(name);
  if (it == visible_.end()) return NotVisible(name, "variable");
  if (!it->second.var) {
    return Error(absl::StrFormat("'%s' is a buffer where a variable was expected", name));
  }
  return it->second.var;
}

absl::StatusOr<Buffer> ReadContext::LookupBuffer(const std::string& name) const {
  auto it = visible_.find(name);
  if (it == visible_.end()) return NotVisible(name, "buffer");
  if (!it->second.buffer) {
    return Error(absl::StrFormat("'%s' is a variable where a buffer was expected", name));
  }
  return it->second.buffer;
}

ReadContext::Field::Field(ReadContext* context, absl::string_view name, int index)
    : context_(context) {
  context_->path_.push_back({name, index});
}

ReadContext::Location::Location(ReadContext* context, SourceLoc loc)
    : context_(context), saved_(std::move(context->loc_)) {
  context_->loc_ = std::move(loc);
}

ReadContext::LayoutScope::LayoutScope(ReadContext* context)
    : context_(context),
      saved_visible_(std::move(context->visible_)),
      saved_frames_(std::move(context->frames_)) {
  context_->visible_.clear();
  context_->frames_.clear();
  context_->frames_.emplace_back();
  context_->in_layout_ = true;
}

ReadContext::LayoutScope::~LayoutScope() {
  context_->visible_ = std::move(saved_visible_);
  context_->frames_ = std::move(saved_frames_);
  context_->in_layout_ = false;
}

bool ReadContext::NestedTooDeep() const { return depth_ > kMaxNestingDepth; }

}  // namespace tile_ir::proto_read
