// What the proto reader knows at each point of a kernel: the names in scope, where it is in
// the message (for error messages) and how deep it has nested. Internal to proto_convert.
#ifndef TILE_IR_PROTO_READ_CONTEXT_H_
#define TILE_IR_PROTO_READ_CONTEXT_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/source_loc.h"

// Early return on error, for the reader's long chains of fallible steps. TILE_ASSIGN_OR_RETURN
// expands to several statements: inside an `if`, brace it.
#define TILE_PROTO_CONCAT_INNER(a, b) a##b
#define TILE_PROTO_CONCAT(a, b) TILE_PROTO_CONCAT_INNER(a, b)
#define TILE_RETURN_IF_ERROR(expr)                                    \
  do {                                                                \
    if (absl::Status status_ = (expr); !status_.ok()) return status_; \
  } while (false)
#define TILE_ASSIGN_OR_RETURN(lhs, expr) \
  TILE_ASSIGN_OR_RETURN_IMPL(TILE_PROTO_CONCAT(status_or_, __LINE__), lhs, expr)
#define TILE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(*tmp)

namespace tile_ir::proto_read {

class ReadContext {
 private:
  // A name's meaning: exactly one of the two is set.
  struct Binding {
    VarRef var;
    Buffer buffer;
  };

 public:
  // Clears the names and records the kernel that errors name from now on.
  void StartKernel(std::string kernel_name);

  // InvalidArgument naming the field path, the kernel and the nearest source location.
  absl::Status Error(absl::string_view message) const;

  // Names. A frame is a block or a loop or branch body; names declared in it vanish when it
  // is popped. A name may not be declared while the same name is visible, and a kernel-wide
  // one (everything but layout inputs) not twice in the kernel, even out of scope.
  void PushFrame() { frames_.emplace_back(); }
  void PopFrame();
  absl::Status DeclareVar(const VarRef& var, bool kernel_wide = true);
  absl::Status DeclareBuffer(const Buffer& buffer);
  absl::StatusOr<VarRef> LookupVar(const std::string& name) const;
  absl::StatusOr<Buffer> LookupBuffer(const std::string& name) const;
  // Whether a lookup in this kernel failed for a name declared nowhere before it.
  bool saw_undeclared() const { return saw_undeclared_; }

  // Scoped markers; each constructor pushes and the destructor pops.
  class Field {
   public:
    Field(ReadContext* context, absl::string_view name, int index = -1);
    ~Field() { context_->path_.pop_back(); }
    Field(const Field&) = delete;
    Field& operator=(const Field&) = delete;

   private:
    ReadContext* context_;
  };
  class Location {
   public:
    Location(ReadContext* context, SourceLoc loc);
    ~Location() { context_->loc_ = std::move(saved_); }
    Location(const Location&) = delete;
    Location& operator=(const Location&) = delete;

   private:
    ReadContext* context_;
    SourceLoc saved_;
  };
  // Counts statements and expressions nested in one another; check NestedTooDeep after.
  class Nesting {
   public:
    explicit Nesting(ReadContext* context) : context_(context) { ++context_->depth_; }
    ~Nesting() { --context_->depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    ReadContext* context_;
  };
  bool NestedTooDeep() const;
  // A layout's outputs use only its inputs: the kernel's names are set aside while it lasts,
  // and a fresh frame holds the inputs.
  class LayoutScope {
   public:
    explicit LayoutScope(ReadContext* context);
    ~LayoutScope();
    LayoutScope(const LayoutScope&) = delete;
    LayoutScope& operator=(const LayoutScope&) = delete;

   private:
    ReadContext* context_;
    absl::flat_hash_map<std::string, Binding> saved_visible_;
    std::vector<std::vector<std::string>> saved_frames_;
  };

 private:
  struct PathStep {
    absl::string_view field;  // a string literal of the reader
    int index;                // -1 for a singular field
  };

  absl::Status Declare(const std::string& name, Binding binding, bool kernel_wide);
  absl::Status NotVisible(const std::string& name, absl::string_view expected) const;
  std::string PathString() const;

  std::string kernel_name_;
  mutable bool saw_undeclared_ = false;
  bool in_layout_ = false;
  absl::flat_hash_map<std::string, Binding> visible_;
  std::vector<std::vector<std::string>> frames_;
  absl::flat_hash_set<std::string> declared_in_kernel_;
  std::vector<PathStep> path_;
  SourceLoc loc_;
  int depth_ = 0;
};

}  // namespace tile_ir::proto_read

#endif  // TILE_IR_PROTO_READ_CONTEXT_H_
