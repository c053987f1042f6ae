#include "tile_ir/module.h"

namespace tile_ir {

std::string_view SwizzleOrderName(SwizzleOrder order) {
  return order == SwizzleOrder::kRowMajor ? "row" : "column";
}

Kernel KernelNode::Make(std::string name, std::vector<VarRef> dims, std::vector<Param> params,
                        Launch launch, Stmt body, SourceLoc loc) {
  return std::make_shared<const KernelNode>(std::move(name), std::move(dims), std::move(params),
                                            std::move(launch), std::move(body), std::move(loc));
}

Kernel KernelNode::WithBody(Stmt new_body) const {
  return Make(name, dims, params, launch, std::move(new_body), loc);
}

}  // namespace tile_ir
