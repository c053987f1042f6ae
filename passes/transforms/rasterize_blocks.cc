// Block rasterization: lets computing the panel-ordered block indices from the
// linear block id, substituted for the grid variables.
#include "passes/transforms/rasterize_blocks.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/utils/fresh_names.h"
#include "passes/utils/substitute.h"

namespace tile_ir::passes {
namespace {

Expr AsI32(const Expr& e) { return e->dtype() == kI32 ? e : Cast::Make(kI32, e); }

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Sub(Expr a, Expr b) { return Binary::Make(BinaryOp::kSub, std::move(a), std::move(b)); }
Expr Mul(Expr a, Expr b) { return Binary::Make(BinaryOp::kMul, std::move(a), std::move(b)); }
Expr Div(Expr a, Expr b) { return Binary::Make(BinaryOp::kDiv, std::move(a), std::move(b)); }
Expr Mod(Expr a, Expr b) { return Binary::Make(BinaryOp::kMod, std::move(a), std::move(b)); }
Expr Min(Expr a, Expr b) { return Binary::Make(BinaryOp::kMin, std::move(a), std::move(b)); }

// Builds the lets; `lets` receives them in order.
class LetBuilder {
 public:
  LetBuilder(FreshNames& names, const SourceLoc& loc) : names_(names), loc_(loc) {}

  VarRef Bind(std::string_view name, Expr value) {
    VarRef var = Var::Make(names_.Fresh(name), kI32);
    lets_.push_back(Let::Make(var, std::move(value), loc_));
    return var;
  }

  std::vector<Stmt>& lets() { return lets_; }

 private:
  FreshNames& names_;
  const SourceLoc& loc_;
  std::vector<Stmt> lets_;
};

}  // namespace

absl::StatusOr<Kernel> RasterizeBlocks(const Kernel& kernel) {
  const Launch& launch = kernel->launch;
  if (!launch.swizzle) return kernel;
  const BlockSwizzle& swizzle = *launch.swizzle;
  if (swizzle.panel_size <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel->name, "': swizzle panel ",
                                                   swizzle.panel_size, " must be positive"));
  }
  Launch new_launch = launch;
  new_launch.swizzle.reset();
  if (launch.grid.size() < 2) {
    return KernelNode::Make(kernel->name, kernel->dims, kernel->params, std::move(new_launch),
                            kernel->body, kernel->loc, kernel->requirements);
  }

  const GridAxis& x_axis = launch.grid[0];
  const GridAxis& y_axis = launch.grid[1];
  Expr gx = AsI32(x_axis.extent);
  Expr gy = AsI32(y_axis.extent);
  Expr panel = Int(swizzle.panel_size);
  bool row = swizzle.order == SwizzleOrder::kRowMajor;
  // Row panels span P rows of the grid and all of its columns; column panels
  // the other way round.
  Expr across = row ? gy : gx;  // the extent split into panels
  Expr along = row ? gx : gy;   // the extent each panel spans whole

  FreshNames names(*kernel);
  LetBuilder b(names, kernel->loc);
  VarRef id = b.Bind("raster_id", Add(Mul(y_axis.var, gx), x_axis.var));
  VarRef panel_index = b.Bind("raster_panel", Div(id, Mul(panel, along)));
  VarRef width = b.Bind("raster_width", Min(Sub(across, Mul(panel_index, panel)), panel));
  VarRef offset = b.Bind("raster_offset", Mod(id, Mul(panel, along)));
  Expr across_index = Add(Mul(panel_index, panel), Mod(offset, width));
  Expr along_index = Div(offset, width);
  VarRef new_x =
      b.Bind(absl::StrCat(x_axis.var->name, "_raster"), row ? along_index : across_index);
  VarRef new_y =
      b.Bind(absl::StrCat(y_axis.var->name, "_raster"), row ? across_index : along_index);

  VarMap map = {{x_axis.var.get(), new_x}, {y_axis.var.get(), new_y}};
  return RemapBlockIndices(kernel, std::move(new_launch), std::move(b.lets()), map);
}

absl::StatusOr<bool> RasterizeBlocks(Module& module) {
  return MapKernels(module, [](const Kernel& kernel) { return RasterizeBlocks(kernel); });
}

PassInfo RasterizeBlocksPass() {
  PassInfo info;
  info.name = "rasterize-blocks";
  info.description =
      "remaps block indices of kernels with swizzle(...) to walk panels of the grid for L2 reuse";
  info.run_kernel =
      EachKernel([](const Kernel& kernel, const PassOptions&) { return RasterizeBlocks(kernel); });
  return info;
}

}  // namespace tile_ir::passes
