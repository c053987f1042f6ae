// Reading malformed tile_ir.v1 messages: every problem is an error that names the field path,
// the kernel and what was expected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tile_ir/proto_convert.h"

namespace tile_ir {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// kernel k(Out: f32[8], n: i32) grid(bx: 1) threads(32) {
//   for i in 0 +: 8 serial { Out[i] = cast<f32>(n); }
// }
class ProtoReadErrorsTest : public ::testing::Test {
 protected:
  ProtoReadErrorsTest() {
    VarRef n = Var::Make("n"), i = Var::Make("i");
    Buffer out = BufferNode::Make("Out", kF32, {Int(8)}, MemoryScope::kGlobal);
    Stmt loop = For::Make(i, Int(0), Int(8), ForKind::kSerial,
                          Store::Make(out, {i}, Cast::Make(kF32, n)), SourceLoc{"k.tile", 3, 4});
    Launch launch;
    launch.grid = {{Var::Make("bx"), Int(1)}};
    launch.threads = {32};
    Module module;
    module.kernels = {
        KernelNode::Make("k", {}, {{out, nullptr}, {nullptr, n}}, launch, Seq::Make({loop}))};
    proto_ = ModuleToProto(module);
  }

  v1::Kernel& kernel() { return *proto_.mutable_kernels(0); }
  v1::Seq& body() { return *kernel().mutable_body()->mutable_seq(); }
  v1::For& loop() { return *body().mutable_stmts(0)->mutable_for_(); }
  v1::Store& store() { return *loop().mutable_body()->mutable_store(); }

  // The message of reading proto_, which must fail.
  std::string ReadError() {
    absl::StatusOr<Module> module = ModuleFromProto(proto_);
    EXPECT_FALSE(module.ok());
    if (module.ok()) return "";
    EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(module.status().message());
  }

  v1::Module proto_;
};

TEST_F(ProtoReadErrorsTest, TheBaseModuleReads) { EXPECT_TRUE(ModuleFromProto(proto_).ok()); }

TEST_F(ProtoReadErrorsTest, UndeclaredVariableNamesItAndWhere) {
  store().mutable_value()->mutable_cast()->mutable_value()->mutable_var()->set_name("q");
  EXPECT_EQ(ReadError(),
            "kernels[0].body.seq.stmts[0].for.body.store.value.cast.value.var in kernel 'k' at "
            "k.tile:3:4: variable 'q' is not declared before this use");
}

// The body's first use of a block index fails without the launch that declares it: the missing
// launch is named, not the index.
TEST_F(ProtoReadErrorsTest, AKernelWithoutALaunchIsNamedAsSuch) {
  store().mutable_value()->mutable_cast()->mutable_value()->mutable_var()->set_name("bx");
  ASSERT_TRUE(ModuleFromProto(proto_).ok());
  kernel().clear_launch();
  kernel().mutable_loc()->set_file("k.tile");
  kernel().mutable_loc()->set_line(1);
  EXPECT_EQ(ReadError(),
            "kernels[0].launch in kernel 'k' at k.tile:1: the kernel has no launch (its grid, "
            "which declares the block indices, and its threads); its body: "
            "kernels[0].body.seq.stmts[0].for.body.store.value.cast.value.var in kernel 'k' at "
            "k.tile:3:4: variable 'bx' is not declared before this use");
}

TEST_F(ProtoReadErrorsTest, XorInAVersion1ModuleNamesTheVersionItNeeds) {
  proto_.clear_ir_version();  // upgrade.h refuses it; here it reads as version 1
  EXPECT_TRUE(ModuleFromProto(proto_).ok());
  v1::Binary* xor_op = store().mutable_value()->mutable_cast()->mutable_value()->mutable_binary();
  xor_op->set_op(v1::BINARY_OP_XOR);
  xor_op->mutable_a()->mutable_var()->set_name("n");
  xor_op->mutable_b()->mutable_var()->set_name("i");
  proto_.set_ir_version(1);
  EXPECT_EQ(ReadError(),
            "kernels[0].body.seq.stmts[0].for.body.store.value.cast.value.binary.op in kernel 'k' "
            "at k.tile:3:4: BINARY_OP_XOR needs ir_version 2, but the module declares ir_version 1 "
            "(its producer must declare 2 or later)");
  proto_.set_ir_version(2);
  absl::StatusOr<Module> module = ModuleFromProto(proto_);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(module->ir_version, 2);
  // A message upgraded from version 1 is held to what version 1 had.
  EXPECT_THAT(std::string(ModuleFromProto(proto_, 1).status().message()),
              HasSubstr("BINARY_OP_XOR needs ir_version 2, but the module declares ir_version 1"));
}

// The reductions of version 6 are refused in a module that declares version 5, before their
// regions are read.
TEST_F(ProtoReadErrorsTest, BitXorReductionInAVersion5ModuleNamesTheVersionItNeeds) {
  v1::Stmt* reduce = body().add_stmts();
  reduce->mutable_reduce()->set_kind(v1::REDUCE_KIND_BIT_XOR);
  reduce->mutable_loc()->set_file("k.tile");
  reduce->mutable_loc()->set_line(5);
  proto_.set_ir_version(5);
  EXPECT_EQ(ReadError(),
            "kernels[0].body.seq.stmts[1].reduce.kind in kernel 'k' at k.tile:5: "
            "REDUCE_KIND_BIT_XOR needs ir_version 6, but the module declares ir_version 5 (its "
            "producer must declare 6 or later)");
}

// The unsigned types of version 7 are refused in a module that declares version 6, at the
// dtype that names one.
TEST_F(ProtoReadErrorsTest, U32InAVersion6ModuleNamesTheVersionItNeeds) {
  store().mutable_value()->mutable_cast()->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_U32);
  proto_.set_ir_version(6);
  EXPECT_EQ(ReadError(),
            "kernels[0].body.seq.stmts[0].for.body.store.value.cast.dtype.scalar in kernel 'k' at "
            "k.tile:3:4: SCALAR_TYPE_U32 needs ir_version 7, but the module declares ir_version 6 "
            "(its producer must declare 7 or later)");
  proto_.set_ir_version(7);
  EXPECT_TRUE(ModuleFromProto(proto_).ok());
}

// A name that version 7 made a keyword (the dtype u32) stays a name in an older module, which
// could hold it; in a version-7 module it is refused like any keyword.
TEST_F(ProtoReadErrorsTest, ANameThatALaterVersionReservesReadsInAnOlderModule) {
  kernel().mutable_params(1)->mutable_scalar()->set_name("u32");
  store().mutable_value()->mutable_cast()->mutable_value()->mutable_var()->set_name("u32");
  proto_.set_ir_version(6);
  EXPECT_TRUE(ModuleFromProto(proto_).ok());
  proto_.set_ir_version(7);
  EXPECT_THAT(ReadError(), HasSubstr("'u32' is not a valid name"));
}

TEST_F(ProtoReadErrorsTest, UndeclaredBuffer) {
  store().set_buffer("Nope");
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("store.buffer"),
                                 HasSubstr("buffer 'Nope' is not declared before this use")));
}

TEST_F(ProtoReadErrorsTest, UseAfterTheLoopThatDeclaresIt) {
  *body().add_stmts() = body().stmts(0).for_().body();
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("kernels[0].body.seq.stmts[1].store.indices[0].var"),
                                 HasSubstr("variable 'i' is used outside the block or loop "
                                           "that declares it")));
}

TEST_F(ProtoReadErrorsTest, NameDeclaredTwiceInAKernel) {
  *body().add_stmts() = body().stmts(0);
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("stmts[1].for.var"),
                                 HasSubstr("'i' is declared twice in this kernel")));
}

TEST_F(ProtoReadErrorsTest, ShadowingIsRedeclaration) {
  v1::Stmt store_stmt = loop().body();
  v1::Seq* seq = loop().mutable_body()->mutable_seq();
  v1::Let* let = seq->add_stmts()->mutable_let();
  let->mutable_var()->set_name("n");
  let->mutable_var()->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_I32);
  let->mutable_value()->mutable_var()->set_name("i");
  *seq->add_stmts() = store_stmt;
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("for.body.seq.stmts[0].let.var"),
                                 HasSubstr("'n' is declared again while the earlier 'n' is in "
                                           "scope")));
}

TEST_F(ProtoReadErrorsTest, LetIsNotVisibleInItsOwnValue) {
  v1::Let* let = body().add_stmts()->mutable_let();
  let->mutable_var()->set_name("t");
  let->mutable_var()->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_I32);
  let->mutable_value()->mutable_var()->set_name("t");
  EXPECT_THAT(ReadError(), HasSubstr("variable 't' is not declared before this use"));
}

TEST_F(ProtoReadErrorsTest, LetInABranchEndsWithIt) {
  v1::If* branch = body().add_stmts()->mutable_if_();
  branch->mutable_cond()->mutable_int_imm()->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_BOOL);
  v1::Let* let = branch->mutable_then_body()->mutable_let();
  let->mutable_var()->set_name("t");
  let->mutable_var()->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_I32);
  let->mutable_value()->mutable_var()->set_name("n");
  v1::Let* after = body().add_stmts()->mutable_let();
  after->mutable_var()->set_name("u");
  after->mutable_var()->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_I32);
  after->mutable_value()->mutable_var()->set_name("t");
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("stmts[2].let.value.var"),
                                 HasSubstr("variable 't' is used outside")));
}

TEST_F(ProtoReadErrorsTest, BufferWhereAVariableBelongs) {
  store().mutable_indices(0)->mutable_var()->set_name("Out");
  EXPECT_THAT(ReadError(), HasSubstr("'Out' is a buffer where a variable was expected"));
}

TEST_F(ProtoReadErrorsTest, ScalarsAreVisibleInEveryBufferShape) {
  // Out's shape uses n, the parameter after it.
  v1::BufferDecl* out = kernel().mutable_params(0)->mutable_buffer();
  out->mutable_shape(0)->mutable_var()->set_name("n");
  EXPECT_TRUE(ModuleFromProto(proto_).ok());
}

TEST_F(ProtoReadErrorsTest, UnspecifiedEnumListsTheValuesExpected) {
  loop().set_kind(v1::FOR_KIND_UNSPECIFIED);
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("stmts[0].for.kind"),
                                 HasSubstr("FOR_KIND_UNSPECIFIED (unset); expected one of "
                                           "FOR_KIND_SERIAL, FOR_KIND_PARALLEL")));
}

TEST_F(ProtoReadErrorsTest, EnumValueFromANewerSchema) {
  kernel().mutable_params(0)->mutable_buffer()->set_scope(static_cast<v1::MemoryScope>(42));
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("params[0].buffer.scope"),
                                 HasSubstr("unknown MemoryScope value 42")));
}

TEST_F(ProtoReadErrorsTest, DataTypeProblems) {
  v1::Cast* cast = store().mutable_value()->mutable_cast();
  cast->mutable_dtype()->clear_scalar();
  EXPECT_THAT(ReadError(),
              AllOf(HasSubstr("cast.dtype.scalar"), HasSubstr("SCALAR_TYPE_UNSPECIFIED (unset)")));
  cast->clear_dtype();
  EXPECT_THAT(ReadError(),
              AllOf(HasSubstr("cast.dtype in kernel"), HasSubstr(": the dtype is missing")));
  cast->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_F32);
  cast->mutable_dtype()->set_lanes(5000);
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("dtype.lanes in kernel"),
                                 HasSubstr(": 5000 lanes; expected 1 to 1024")));
}

TEST_F(ProtoReadErrorsTest, MissingAndEmptyNodes) {
  store().mutable_value()->Clear();
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("store.value in kernel"),
                                 HasSubstr(": the expression has no node set; expected one of")));
  store().clear_value();
  EXPECT_THAT(ReadError(),
              AllOf(HasSubstr("store.value in kernel"), HasSubstr(": the expression is missing")));
  loop().mutable_body()->Clear();
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("for.body in kernel"),
                                 HasSubstr(": the statement has no node set; expected one of")));
  loop().clear_body();
  EXPECT_THAT(ReadError(),
              AllOf(HasSubstr("for.body in kernel"), HasSubstr(": the statement is missing")));
  kernel().mutable_params(1)->Clear();
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("params[1] in kernel"),
                                 HasSubstr(": the parameter is neither a buffer nor a scalar")));
}

TEST_F(ProtoReadErrorsTest, InvalidNames) {
  loop().mutable_var()->set_name("for");
  EXPECT_THAT(ReadError(),
              AllOf(HasSubstr("for.var.name"), HasSubstr("'for' is not a valid name")));
  kernel().set_name("two words");
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("kernels[0].name"),
                                 HasSubstr("'two words' is not a valid kernel name")));
  // Kernel names only follow `kernel`, so a keyword is a valid one.
  kernel().set_name("gemm");
  loop().mutable_var()->set_name("i");
  EXPECT_TRUE(ModuleFromProto(proto_).ok());
}

TEST_F(ProtoReadErrorsTest, LoopAnnotationsOnlyOnTheirKinds) {
  loop().mutable_pipeline()->set_num_stages(2);
  EXPECT_THAT(ReadError(), HasSubstr("a serial loop has pipeline info"));
  loop().clear_pipeline();
  loop().set_thread_axis(v1::THREAD_AXIS_X);
  EXPECT_THAT(ReadError(), HasSubstr("a serial loop has a thread axis"));
  loop().set_kind(v1::FOR_KIND_THREAD_BOUND);
  EXPECT_TRUE(ModuleFromProto(proto_).ok());
  loop().clear_thread_axis();
  EXPECT_THAT(ReadError(),
              AllOf(HasSubstr("for.thread_axis"), HasSubstr("THREAD_AXIS_UNSPECIFIED (unset)")));
}

TEST_F(ProtoReadErrorsTest, LayoutOutputsSeeOnlyTheirInputs) {
  v1::BufferDecl* tile = body().add_stmts()->mutable_allocate()->mutable_buffer();
  tile->set_name("T");
  tile->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_F32);
  v1::IntImm* extent = tile->add_shape()->mutable_int_imm();
  extent->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_I32);
  extent->set_value(32);
  tile->set_scope(v1::MEMORY_SCOPE_FRAGMENT);
  v1::VarDecl* input = tile->mutable_layout()->add_inputs();
  input->set_name("i");  // the loop's name, out of scope here, and allowed for a layout input
  input->mutable_dtype()->set_scalar(v1::SCALAR_TYPE_I32);
  tile->mutable_layout()->add_outputs()->mutable_var()->set_name("i");
  EXPECT_TRUE(ModuleFromProto(proto_).ok());
  tile->mutable_layout()->add_outputs()->mutable_var()->set_name("n");
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("allocate.buffer.layout.outputs[1].var"),
                                 HasSubstr("variable 'n' is not an input of this layout")));
}

TEST_F(ProtoReadErrorsTest, NegativeLocation) {
  body().mutable_stmts(0)->mutable_loc()->set_line(-2);
  EXPECT_THAT(ReadError(), AllOf(HasSubstr("stmts[0].loc in kernel"),
                                 HasSubstr(": line -2, column 4: expected 0 (unknown)")));
}

// Wraps the store's value in `depth` negations.
void NestValue(v1::Store& store, int depth) {
  v1::Expr* e = store.mutable_value();
  v1::Expr innermost = *e;
  for (int i = 0; i < depth; ++i) {
    v1::Unary* unary = e->mutable_unary();
    unary->set_op(v1::UNARY_OP_NEG);
    e = unary->mutable_a();
  }
  *e = innermost;
}

TEST_F(ProtoReadErrorsTest, NestingUpToTheLimitReads) {
  // The body, the loop, the block the text form writes around its lone store, and the store
  // are four levels, the cast and its operand two more.
  NestValue(store(), kMaxNestingDepth - 6);
  EXPECT_TRUE(ModuleFromProto(proto_).ok());
}

TEST_F(ProtoReadErrorsTest, NestingPastTheLimitIsAnError) {
  NestValue(store(), kMaxNestingDepth - 5);
  // The path keeps its ends.
  EXPECT_THAT(ReadError(),
              AllOf(HasSubstr("kernels[0].body.seq.stmts[0].for.body.(1986 more).unary.a"),
                    HasSubstr("statements and expressions nest more than 1000 deep")));
}

}  // namespace
}  // namespace tile_ir
