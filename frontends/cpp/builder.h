// The kernel under construction. A KernelBuilder opens a scope; the free
// functions of the API (tile_ops.h, control.h, tensor.h) append statements to
// the innermost open block of the builder active on this thread, recording
// the caller's file and line so that diagnostics point at user code.
#ifndef FRONTENDS_CPP_BUILDER_H_
#define FRONTENDS_CPP_BUILDER_H_

#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "frontends/cpp/expr_handle.h"
#include "frontends/cpp/tensor.h"
#include "tile_ir/module.h"

namespace tile_ir::dsl {

using Loc = std::source_location;
SourceLoc ToSourceLoc(const Loc& loc);

class KernelBuilder {
 public:
  // Becomes the active builder of this thread until destroyed or finished.
  explicit KernelBuilder(std::string name, Loc loc = Loc::current());
  ~KernelBuilder();
  KernelBuilder(const KernelBuilder&) = delete;
  KernelBuilder& operator=(const KernelBuilder&) = delete;

  // A symbolic shape variable, bound from the tensors' shapes at launch.
  E Dim(const std::string& name, DataType dtype = kI32);
  // A global tensor parameter.
  Tensor Param(const std::string& name, DataType dtype, std::vector<E> shape,
               std::vector<E> strides = {});
  // A scalar parameter.
  E Scalar(const std::string& name, DataType dtype);
  // The launch: grid extents (x first) and threads per block. Returns the
  // block index of each grid axis (bx, by, bz). Must come before any statement.
  std::vector<E> Launch(std::vector<E> grid, std::vector<int64_t> threads, Loc loc = Loc::current());
  void Cluster(std::vector<int64_t> extents);
  // Block rasterization for L2 reuse (TileLang's T.use_swizzle).
  void UseSwizzle(int panel_size, SwizzleOrder order = SwizzleOrder::kRowMajor);
  // A shape contract every launch must satisfy, over dimensions and integer scalars, e.g.
  // k.Require(K % 32 == 0): launches that break it are refused naming it (module.h).
  void Require(E condition, Loc loc = Loc::current());

  // The finished kernel, verified; errors name the user's file and line.
  absl::StatusOr<Kernel> Finish();

  // --- used by the API functions ---
  static KernelBuilder& Active();
  std::string FreshName(const std::string& hint);
  void Append(Stmt stmt);
  // Runs `body` with a new innermost block and returns what it appended.
  Stmt Block(const std::function<void()>& body, const SourceLoc& loc);
  void AnnotateLayout(const Buffer& buffer, Layout layout);

 private:
  std::string name_;
  SourceLoc loc_;
  std::vector<VarRef> dims_;
  std::vector<tile_ir::Param> params_;
  tile_ir::Launch launch_;
  std::vector<ShapeRequirement> requirements_;
  bool launched_ = false;
  std::vector<std::vector<Stmt>> blocks_;
  absl::flat_hash_set<std::string> names_;
  absl::flat_hash_map<const BufferNode*, Layout> layouts_;
  std::vector<std::string> errors_;
  KernelBuilder* previous_ = nullptr;
  bool finished_ = false;
};

// A module holding the given kernels, stamped with this producer's name.
Module MakeModule(std::vector<Kernel> kernels);

}  // namespace tile_ir::dsl

#endif  // FRONTENDS_CPP_BUILDER_H_
