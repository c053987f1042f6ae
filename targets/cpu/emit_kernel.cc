// Function setup for one kernel: the block function's signature (the calling
// convention of docs/LOWERING.md), parameters, dimensions, grid variables,
// buffer strides and the frame allocations of shared and local buffers.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "targets/cpu/cpu_diagnostics.h"
#include "targets/cpu/cpu_target_info.h"
#include "targets/cpu/kernel_emitter.h"

namespace tile_ir::cpu {
namespace {

constexpr uint64_t kFrameAlign = 64;

// Bytes that `elements` elements of `type` occupy in memory.
int64_t StorageBytes(ScalarType type, int64_t elements) {
  if (type == ScalarType::kI4) return (elements + 1) / 2;
  return elements * (DataType(type).bits() / 8);
}

}  // namespace

KernelEmitter::KernelEmitter(const KernelNode& kernel, llvm::Module& module, std::string cpu,
                             std::string features)
    : kernel_(kernel),
      module_(module),
      context_(module.getContext()),
      builder_(module.getContext()),
      cpu_(std::move(cpu)),
      features_(std::move(features)) {}

absl::Status KernelEmitter::Emit() {
  llvm::Type* ptr = llvm::PointerType::getUnqual(context_);
  llvm::Type* i32 = builder_.getInt32Ty();
  auto* type = llvm::FunctionType::get(builder_.getVoidTy(), {ptr, i32, i32, i32}, false);
  function_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, kernel_.name + "_block",
                                     module_);
  function_->addFnAttr(llvm::Attribute::NoUnwind);
  function_->addFnAttr("target-cpu", cpu_);
  function_->addFnAttr("target-features", features_);
  entry_ = llvm::BasicBlock::Create(context_, "entry", function_);
  llvm::BasicBlock* setup = llvm::BasicBlock::Create(context_, "setup", function_);
  builder_.SetInsertPoint(setup);
  EmitPrologue(function_);
  EmitStmt(kernel_.body);
  builder_.CreateRetVoid();
  builder_.SetInsertPoint(entry_);
  builder_.CreateBr(setup);
  if (shared_pool_ != nullptr) {
    shared_pool_->setOperand(0, builder_.getInt64(std::max<int64_t>(shared_pool_bytes_, 1)));
  }
  return error_;
}

void KernelEmitter::EmitPrologue(llvm::Function* function) {
  llvm::Value* args = function->getArg(0);
  args->setName("args");
  llvm::Type* ptr = llvm::PointerType::getUnqual(context_);
  auto arg_pointer = [&](size_t index, const std::string& name) {
    llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(ptr, args, index);
    return builder_.CreateAlignedLoad(ptr, slot, llvm::Align(8), name + ".ptr");
  };
  for (size_t i = 0; i < kernel_.params.size(); ++i) {
    const Param& param = kernel_.params[i];
    llvm::Value* pointer = arg_pointer(i, param.name());
    if (param.is_buffer()) {
      buffers_[param.buffer.get()].base = pointer;
      continue;
    }
    DataType type = param.scalar->dtype();
    llvm::Type* memory = MemoryType(type.scalar());
    llvm::Value* raw = builder_.CreateAlignedLoad(
        memory, pointer, llvm::Align(std::max(1, type.bits() / 8)), param.name());
    // An i4 scalar is passed as an int8_t holding its value.
    vars_[param.scalar.get()] = type.scalar() == ScalarType::kI4
                                    ? builder_.CreateTrunc(raw, RegisterType(type))
                                    : FromMemory(raw, type);
  }
  for (size_t i = 0; i < kernel_.dims.size(); ++i) {
    const VarRef& dim = kernel_.dims[i];
    llvm::Value* pointer = arg_pointer(kernel_.params.size() + i, dim->name);
    vars_[dim.get()] = builder_.CreateAlignedLoad(RegisterType(dim->dtype()), pointer,
                                                  llvm::Align(dim->dtype().bits() / 8), dim->name);
  }
  static constexpr const char* kAxisNames[] = {"bx", "by", "bz"};
  for (size_t axis = 0; axis < 3; ++axis) {
    llvm::Value* index = function->getArg(1 + axis);
    if (axis >= kernel_.launch.grid.size()) {
      index->setName(kAxisNames[axis]);
      continue;
    }
    index->setName(kernel_.launch.grid[axis].var->name);
    vars_[kernel_.launch.grid[axis].var.get()] = index;
  }
  // Shapes may name any dimension or scalar parameter, so strides come last.
  for (const Param& param : kernel_.params) {
    if (param.is_buffer()) buffers_[param.buffer.get()].strides = EmitStrides(*param.buffer);
  }
}

std::vector<llvm::Value*> KernelEmitter::EmitStrides(const BufferNode& buffer) {
  std::vector<llvm::Value*> strides(buffer.rank());
  if (!buffer.strides.empty()) {
    for (int d = 0; d < buffer.rank(); ++d) {
      strides[d] = IntToI64(EmitExpr(buffer.strides[d]), buffer.strides[d]->dtype());
    }
    return strides;
  }
  llvm::Value* stride = builder_.getInt64(1);
  for (int d = buffer.rank() - 1; d >= 0; --d) {
    strides[d] = stride;
    if (d == 0) break;
    stride = OffsetMul(stride, IntToI64(EmitExpr(buffer.shape[d]), buffer.shape[d]->dtype()));
  }
  return strides;
}

void KernelEmitter::EmitAllocate(const Allocate& node) {
  const BufferNode& buffer = *node.buffer;
  std::vector<llvm::Value*> strides = EmitStrides(buffer);
  // Elements spanned: 1 + sum((shape - 1) * stride), or 0 for an empty shape.
  int64_t span = 1;
  for (int d = 0; d < buffer.rank(); ++d) {
    auto* extent = llvm::dyn_cast<llvm::ConstantInt>(
        IntToI64(EmitExpr(buffer.shape[d]), buffer.shape[d]->dtype()));
    auto* stride = llvm::dyn_cast<llvm::ConstantInt>(strides[d]);
    if (extent == nullptr || stride == nullptr) {
      Fail(absl::StrCat("alloc '", buffer.name,
                        "' has a shape or strides that are not constant; the CPU target keeps "
                        "shared and local buffers in the block's frame and needs their size"));
      return;
    }
    if (extent->getSExtValue() <= 0) {
      span = 0;
      break;
    }
    if (extent->getSExtValue() > kCpuMaxBlockFrameBytes * 2 || stride->getSExtValue() < 0 ||
        stride->getSExtValue() > kCpuMaxBlockFrameBytes * 2) {
      span = kCpuMaxBlockFrameBytes * 4;  // too large either way; reported below
      break;
    }
    span += (extent->getSExtValue() - 1) * stride->getSExtValue();
  }
  int64_t bytes = StorageBytes(buffer.dtype.scalar(), span);
  bool pooled = buffer.scope == MemoryScope::kShared && node.shared_offset.has_value();
  int64_t pool_end = pooled ? *node.shared_offset + bytes : 0;
  int64_t frame =
      frame_bytes_ + (pooled ? std::max(shared_pool_bytes_, pool_end) : shared_pool_bytes_ + bytes);
  if (frame > kCpuMaxBlockFrameBytes || (pooled && *node.shared_offset < 0)) {
    Fail(absl::StrCat("alloc '", buffer.name, "' (", bytes, " bytes",
                      pooled ? absl::StrCat(" at shared offset ", *node.shared_offset) : "",
                      ") does not fit the CPU target's ", kCpuMaxBlockFrameBytes,
                      "-byte block frame for shared and local buffers"));
    return;
  }
  llvm::Value* base;
  if (pooled) {
    shared_pool_bytes_ = std::max(shared_pool_bytes_, pool_end);
    base = SharedPoolSlice(*node.shared_offset);
  } else {
    frame_bytes_ += bytes;
    llvm::IRBuilder<> entry(entry_);
    llvm::AllocaInst* alloca =
        entry.CreateAlloca(llvm::ArrayType::get(builder_.getInt8Ty(), std::max<int64_t>(bytes, 1)),
                           nullptr, buffer.name);
    alloca->setAlignment(llvm::Align(kFrameAlign));
    base = alloca;
  }
  buffers_[&buffer] = BufferInfo{base, std::move(strides)};
}

llvm::Value* KernelEmitter::SharedPoolSlice(int64_t offset) {
  if (shared_pool_ == nullptr) {
    llvm::IRBuilder<> entry(entry_);
    // The size is known once every allocation has been seen; Emit() sets it.
    shared_pool_ = entry.CreateAlloca(builder_.getInt8Ty(), builder_.getInt64(1), "shared_pool");
    shared_pool_->setAlignment(llvm::Align(kFrameAlign));
  }
  return builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), shared_pool_, offset);
}

llvm::Value* KernelEmitter::Fail(const std::string& message, llvm::Type* type) {
  if (error_.ok()) {
    error_ = KernelError(absl::StatusCode::kUnimplemented, kernel_,
                         current_stmt_ != nullptr ? current_stmt_->loc() : kernel_.loc, message);
  }
  if (type == nullptr || type->isVoidTy()) return nullptr;
  return llvm::PoisonValue::get(type);
}

}  // namespace tile_ir::cpu
