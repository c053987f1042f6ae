#include "tile_ir/module.h"

namespace tile_ir {

std::string_view SwizzleOrderName(SwizzleOrder order) {
  return order == SwizzleOrder::kRowMajor ? "row" : "column";
}

Kernel KernelNode::Make(std::string name, std::vector<VarRef> dims, std::vector<Param> params,
                        Launch launch, Stmt body, SourceLoc loc,
                        std::vector<ShapeRequirement> requirements) {
  return std::make_shared<const KernelNode>(std::move(name), std::move(dims), std::move(params),
                                            std::move(launch), std::move(body), std::move(loc),
                                            std::move(requirements));
}

Kernel KernelNode::WithBody(Stmt new_body) const {
  return Make(name, dims, params, launch, std::move(new_body), loc, requirements);
}

Kernel KernelNode::WithRequirements(std::vector<ShapeRequirement> new_requirements) const {
  return Make(name, dims, params, launch, body, loc, std::move(new_requirements));
}

}  // namespace tile_ir
