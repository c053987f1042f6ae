// Statements: blocks, counted loops (with llvm.loop hints for vectorized and
// unrolled loops), if, let, allocations, stores, barriers and evaluations.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"
#include "targets/cpu/kernel_emitter.h"

namespace tile_ir::cpu {

void KernelEmitter::EmitStmt(const Stmt& stmt) {
  if (!error_.ok()) return;
  const StmtNode* outer = current_stmt_;
  current_stmt_ = stmt.get();
  switch (stmt->kind()) {
    case StmtKind::kSeq:
      for (const Stmt& child : static_cast<const Seq&>(*stmt).stmts) EmitStmt(child);
      break;
    case StmtKind::kFor:
      EmitFor(static_cast<const For&>(*stmt));
      break;
    case StmtKind::kIf:
      EmitIfStmt(static_cast<const If&>(*stmt));
      break;
    case StmtKind::kLet: {
      const auto& let = static_cast<const Let&>(*stmt);
      llvm::Value* value = EmitExpr(let.value);
      if (llvm::isa<llvm::Instruction>(value) && !value->hasName()) value->setName(let.var->name);
      vars_[let.var.get()] = value;
      break;
    }
    case StmtKind::kAllocate:
      EmitAllocate(static_cast<const Allocate&>(*stmt));
      break;
    case StmtKind::kStore:
      EmitStore(static_cast<const Store&>(*stmt));
      break;
    case StmtKind::kBarrier:
      // One core runs the whole block in program order; CheckCpuThreadLevel
      // has rejected barriers inside thread_bound loops, the only ones that
      // would order anything.
      break;
    case StmtKind::kEvaluate:
      EmitExpr(static_cast<const Evaluate&>(*stmt).value);
      break;
    default:
      Fail(absl::StrCat("tile operation '", std::string(StmtKindName(stmt->kind())),
                        "' is not thread-level"));
      break;
  }
  current_stmt_ = outer;
}

void KernelEmitter::EmitFor(const For& loop) {
  DataType type = loop.var->dtype();
  bool is_unsigned = type.is_unsigned();
  bool nsw = type.scalar() == ScalarType::kI32 || type.scalar() == ScalarType::kI64;
  llvm::Value* min = EmitExpr(loop.min);
  llvm::Value* end = builder_.CreateAdd(min, EmitExpr(loop.extent), "", false, nsw);
  llvm::BasicBlock* preheader = builder_.GetInsertBlock();
  std::string name = loop.var->name;
  llvm::BasicBlock* header = llvm::BasicBlock::Create(context_, name + ".header", function_);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(context_, name + ".body", function_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context_, name + ".exit", function_);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* var = builder_.CreatePHI(min->getType(), 2, name);
  var->addIncoming(min, preheader);
  llvm::Value* more =
      is_unsigned ? builder_.CreateICmpULT(var, end) : builder_.CreateICmpSLT(var, end);
  builder_.CreateCondBr(more, body, exit);
  builder_.SetInsertPoint(body);
  vars_[loop.var.get()] = var;
  EmitStmt(loop.body);
  llvm::Value* next = builder_.CreateAdd(var, llvm::ConstantInt::get(var->getType(), 1),
                                         name + ".next", !nsw && is_unsigned, nsw);
  var->addIncoming(next, builder_.GetInsertBlock());
  llvm::BranchInst* latch = builder_.CreateBr(header);
  if (llvm::MDNode* metadata = LoopMetadata(loop)) {
    latch->setMetadata(llvm::LLVMContext::MD_loop, metadata);
  }
  builder_.SetInsertPoint(exit);
}

llvm::MDNode* KernelEmitter::LoopMetadata(const For& loop) {
  auto flag = [&](const char* name) {
    return llvm::MDNode::get(context_, {llvm::MDString::get(context_, name),
                                        llvm::ConstantAsMetadata::get(builder_.getTrue())});
  };
  llvm::MDNode* hint = nullptr;
  if (loop.for_kind == ForKind::kVectorized) {
    hint = flag("llvm.loop.vectorize.enable");
  } else if (loop.for_kind == ForKind::kUnrolled) {
    // A constant trip count unrolls fully; otherwise LLVM picks the factor.
    bool full = AsConstInt(loop.extent).has_value();
    hint = llvm::MDNode::get(
        context_, {llvm::MDString::get(
                      context_, full ? "llvm.loop.unroll.full" : "llvm.loop.unroll.enable")});
  } else {
    return nullptr;  // serial and thread_bound loops: LLVM decides
  }
  // A loop ID is a distinct node whose first operand is itself.
  llvm::TempMDTuple placeholder = llvm::MDNode::getTemporary(context_, {});
  llvm::MDNode* id = llvm::MDNode::getDistinct(context_, {placeholder.get(), hint});
  id->replaceOperandWith(0, id);
  return id;
}

void KernelEmitter::EmitIfStmt(const If& node) {
  llvm::Value* cond = EmitExpr(node.cond);
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "if.then", function_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "if.done", function_);
  llvm::BasicBlock* else_block =
      node.else_body ? llvm::BasicBlock::Create(context_, "if.else", function_) : done;
  builder_.CreateCondBr(cond, then_block, else_block);
  builder_.SetInsertPoint(then_block);
  size_t mark = guard_facts_.Assume(node.cond);
  EmitStmt(node.then_body);
  guard_facts_.Forget(mark);
  builder_.CreateBr(done);
  if (node.else_body) {
    builder_.SetInsertPoint(else_block);
    EmitStmt(node.else_body);
    builder_.CreateBr(done);
  }
  builder_.SetInsertPoint(done);
}

}  // namespace tile_ir::cpu
