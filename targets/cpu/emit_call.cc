// Intrinsic calls: the math functions (LLVM intrinsics, f32 exp, exp2, tanh, log, log2 and erf
// in straight-line IR (math_f32.h), or libm for f64 erf and tanh, resolved from the process by
// the JIT), atomic_add_at, atomic_max_at and atomic_min_at as atomicrmw or,
// for the packed and bit-stored types, a compare-exchange loop, reinterpret as a
// bitcast of the values' bits, and the asynchronous-copy markers, which are no-ops.
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "targets/cpu/float_formats.h"
#include "targets/cpu/kernel_emitter.h"
#include "targets/cpu/math_f32.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::cpu {
namespace {

const absl::flat_hash_map<std::string, llvm::Intrinsic::ID>& LlvmMathIntrinsics() {
  static const auto* table = new absl::flat_hash_map<std::string, llvm::Intrinsic::ID>{
      {"exp", llvm::Intrinsic::exp},       {"exp2", llvm::Intrinsic::exp2},
      {"exp2_ftz", llvm::Intrinsic::exp2}, {"log", llvm::Intrinsic::log},
      {"log2", llvm::Intrinsic::log2},     {"sqrt", llvm::Intrinsic::sqrt},
      {"sin", llvm::Intrinsic::sin},       {"cos", llvm::Intrinsic::cos},
      {"floor", llvm::Intrinsic::floor},   {"ceil", llvm::Intrinsic::ceil},
      {"pow", llvm::Intrinsic::pow},       {"fma", llvm::Intrinsic::fma},
      {"abs", llvm::Intrinsic::fabs},
  };
  return *table;
}

bool IsLibmFunction(const std::string& name) { return name == "tanh" || name == "erf"; }

}  // namespace

llvm::Value* KernelEmitter::EmitCall(const Call& call) {
  if (IsAtomicUpdate(call.name)) return EmitAtomicUpdate(call);
  if (call.name == kReinterpret && call.args.size() == 1) {
    // Bit-stored formats (bf16, fp8) live in f32 registers: their bits are their memory form.
    DataType from = call.args[0]->dtype();
    llvm::Value* bits = ToMemory(EmitExpr(call.args[0]), from);
    DataType to = call.dtype();
    llvm::Type* to_bits = RegisterType(to);
    if (IsBitStoredFloat(to.scalar())) {
      to_bits = MemoryType(to.scalar());
      if (to.lanes() > 1) to_bits = llvm::FixedVectorType::get(to_bits, to.lanes());
    }
    return FromMemory(builder_.CreateBitCast(bits, to_bits), to);
  }
  // Copies are synchronous on the CPU: there is never a group to close or wait for.
  if (call.name == "async_commit" || call.name == "async_wait") return nullptr;
  llvm::Type* result_type = RegisterType(call.dtype());
  bool known =
      LlvmMathIntrinsics().contains(call.name) || IsLibmFunction(call.name) || call.name == "rsqrt";
  if (!known || call.args.empty()) {
    return Fail(absl::StrCat("intrinsic '", call.name, "' has no CPU lowering"), result_type);
  }
  DataType type = call.args[0]->dtype();
  std::vector<llvm::Value*> args;
  for (const Expr& arg : call.args) {
    DataType arg_type = arg->dtype();
    if (arg_type.lanes() != type.lanes() && arg_type.lanes() != 1) {
      return Fail(absl::StrCat("intrinsic '", call.name, "' mixes ", type.ToString(), " and ",
                               arg_type.ToString(), " arguments"),
                  result_type);
    }
    llvm::Value* value = EmitCast(EmitExpr(arg), arg_type, type.with_lanes(arg_type.lanes()));
    if (arg_type.lanes() != type.lanes()) value = builder_.CreateVectorSplat(type.lanes(), value);
    args.push_back(value);
  }
  if (!type.is_float()) {
    // abs is the one intrinsic defined on integers; unsigned values are their own.
    if (type.is_unsigned() || type.is_bool()) return args[0];
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, args[0], builder_.getFalse());
  }
  // f16, bf16 and fp8 compute in f32 and round the result once.
  bool native = type.scalar() == ScalarType::kF32 || type.scalar() == ScalarType::kF64;
  if (native) return EmitMath(call.name, args);
  for (llvm::Value*& arg : args) arg = FloatToF32(arg, type);
  return F32ToFloat(EmitMath(call.name, args), type);
}

llvm::Value* KernelEmitter::EmitMath(const std::string& name,
                                     const std::vector<llvm::Value*>& args) {
  llvm::Type* type = args[0]->getType();
  if (name == "rsqrt") {
    llvm::Value* root = builder_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, args[0]);
    return builder_.CreateFDiv(llvm::ConstantFP::get(type, 1.0), root);
  }
  if (type->getScalarType()->isFloatTy()) {
    // LLVM would call libm's exp2f (tanhf, logf, erff) once per lane: these are vector
    // instructions.
    if (name == "exp") return EmitExpF32(builder_, args[0]);
    if (name == "exp2" || name == "exp2_ftz") return EmitExp2F32(builder_, args[0]);
    if (name == "tanh") return EmitTanhF32(builder_, args[0]);
    if (name == "log") return EmitLogF32(builder_, args[0]);
    if (name == "log2") return EmitLog2F32(builder_, args[0]);
    if (name == "erf") return EmitErfF32(builder_, args[0]);
    // sin and cos: both reductions and a select, no branch, so that LLVM's loop vectorizer
    // vectorizes a scalar loop around them as it does the other functions' straight-line code.
    if (name == "sin" || name == "cos") return EmitSinCosF32(builder_, args[0], name == "cos");
  }
  if (IsLibmFunction(name)) return EmitLibmCall(name, args[0]);
  return builder_.CreateIntrinsic(LlvmMathIntrinsics().at(name), {type}, args);
}

llvm::Value* KernelEmitter::EmitLibmCall(const std::string& name, llvm::Value* arg) {
  llvm::Type* type = arg->getType();
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type)) {
    llvm::Value* result = llvm::PoisonValue::get(type);
    for (unsigned lane = 0; lane < vector->getNumElements(); ++lane) {
      llvm::Value* element = EmitLibmCall(name, builder_.CreateExtractElement(arg, lane));
      result = builder_.CreateInsertElement(result, element, lane);
    }
    return result;
  }
  std::string symbol = type->isFloatTy() ? name + "f" : name;
  llvm::FunctionCallee callee =
      module_.getOrInsertFunction(symbol, llvm::FunctionType::get(type, {type}, false));
  auto* function = llvm::dyn_cast<llvm::Function>(callee.getCallee());
  if (function != nullptr && IsLibmFunction(name)) {
    // tanh and erf neither fail nor set errno (sin and cos of an infinity set EDOM).
    function->setDoesNotAccessMemory();
    function->setDoesNotThrow();
    function->setWillReturn();
  }
  return builder_.CreateCall(callee, {arg});
}

llvm::Value* KernelEmitter::EmitAtomicUpdate(const Call& call) {
  llvm::Type* result_type = RegisterType(call.dtype());
  const BufferLoad* target = call.args.size() == 2 ? As<BufferLoad>(call.args[0]) : nullptr;
  if (target == nullptr) {
    return Fail(absl::StrCat(call.name,
                             " takes a buffer element (a load such as C[i]) and the value to "
                             "combine with it"),
                result_type);
  }
  const BinaryOp op = call.name == kAtomicMaxAt   ? BinaryOp::kMax
                      : call.name == kAtomicMinAt ? BinaryOp::kMin
                                                  : BinaryOp::kAdd;
  DataType type = target->dtype();
  DataType value_type = call.args[1]->dtype();
  if (type.is_bool() || value_type.lanes() != type.lanes()) {
    return Fail(absl::StrCat(call.name, " of ", value_type.ToString(), " to an element of '",
                             target->buffer->name, "' (", type.ToString(), ") has no meaning"),
                result_type);
  }
  llvm::Value* value = EmitCast(EmitExpr(call.args[1]), value_type, type);
  ElementAddress address = EmitAddress(*target->buffer, target->indices, type.lanes());
  llvm::Type* element_type = RegisterType(type.element());
  llvm::Value* old = type.lanes() == 1 ? nullptr : llvm::PoisonValue::get(RegisterType(type));
  for (int lane = 0; lane < type.lanes(); ++lane) {
    llvm::Value* offset = LaneOffset(address, lane);
    llvm::Value* operand = type.lanes() == 1 ? value : builder_.CreateExtractElement(value, lane);
    auto update = [&] { return EmitScalarAtomicUpdate(op, *target->buffer, offset, operand); };
    llvm::Value* lane_old;
    if (lane_mask_ == nullptr) {
      lane_old = update();
    } else {
      // Inside a guarded vector select, only the active lanes update.
      llvm::Value* active = type.lanes() == 1 ? builder_.CreateOrReduce(lane_mask_)
                                              : builder_.CreateExtractElement(lane_mask_, lane);
      lane_old = EmitIf(active, element_type, update);
    }
    old = type.lanes() == 1 ? lane_old : builder_.CreateInsertElement(old, lane_old, lane);
  }
  if (call.dtype().is_void()) return nullptr;
  return EmitCast(old, type, call.dtype());
}

llvm::Value* KernelEmitter::EmitScalarAtomicUpdate(BinaryOp op, const BufferNode& buffer,
                                                   llvm::Value* offset, llvm::Value* value) {
  DataType type = buffer.dtype;
  auto ordering = llvm::AtomicOrdering::Monotonic;
  if (type.scalar() == ScalarType::kI4) {
    llvm::Type* i8 = builder_.getInt8Ty();
    llvm::Value* pointer = ElementPointer(buffer, builder_.CreateAShr(offset, 1));
    llvm::Value* shift =
        builder_.CreateTrunc(builder_.CreateShl(builder_.CreateAnd(offset, 1), 2), i8);
    llvm::Value* nibble_mask = builder_.CreateShl(builder_.getInt8(0x0F), shift);
    llvm::Type* i4 = RegisterType(type);
    llvm::Value* old_byte = EmitCompareExchangeLoop(pointer, i8, [&](llvm::Value* current) {
      llvm::Value* nibble = builder_.CreateTrunc(builder_.CreateLShr(current, shift), i4);
      llvm::Value* updated = EmitBinaryOp(op, nibble, value, type);
      llvm::Value* placed = builder_.CreateShl(builder_.CreateZExt(updated, i8), shift);
      return builder_.CreateOr(builder_.CreateAnd(current, builder_.CreateNot(nibble_mask)),
                               placed);
    });
    return builder_.CreateTrunc(builder_.CreateLShr(old_byte, shift), i4);
  }
  llvm::Value* pointer = ElementPointer(buffer, offset);
  llvm::MaybeAlign align(std::max(1, type.bits() / 8));
  if (IsBitStoredFloat(type.scalar())) {
    llvm::Value* old_bits =
        EmitCompareExchangeLoop(pointer, MemoryType(type.scalar()), [&](llvm::Value* current) {
          return ToMemory(EmitBinaryOp(op, FromMemory(current, type), value, type), type);
        });
    return FromMemory(old_bits, type);
  }
  llvm::AtomicRMWInst::BinOp rmw = llvm::AtomicRMWInst::Add;
  if (type.is_float()) {
    rmw = op == BinaryOp::kMax   ? llvm::AtomicRMWInst::FMax
          : op == BinaryOp::kMin ? llvm::AtomicRMWInst::FMin
                                 : llvm::AtomicRMWInst::FAdd;
  } else if (op != BinaryOp::kAdd) {
    bool is_max = op == BinaryOp::kMax;
    if (type.is_unsigned()) {
      rmw = is_max ? llvm::AtomicRMWInst::UMax : llvm::AtomicRMWInst::UMin;
    } else {
      rmw = is_max ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::Min;
    }
  }
  return builder_.CreateAtomicRMW(rmw, pointer, value, align, ordering);
}

llvm::Value* KernelEmitter::EmitCompareExchangeLoop(
    llvm::Value* pointer, llvm::Type* type,
    const std::function<llvm::Value*(llvm::Value*)>& update) {
  llvm::Align align(type->getPrimitiveSizeInBits() / 8);
  auto ordering = llvm::AtomicOrdering::Monotonic;
  llvm::LoadInst* initial = builder_.CreateAlignedLoad(type, pointer, align);
  initial->setAtomic(ordering);
  llvm::BasicBlock* before = builder_.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(context_, "cas.loop", function_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "cas.done", function_);
  builder_.CreateBr(loop);
  builder_.SetInsertPoint(loop);
  llvm::PHINode* current = builder_.CreatePHI(type, 2);
  current->addIncoming(initial, before);
  llvm::Value* exchange =
      builder_.CreateAtomicCmpXchg(pointer, current, update(current), align, ordering, ordering);
  current->addIncoming(builder_.CreateExtractValue(exchange, 0), builder_.GetInsertBlock());
  builder_.CreateCondBr(builder_.CreateExtractValue(exchange, 1), done, loop);
  builder_.SetInsertPoint(done);
  return current;
}

}  // namespace tile_ir::cpu
