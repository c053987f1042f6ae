// Loads and stores: element offsets from the buffer's strides, contiguous
// vector accesses for unit-stride ramps, gathers and scatters otherwise,
// masked accesses inside guarded vector selects, and packed i4 nibbles.
#include <algorithm>
#include <optional>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/PatternMatch.h"
#include "targets/cpu/kernel_emitter.h"

namespace tile_ir::cpu {
namespace {

// A ramp with stride 1 reads consecutive elements when the last dimension is
// dense; then the access is one vector load or store.
const Ramp* UnitRamp(const Expr& index) {
  const Ramp* ramp = As<Ramp>(index);
  if (ramp == nullptr) return nullptr;
  std::optional<int64_t> stride = AsConstInt(ramp->stride);
  return stride && *stride == 1 ? ramp : nullptr;
}

llvm::Align ElementAlign(DataType type) { return llvm::Align(std::max(1, type.bits() / 8)); }

}  // namespace

KernelEmitter::BufferInfo& KernelEmitter::buffer_info(const BufferNode& buffer) {
  auto it = buffers_.find(&buffer);
  if (it != buffers_.end()) return it->second;
  llvm::Type* ptr = llvm::PointerType::getUnqual(context_);
  BufferInfo& missing = buffers_[&buffer];
  missing.base = Fail("buffer '" + buffer.name + "' is not declared here", ptr);
  missing.strides.assign(buffer.rank(), builder_.getInt64(1));
  return missing;
}

KernelEmitter::ElementAddress KernelEmitter::EmitAddress(const BufferNode& buffer,
                                                         const std::vector<Expr>& indices,
                                                         int lanes) {
  const std::vector<llvm::Value*>& strides = buffer_info(buffer).strides;
  const Ramp* unit = indices.empty() || lanes == 1 ? nullptr : UnitRamp(indices.back());
  auto* last_stride = strides.empty() ? nullptr : llvm::dyn_cast<llvm::ConstantInt>(strides.back());
  bool contiguous = unit != nullptr && last_stride != nullptr && last_stride->isOne() &&
                    buffer.dtype.scalar() != ScalarType::kI4;
  for (size_t d = 0; contiguous && d + 1 < indices.size(); ++d) {
    contiguous = indices[d]->dtype().lanes() == 1;
  }
  bool per_lane = lanes > 1 && !contiguous;
  llvm::Value* offset = builder_.getInt64(0);
  if (per_lane) offset = builder_.CreateVectorSplat(lanes, offset);
  for (size_t d = 0; d < indices.size(); ++d) {
    const Expr& index = contiguous && d + 1 == indices.size() ? unit->base : indices[d];
    llvm::Value* value = IntToI64(EmitExpr(index), index->dtype());
    llvm::Value* stride = strides[d];
    if (per_lane && !value->getType()->isVectorTy()) {
      value = builder_.CreateVectorSplat(lanes, value);
    }
    if (per_lane) stride = builder_.CreateVectorSplat(lanes, stride);
    offset = OffsetAdd(offset, OffsetMul(value, stride));
  }
  return ElementAddress{offset, contiguous || lanes == 1, lanes};
}

llvm::Value* KernelEmitter::OffsetAdd(llvm::Value* a, llvm::Value* b) {
  using llvm::PatternMatch::m_Zero;
  if (llvm::PatternMatch::match(a, m_Zero())) return b;
  if (llvm::PatternMatch::match(b, m_Zero())) return a;
  return builder_.CreateAdd(a, b, "", false, /*HasNSW=*/true);
}

llvm::Value* KernelEmitter::OffsetMul(llvm::Value* a, llvm::Value* b) {
  using llvm::PatternMatch::m_One;
  if (llvm::PatternMatch::match(a, m_One())) return b;
  if (llvm::PatternMatch::match(b, m_One())) return a;
  return builder_.CreateMul(a, b, "", false, /*HasNSW=*/true);
}

llvm::Value* KernelEmitter::ElementPointer(const BufferNode& buffer, llvm::Value* offset) {
  return builder_.CreateInBoundsGEP(MemoryType(buffer.dtype.scalar()), buffer_info(buffer).base,
                                    offset);
}

llvm::Value* KernelEmitter::LaneOffset(const ElementAddress& address, int lane) {
  if (address.lanes == 1) return address.offset;
  if (address.contiguous) {
    return builder_.CreateAdd(address.offset, builder_.getInt64(lane), "", false, true);
  }
  return builder_.CreateExtractElement(address.offset, lane);
}

llvm::Value* KernelEmitter::EmitLoad(const BufferLoad& load) {
  const BufferNode& buffer = *load.buffer;
  DataType type = load.dtype();
  int lanes = type.lanes();
  llvm::Value* mask = lane_mask_;
  if (mask != nullptr && llvm::cast<llvm::FixedVectorType>(mask->getType())->getNumElements() !=
                             static_cast<unsigned>(lanes)) {
    // A load of another width inside a guarded vector arm runs when any lane is active.
    llvm::Value* any = builder_.CreateOrReduce(mask);
    lane_mask_ = nullptr;
    llvm::Value* value = EmitIf(any, RegisterType(type), [&] { return EmitLoad(load); });
    lane_mask_ = mask;
    return value;
  }
  ElementAddress address = EmitAddress(buffer, load.indices, lanes);
  if (buffer.dtype.scalar() == ScalarType::kI4) return EmitPackedLoad(buffer, address, mask);
  llvm::Type* element = MemoryType(type.scalar());
  llvm::Align align = ElementAlign(buffer.dtype);
  llvm::Value* pointer = ElementPointer(buffer, address.offset);
  llvm::Value* raw;
  if (lanes == 1) {
    raw = builder_.CreateAlignedLoad(element, pointer, align);
  } else {
    llvm::Type* vector = llvm::FixedVectorType::get(element, lanes);
    llvm::Value* zero = llvm::Constant::getNullValue(vector);
    if (address.contiguous) {
      raw = mask == nullptr
                ? static_cast<llvm::Value*>(builder_.CreateAlignedLoad(vector, pointer, align))
                : builder_.CreateMaskedLoad(vector, pointer, align, mask, zero);
    } else {
      raw = builder_.CreateMaskedGather(vector, pointer, align, mask, zero);
    }
  }
  return FromMemory(raw, type);
}

llvm::Value* KernelEmitter::EmitPackedLoad(const BufferNode& buffer, const ElementAddress& address,
                                           llvm::Value* mask) {
  // Byte k/2 holds element k; an odd k is its high nibble.
  llvm::Value* offset = address.offset;
  llvm::Type* offset_type = offset->getType();
  llvm::Value* byte = builder_.CreateAShr(offset, llvm::ConstantInt::get(offset_type, 1));
  llvm::Value* pointer = ElementPointer(buffer, byte);
  llvm::Type* bytes_type = llvm::Type::getInt8Ty(context_);
  llvm::Value* bytes;
  if (address.lanes == 1) {
    bytes = builder_.CreateAlignedLoad(bytes_type, pointer, llvm::Align(1));
  } else {
    bytes_type = llvm::FixedVectorType::get(bytes_type, address.lanes);
    bytes = builder_.CreateMaskedGather(bytes_type, pointer, llvm::Align(1), mask,
                                        llvm::Constant::getNullValue(bytes_type));
  }
  llvm::Value* odd = builder_.CreateAnd(offset, llvm::ConstantInt::get(offset_type, 1));
  llvm::Value* shift = builder_.CreateTrunc(
      builder_.CreateShl(odd, llvm::ConstantInt::get(offset_type, 2)), bytes_type);
  return builder_.CreateTrunc(builder_.CreateLShr(bytes, shift),
                              RegisterType(buffer.dtype.with_lanes(address.lanes)));
}

void KernelEmitter::EmitStore(const Store& store) {
  const BufferNode& buffer = *store.buffer;
  DataType type = store.value->dtype();
  llvm::Value* value = EmitExpr(store.value);
  ElementAddress address = EmitAddress(buffer, store.indices, type.lanes());
  if (buffer.dtype.scalar() == ScalarType::kI4) {
    // Lane by lane: two lanes may share a byte, which a scatter would tear.
    for (int lane = 0; lane < address.lanes; ++lane) {
      llvm::Value* element =
          address.lanes == 1 ? value : builder_.CreateExtractElement(value, lane);
      EmitPackedStore(buffer, LaneOffset(address, lane), element);
    }
    return;
  }
  llvm::Value* raw = ToMemory(value, type);
  llvm::Align align = ElementAlign(buffer.dtype);
  llvm::Value* pointer = ElementPointer(buffer, address.offset);
  if (address.contiguous) {
    builder_.CreateAlignedStore(raw, pointer, align);
  } else {
    // Lanes writing one element are stored in lane order, the last one winning.
    builder_.CreateMaskedScatter(raw, pointer, align);
  }
}

void KernelEmitter::EmitPackedStore(const BufferNode& buffer, llvm::Value* offset,
                                    llvm::Value* value) {
  llvm::Type* i8 = builder_.getInt8Ty();
  llvm::Value* pointer = ElementPointer(buffer, builder_.CreateAShr(offset, 1));
  llvm::Value* shift =
      builder_.CreateTrunc(builder_.CreateShl(builder_.CreateAnd(offset, 1), 2), i8);
  llvm::Value* old = builder_.CreateAlignedLoad(i8, pointer, llvm::Align(1));
  llvm::Value* keep = builder_.CreateNot(builder_.CreateShl(builder_.getInt8(0x0F), shift));
  llvm::Value* nibble = builder_.CreateShl(
      builder_.CreateAnd(builder_.CreateZExt(value, i8), builder_.getInt8(0x0F)), shift);
  builder_.CreateAlignedStore(builder_.CreateOr(builder_.CreateAnd(old, keep), nibble), pointer,
                              llvm::Align(1));
}

}  // namespace tile_ir::cpu
