// A sequential reference interpreter for lowered statements.
#include "passes/testing/tiny_interpreter.h"

#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::passes::testing {
namespace {

absl::Status Unsupported(absl::string_view what) {
  return absl::UnimplementedError(absl::StrCat("the tiny interpreter cannot run ", what));
}

double Round(double value, DataType dtype) {
  if (dtype.is_bool()) return value != 0 ? 1 : 0;
  if (dtype.is_int()) return std::trunc(value);
  return value;
}

}  // namespace

void TinyInterpreter::SetBuffer(const std::string& name, std::vector<double> values) {
  buffers_[name] = std::move(values);
}

void TinyInterpreter::SetInt(const std::string& name, int64_t value) {
  vars_[name] = static_cast<double>(value);
}

absl::Status TinyInterpreter::Run(const KernelNode& kernel) {
  for (const Param& param : kernel.params) {
    if (!param.is_buffer() || buffers_.contains(param.name())) continue;
    if (absl::Status status = Exec(Allocate::Make(param.buffer)); !status.ok()) return status;
  }
  return Exec(kernel.body);
}

absl::StatusOr<int64_t> TinyInterpreter::Offset(const BufferNode& buffer,
                                                const std::vector<Expr>& indices) {
  int64_t offset = 0;
  for (int d = 0; d < buffer.rank(); ++d) {
    absl::StatusOr<double> size = Eval(buffer.shape[d]);
    absl::StatusOr<double> index = Eval(indices[d]);
    if (!size.ok()) return size.status();
    if (!index.ok()) return index.status();
    if (*index < 0 || *index >= *size) {
      return absl::OutOfRangeError(absl::StrCat("index ", *index, " of dimension ", d, " of '",
                                                buffer.name, "' is outside [0, ", *size, ")"));
    }
    offset = offset * static_cast<int64_t>(*size) + static_cast<int64_t>(*index);
  }
  auto it = buffers_.find(buffer.name);
  if (it == buffers_.end())
    return absl::NotFoundError(absl::StrCat("no buffer '", buffer.name, "'"));
  if (offset >= static_cast<int64_t>(it->second.size())) {
    return absl::OutOfRangeError(absl::StrCat("'", buffer.name, "' holds too few values"));
  }
  return offset;
}

absl::Status TinyInterpreter::Exec(const Stmt& s) {
  if (s == nullptr) return absl::OkStatus();
  if (const Seq* seq = As<Seq>(s)) {
    for (const Stmt& child : seq->stmts) {
      if (absl::Status status = Exec(child); !status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (const For* loop = As<For>(s)) {
    absl::StatusOr<double> min = Eval(loop->min);
    absl::StatusOr<double> extent = Eval(loop->extent);
    if (!min.ok()) return min.status();
    if (!extent.ok()) return extent.status();
    for (double i = *min; i < *min + *extent; ++i) {
      vars_[loop->var->name] = i;
      if (absl::Status status = Exec(loop->body); !status.ok()) return status;
    }
    return absl::OkStatus();
  }
  if (const If* branch = As<If>(s)) {
    absl::StatusOr<double> cond = Eval(branch->cond);
    if (!cond.ok()) return cond.status();
    return Exec(*cond != 0 ? branch->then_body : branch->else_body);
  }
  if (const Let* let = As<Let>(s)) {
    absl::StatusOr<double> value = Eval(let->value);
    if (!value.ok()) return value.status();
    vars_[let->var->name] = *value;
    return absl::OkStatus();
  }
  if (const Allocate* alloc = As<Allocate>(s)) {
    double count = 1;
    for (const Expr& size : alloc->buffer->shape) {
      absl::StatusOr<double> value = Eval(size);
      if (!value.ok()) return value.status();
      count *= *value;
    }
    buffers_[alloc->buffer->name] =
        std::vector<double>(static_cast<size_t>(count), std::numeric_limits<double>::quiet_NaN());
    return absl::OkStatus();
  }
  if (const Store* store = As<Store>(s)) {
    absl::StatusOr<double> value = Eval(store->value);
    absl::StatusOr<int64_t> offset = Offset(*store->buffer, store->indices);
    if (!value.ok()) return value.status();
    if (!offset.ok()) return offset.status();
    buffers_[store->buffer->name][*offset] = Round(*value, store->buffer->dtype);
    return absl::OkStatus();
  }
  if (const Evaluate* eval = As<Evaluate>(s)) {
    const Call* call = As<Call>(eval->value);
    const BufferLoad* address = call ? As<BufferLoad>(call->args[0]) : nullptr;
    if (call == nullptr || call->name != kAtomicAddAt || address == nullptr) {
      return Unsupported("this evaluation");
    }
    absl::StatusOr<double> value = Eval(call->args[1]);
    absl::StatusOr<int64_t> offset = Offset(*address->buffer, address->indices);
    if (!value.ok()) return value.status();
    if (!offset.ok()) return offset.status();
    buffers_[address->buffer->name][*offset] += *value;
    return absl::OkStatus();
  }
  return Unsupported(absl::StrCat("a ", std::string(StmtKindName(s->kind())), " statement"));
}

absl::StatusOr<double> TinyInterpreter::Eval(const Expr& e) {
  if (const IntImm* imm = As<IntImm>(e)) return static_cast<double>(imm->value);
  if (const FloatImm* imm = As<FloatImm>(e)) return imm->value;
  if (const Var* var = As<Var>(e)) {
    auto it = vars_.find(var->name);
    if (it == vars_.end())
      return absl::NotFoundError(absl::StrCat("no value for '", var->name, "'"));
    return it->second;
  }
  if (const Cast* cast = As<Cast>(e)) {
    absl::StatusOr<double> value = Eval(cast->value);
    if (!value.ok()) return value;
    return Round(*value, cast->dtype());
  }
  if (const Select* select = As<Select>(e)) {
    absl::StatusOr<double> cond = Eval(select->cond);
    absl::StatusOr<double> t = Eval(select->true_value);
    absl::StatusOr<double> f = Eval(select->false_value);
    if (!cond.ok()) return cond;
    if (!t.ok()) return t;
    if (!f.ok()) return f;
    return *cond != 0 ? *t : *f;
  }
  if (const BufferLoad* load = As<BufferLoad>(e)) {
    absl::StatusOr<int64_t> offset = Offset(*load->buffer, load->indices);
    if (!offset.ok()) return offset.status();
    return buffers_[load->buffer->name][*offset];
  }
  if (const Call* call = As<Call>(e); call != nullptr && call->name == "abs") {
    absl::StatusOr<double> value = Eval(call->args[0]);
    if (!value.ok()) return value;
    return std::fabs(*value);
  }
  if (const Unary* unary = As<Unary>(e)) {
    absl::StatusOr<double> a = Eval(unary->a);
    if (!a.ok()) return a;
    return unary->op == UnaryOp::kNeg ? -*a : (*a == 0 ? 1.0 : 0.0);
  }
  const Binary* binary = As<Binary>(e);
  if (binary == nullptr) return Unsupported("this expression");
  absl::StatusOr<double> a = Eval(binary->a);
  absl::StatusOr<double> b = Eval(binary->b);
  if (!a.ok()) return a;
  if (!b.ok()) return b;
  bool is_int = binary->a->dtype().is_int();
  double x = *a;
  double y = *b;
  switch (binary->op) {
    case BinaryOp::kAdd:
      return x + y;
    case BinaryOp::kSub:
      return x - y;
    case BinaryOp::kMul:
      return x * y;
    case BinaryOp::kDiv:
      return is_int ? std::trunc(x / y) : x / y;
    case BinaryOp::kMod:
      return std::fmod(x, y);
    case BinaryOp::kFloorDiv:
      return std::floor(x / y);
    case BinaryOp::kFloorMod:
      return x - std::floor(x / y) * y;
    case BinaryOp::kCeilDiv:
      return std::ceil(x / y);
    case BinaryOp::kMin:
      return std::fmin(x, y);
    case BinaryOp::kMax:
      return std::fmax(x, y);
    case BinaryOp::kEq:
      return x == y;
    case BinaryOp::kNe:
      return x != y;
    case BinaryOp::kLt:
      return x < y;
    case BinaryOp::kLe:
      return x <= y;
    case BinaryOp::kGt:
      return x > y;
    case BinaryOp::kGe:
      return x >= y;
    case BinaryOp::kAnd:
      return x != 0 && y != 0;
    case BinaryOp::kOr:
      return x != 0 || y != 0;
    case BinaryOp::kXor:
      if (!is_int) return Unsupported("xor of non-integers");
      return static_cast<double>(static_cast<int64_t>(x) ^ static_cast<int64_t>(y));
  }
  return Unsupported("this operator");
}

}  // namespace tile_ir::passes::testing
