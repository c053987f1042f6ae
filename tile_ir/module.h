// Kernels and modules: the units that frontends produce, passes transform and
// targets compile.
#ifndef TILE_IR_MODULE_H_
#define TILE_IR_MODULE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/source_loc.h"
#include "tile_ir/stmt.h"
#include "tile_ir/version.h"

namespace tile_ir {

// A kernel parameter: a global buffer or a scalar.
struct Param {
  Buffer buffer;  // set for buffer parameters
  VarRef scalar;  // set for scalar parameters

  bool is_buffer() const { return buffer != nullptr; }
  const std::string& name() const { return buffer ? buffer->name : scalar->name; }
};

// One grid dimension: the block index variable and the number of blocks.
struct GridAxis {
  VarRef var;
  Expr extent;
};

enum class SwizzleOrder : uint8_t { kRowMajor, kColumnMajor };
std::string_view SwizzleOrderName(SwizzleOrder order);

// Block rasterization for L2 reuse: consecutive blocks walk panels of
// panel_size rows (or columns) of the grid instead of whole rows.
struct BlockSwizzle {
  int panel_size = 0;
  SwizzleOrder order = SwizzleOrder::kRowMajor;
  friend bool operator==(const BlockSwizzle&, const BlockSwizzle&) = default;
};

struct Launch {
  std::vector<GridAxis> grid;     // 1 to 3 axes, x first
  std::vector<int64_t> threads;   // 1 to 3 extents, x first
  std::vector<int64_t> cluster;   // empty, or 1 to 3 extents
  std::optional<BlockSwizzle> swizzle;
};

// A shape contract: a bool expression over the kernel's dimensions (and integer scalar
// parameters) that every launch must satisfy, e.g. `K % 32 == 0` for a kernel that reads K in
// whole groups of 32. Checked when arguments are bound; a launch that breaks one is refused
// naming the contract and the values given. Written `require K % 32 == 0;` at the top of a
// kernel's body in the text form (IR version 3).
struct ShapeRequirement {
  Expr condition;
  SourceLoc loc;
};

class KernelNode {
 public:
  KernelNode(std::string name, std::vector<VarRef> dims, std::vector<Param> params, Launch launch,
             Stmt body, SourceLoc loc, std::vector<ShapeRequirement> requirements = {})
      : name(std::move(name)),
        dims(std::move(dims)),
        params(std::move(params)),
        launch(std::move(launch)),
        body(std::move(body)),
        loc(std::move(loc)),
        requirements(std::move(requirements)) {}
  KernelNode(const KernelNode&) = delete;
  KernelNode& operator=(const KernelNode&) = delete;

  static std::shared_ptr<const KernelNode> Make(std::string name, std::vector<VarRef> dims,
                                                std::vector<Param> params, Launch launch,
                                                Stmt body, SourceLoc loc = {},
                                                std::vector<ShapeRequirement> requirements = {});
  // A copy with another body (passes rewrite bodies far more than signatures).
  std::shared_ptr<const KernelNode> WithBody(Stmt new_body) const;
  // A copy with other shape requirements.
  std::shared_ptr<const KernelNode> WithRequirements(
      std::vector<ShapeRequirement> new_requirements) const;

  const std::string name;
  // Symbolic shape variables (i32 or i64) used in parameter shapes; bound at launch.
  const std::vector<VarRef> dims;
  const std::vector<Param> params;
  const Launch launch;
  const Stmt body;
  const SourceLoc loc;
  // What every launch's dimensions must satisfy, in the order written.
  const std::vector<ShapeRequirement> requirements;
};

using Kernel = std::shared_ptr<const KernelNode>;

struct Module {
  // The version the module's file declared (kIrVersion for one built in memory). Readers
  // upgrade what they read, so the IR always has this build's meaning whatever the value;
  // writers stamp RequiredIrVersion(module) instead (version.h).
  int64_t ir_version = kIrVersion;
  std::string producer;
  std::string producer_version;
  std::vector<Kernel> kernels;
};

}  // namespace tile_ir

#endif  // TILE_IR_MODULE_H_
