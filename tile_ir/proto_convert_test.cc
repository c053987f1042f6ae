// The in-memory IR <-> tile_ir.v1 conversion: round trips of modules using every node kind,
// name resolution and the errors a malformed message gets.
#include "tile_ir/proto_convert.h"

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "testdata/compat/sample_modules.h"
#include "tile_ir/printer.h"
#include "tile_ir/proto_enums.h"
#include "tile_ir/verifier.h"
#include "tile_ir/version.h"
#include "tile_ir/visitor.h"

namespace tile_ir {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const PrintOptions kWithLocs{.print_locs = true};

Module ReadBack(const Module& module) {
  absl::StatusOr<Module> read = ModuleFromProto(ModuleToProto(module));
  EXPECT_TRUE(read.ok()) << read.status();
  return read.ok() ? *std::move(read) : Module{};
}

std::string Tag(std::string_view kind, std::string_view name) {
  return std::string(kind) + std::string(name);
}

// Collects the declarations and uses of variables and buffers, by identity.
class DeclarationsAndUses : public IRVisitor {
 public:
  void VisitKernel(const KernelNode& kernel) override {
    for (const VarRef& dim : kernel.dims) declared_vars.insert(dim.get());
    for (const Param& param : kernel.params) {
      if (param.is_buffer()) {
        DeclareBuffer(param.buffer);
      } else {
        declared_vars.insert(param.scalar.get());
      }
    }
    for (const GridAxis& axis : kernel.launch.grid) declared_vars.insert(axis.var.get());
    IRVisitor::VisitKernel(kernel);
  }

  absl::flat_hash_set<const Var*> declared_vars, used_vars;
  absl::flat_hash_set<const BufferNode*> declared_buffers, used_buffers;

 protected:
  void VisitVar(const Var& node) override { used_vars.insert(&node); }
  void VisitBufferUse(const Buffer& buffer) override { used_buffers.insert(buffer.get()); }
  void VisitFor(const For& node) override {
    declared_vars.insert(node.var.get());
    IRVisitor::VisitFor(node);
  }
  void VisitLet(const Let& node) override {
    declared_vars.insert(node.var.get());
    IRVisitor::VisitLet(node);
  }
  void VisitAllocate(const Allocate& node) override {
    DeclareBuffer(node.buffer);
    IRVisitor::VisitAllocate(node);
  }

 private:
  void DeclareBuffer(const Buffer& buffer) {
    declared_buffers.insert(buffer.get());
    if (!buffer->layout) return;
    for (const VarRef& input : buffer->layout->inputs) declared_vars.insert(input.get());
    if (buffer->layout->replica) declared_vars.insert(buffer->layout->replica.get());
    for (const Expr& output : buffer->layout->outputs) Visit(output);
  }
};

// Every kind of node and every enum value the samples use, as names.
class Coverage : public IRVisitor {
 public:
  std::set<std::string> seen;

  void Visit(const Expr& e) override {
    seen.insert(Tag("expr:", std::to_string(static_cast<int>(e->kind()))));
    seen.insert(Tag("scalar:", ScalarTypeName(e->dtype().scalar())));
    IRVisitor::Visit(e);
  }
  void Visit(const Stmt& s) override {
    if (s) seen.insert(Tag("stmt:", StmtKindName(s->kind())));
    IRVisitor::Visit(s);
  }

 protected:
  void VisitUnary(const Unary& node) override {
    seen.insert(Tag("unary:", UnaryOpName(node.op)));
    IRVisitor::VisitUnary(node);
  }
  void VisitBinary(const Binary& node) override {
    seen.insert(Tag("binary:", BinaryOpName(node.op)));
    IRVisitor::VisitBinary(node);
  }
  void VisitBufferDecl(const Buffer& buffer) override {
    seen.insert(Tag("scope:", MemoryScopeName(buffer->scope)));
    seen.insert(Tag("scalar:", ScalarTypeName(buffer->dtype.scalar())));
    IRVisitor::VisitBufferDecl(buffer);
  }
  void VisitAllocate(const Allocate& node) override {
    VisitBufferDecl(node.buffer);
    IRVisitor::VisitAllocate(node);
  }
  void VisitFor(const For& node) override {
    seen.insert(Tag("for:", ForKindName(node.for_kind)));
    seen.insert(Tag("axis:", ThreadAxisName(node.thread_axis)));
    IRVisitor::VisitFor(node);
  }
  void VisitBarrier(const Barrier& node) override {
    seen.insert(Tag("barrier:", BarrierScopeName(node.scope)));
  }
  void VisitGemm(const Gemm& node) override {
    seen.insert(Tag("policy:", WarpPolicyName(node.policy)));
    IRVisitor::VisitGemm(node);
  }
  void VisitReduce(const Reduce& node) override {
    seen.insert(Tag("reduce:", ReduceKindName(node.reduce_kind)));
    IRVisitor::VisitReduce(node);
  }
};

TEST(SampleModulesTest, UseEveryNodeKindAndEnumValue) {
  Coverage coverage;
  for (const compat::SampleModule& sample : compat::SampleModules()) {
    for (const Kernel& kernel : sample.module.kernels) {
      coverage.VisitKernel(*kernel);
      for (const Param& param : kernel->params) {
        if (!param.is_buffer()) {
          coverage.seen.insert(Tag("scalar:", ScalarTypeName(param.scalar->dtype().scalar())));
        }
      }
      if (kernel->launch.swizzle) {
        coverage.seen.insert(Tag("swizzle:", SwizzleOrderName(kernel->launch.swizzle->order)));
      }
    }
  }
  std::set<std::string> expected;
  for (int kind = 0; kind <= static_cast<int>(ExprKind::kBroadcast); ++kind) {
    expected.insert(Tag("expr:", std::to_string(kind)));
  }
#define TILE_IR_EXPECT_STMT(Name) expected.insert("stmt:" #Name);
  TILE_IR_FOR_EACH_STMT(TILE_IR_EXPECT_STMT)
#undef TILE_IR_EXPECT_STMT
  // Void is only the type of calls evaluated for their effect, which no builtin intrinsic is.
  for (const auto& m : kScalarTypeMappings) {
    if (m.ir != ScalarType::kVoid) expected.insert(Tag("scalar:", ScalarTypeName(m.ir)));
  }
  for (const auto& m : kUnaryOpMappings) expected.insert(Tag("unary:", UnaryOpName(m.ir)));
  for (const auto& m : kBinaryOpMappings) {
    expected.insert(Tag("binary:", BinaryOpName(m.ir)));
  }
  for (const auto& m : kMemoryScopeMappings) {
    expected.insert(Tag("scope:", MemoryScopeName(m.ir)));
  }
  for (const auto& m : kForKindMappings) expected.insert(Tag("for:", ForKindName(m.ir)));
  for (const auto& m : kThreadAxisMappings) {
    expected.insert(Tag("axis:", ThreadAxisName(m.ir)));
  }
  for (const auto& m : kBarrierScopeMappings) {
    expected.insert(Tag("barrier:", BarrierScopeName(m.ir)));
  }
  for (const auto& m : kWarpPolicyMappings) {
    expected.insert(Tag("policy:", WarpPolicyName(m.ir)));
  }
  for (const auto& m : kReduceKindMappings) {
    expected.insert(Tag("reduce:", ReduceKindName(m.ir)));
  }
  for (const auto& m : kSwizzleOrderMappings) {
    expected.insert(Tag("swizzle:", SwizzleOrderName(m.ir)));
  }
  for (const std::string& item : expected) EXPECT_TRUE(coverage.seen.contains(item)) << item;
}

TEST(SampleModulesTest, AreValid) {
  for (const compat::SampleModule& sample : compat::SampleModules()) {
    EXPECT_TRUE(Verify(sample.module).ok()) << sample.name << ": " << Verify(sample.module);
  }
}

TEST(ProtoConvertTest, RoundTripPrintsTheSameTextWithLocations) {
  for (const compat::SampleModule& sample : compat::SampleModules()) {
    Module read = ReadBack(sample.module);
    EXPECT_EQ(Print(read, kWithLocs), Print(sample.module, kWithLocs)) << sample.name;
    EXPECT_EQ(read.producer, "tile-compat");
    EXPECT_EQ(read.ir_version, RequiredIrVersion(sample.module)) << sample.name;
  }
}

// Version 1 unless the module uses '^' (wherever it is: in a layout as well as in the body),
// 2, or shape requirements, 3, or a replicated layout, 4, or bit operations, 5, or the
// reductions of version 6.
TEST(ProtoConvertTest, WritesTheOldestVersionThatHasEveryFeatureUsed) {
  for (const compat::SampleModule& sample : compat::SampleModules()) {
    EXPECT_EQ(sample.module.ir_version, kIrVersion);
    const int64_t expected = sample.name == "unsigned_words"      ? 7
                             : sample.name == "more_reductions"   ? 6
                             : sample.name == "bit_fields"        ? 5
                             : sample.name == "replicated_layout" ? 4
                             : sample.name == "requirements"      ? 3
                             : sample.name == "swizzle"           ? 2
                                                                  : 1;
    EXPECT_EQ(ModuleToProto(sample.module).ir_version(), expected) << sample.name;
  }
  VarRef li = Var::Make("li");
  Layout swizzle{{li}, {Binary::Make(BinaryOp::kXor, li, Int(8))}};
  Buffer tile = BufferNode::Make("T", kF32, {Int(16)}, MemoryScope::kShared, {}, swizzle);
  Launch launch;
  launch.grid = {{Var::Make("bx"), Int(1)}};
  launch.threads = {32};
  Module module;
  module.kernels = {KernelNode::Make("k", {}, {}, launch, Seq::Make({Allocate::Make(tile)}))};
  EXPECT_EQ(RequiredIrVersion(module), 2);
  EXPECT_EQ(ModuleToProto(module).ir_version(), 2);
  module.ir_version = 1;  // what the module was read as does not matter
  EXPECT_EQ(ModuleToProto(module).ir_version(), 2);
  module.kernels.clear();
  EXPECT_EQ(ModuleToProto(module).ir_version(), 1);
}

TEST(ProtoConvertTest, RoundTripWritesTheSameMessage) {
  for (const compat::SampleModule& sample : compat::SampleModules()) {
    v1::Module written = ModuleToProto(sample.module);
    v1::Module rewritten = ModuleToProto(ReadBack(sample.module));
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(written, rewritten))
        << sample.name;
  }
}

TEST(ProtoConvertTest, EveryUseResolvesToItsDeclaration) {
  for (const compat::SampleModule& sample : compat::SampleModules()) {
    for (const Kernel& kernel : ReadBack(sample.module).kernels) {
      DeclarationsAndUses names;
      names.VisitKernel(*kernel);
      EXPECT_FALSE(names.used_vars.empty());
      for (const Var* var : names.used_vars) {
        EXPECT_TRUE(names.declared_vars.contains(var)) << kernel->name << ": " << var->name;
      }
      for (const BufferNode* buffer : names.used_buffers) {
        EXPECT_TRUE(names.declared_buffers.contains(buffer))
            << kernel->name << ": " << buffer->name;
      }
    }
  }
}

TEST(ProtoConvertTest, MalformedIrWritesWithoutCrashingAndFailsToRead) {
  Buffer out = BufferNode::Make("Out", kF32, {Int(8)}, MemoryScope::kGlobal);
  Launch launch;
  launch.grid = {{nullptr, Int(1)}};
  Module module;
  module.kernels = {
      nullptr,
      KernelNode::Make("k", {nullptr}, {{nullptr, nullptr}}, launch,
                       Seq::Make({Store::Make(nullptr, {nullptr}, nullptr), nullptr,
                                  For::Make(nullptr, Int(0), Int(1), ForKind::kSerial, nullptr)}))};
  absl::StatusOr<Module> read = ModuleFromProto(ModuleToProto(module));
  EXPECT_FALSE(read.ok());
  module.kernels.erase(module.kernels.begin());
  EXPECT_FALSE(ModuleFromProto(ModuleToProto(module)).ok());
}

TEST(ProtoConvertTest, WriterRenamesClashingAndInvalidNames) {
  VarRef first = Var::Make("i"), second = Var::Make("i"), keyword = Var::Make("for");
  Buffer out = BufferNode::Make("Out", kF32, {Int(8)}, MemoryScope::kGlobal);
  Stmt body = Seq::Make({
      For::Make(first, Int(0), Int(8), ForKind::kSerial, Store::Make(out, {first}, Float(1.0))),
      For::Make(second, Int(0), Int(8), ForKind::kSerial, Store::Make(out, {second}, Float(2.0))),
      Let::Make(keyword, Int(3)),
  });
  Launch launch;
  launch.grid = {{Var::Make("bx"), Int(1)}};
  launch.threads = {32};
  Module module;
  module.kernels = {KernelNode::Make("k", {}, {{out, nullptr}}, launch, body)};
  v1::Module proto = ModuleToProto(module);
  const v1::Seq& seq = proto.kernels(0).body().seq();
  EXPECT_EQ(seq.stmts(0).for_().var().name(), "i");
  EXPECT_EQ(seq.stmts(1).for_().var().name(), "i_1");
  EXPECT_EQ(seq.stmts(1).for_().body().store().indices(0).var().name(), "i_1");
  EXPECT_EQ(seq.stmts(2).let().var().name(), "for_");
  EXPECT_TRUE(ModuleFromProto(proto).ok());
}

}  // namespace
}  // namespace tile_ir
