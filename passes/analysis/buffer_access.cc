// A visitor that sorts buffer uses into reads and writes by the role of each operand.
#include "passes/analysis/buffer_access.h"

#include "tile_ir/intrinsics.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

class AccessCollector : public IRVisitor {
 public:
  explicit AccessCollector(BufferAccesses& out) : out_(out) {}
  using IRVisitor::Visit;

 protected:
  void VisitBufferLoad(const BufferLoad& node) override {
    out_.reads.insert(node.buffer.get());
    IRVisitor::VisitBufferLoad(node);
  }
  void VisitStore(const Store& node) override {
    out_.writes.insert(node.buffer.get());
    for (const Expr& index : node.indices) Visit(index);
    Visit(node.value);
  }
  void VisitCall(const Call& node) override {
    const IntrinsicInfo* info = FindIntrinsic(node.name);
    const BufferLoad* dst = node.args.empty() ? nullptr : As<BufferLoad>(node.args[0]);
    if (info == nullptr || !(info->async_copy || info->updates_first_arg) || dst == nullptr) {
      IRVisitor::VisitCall(node);
      return;
    }
    out_.writes.insert(dst->buffer.get());
    if (info->async_copy) {
      out_.async_writes.insert(dst->buffer.get());
    } else {
      out_.reads.insert(dst->buffer.get());  // an atomic update reads what it adds to
    }
    for (const Expr& index : dst->indices) Visit(index);
    for (size_t i = 1; i < node.args.size(); ++i) Visit(node.args[i]);
  }
  void VisitAllocate(const Allocate&) override {}
  void VisitCopy(const Copy& node) override {
    Read(node.src);
    Write(node.dst, false);
  }
  void VisitGemm(const Gemm& node) override {
    Read(node.a);
    Read(node.b);
    Write(node.c, true);
  }
  void VisitFill(const Fill& node) override {
    Write(node.dst, false);
    Visit(node.value);
  }
  void VisitReduce(const Reduce& node) override {
    Read(node.src);
    Write(node.dst, !node.clear);
  }
  void VisitAtomicAdd(const AtomicAdd& node) override {
    Read(node.src);
    Write(node.dst, true);
  }
  void VisitCumsum(const Cumsum& node) override {
    Read(node.src);
    Write(node.dst, false);
  }

 private:
  void Read(const Region& region) {
    out_.reads.insert(region.buffer.get());
    VisitRanges(region);
  }
  void Write(const Region& region, bool also_read) {
    out_.writes.insert(region.buffer.get());
    if (also_read) out_.reads.insert(region.buffer.get());
    VisitRanges(region);
  }
  // Region bounds may load (an index read from memory).
  void VisitRanges(const Region& region) {
    for (const Range& range : region.ranges) {
      Visit(range.min);
      Visit(range.extent);
    }
  }

  BufferAccesses& out_;
};

}  // namespace

void CollectAccesses(const Stmt& stmt, BufferAccesses* out) { AccessCollector(*out).Visit(stmt); }

void CollectAccesses(const Expr& expr, BufferAccesses* out) { AccessCollector(*out).Visit(expr); }

}  // namespace tile_ir::passes
