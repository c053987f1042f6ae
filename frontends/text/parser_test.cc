// The parser: the nodes it builds, how names bind, literal types, locations,
// and the limits that keep deep input from overflowing the stack.
#include "frontends/text/parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tile_ir/printer.h"

namespace tile_ir::text {
namespace {

constexpr char kDocExample[] = R"(ir_version 1;
producer "tile-cpp" "0.1.0";

kernel gemm<M: i32, N: i32, K: i32>(A: f16[M, K], B: f16[K, N], C: f32[M, N])
    grid(bx: ceildiv(N, 128), by: ceildiv(M, 128)) threads(128) swizzle(panel=8, order=row) {
  alloc A_s: shared f16[128, 32];
  alloc B_s: shared f16[32, 128];
  alloc C_l: fragment f32[128, 128];
  fill C_l = 0.0;
  for k in 0 +: ceildiv(K, 32) pipelined(num_stages=3) {
    copy A[by * 128 +: 128, k * 32 +: 32] -> A_s;
    copy B[k * 32 +: 32, bx * 128 +: 128] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, bx * 128 +: 128];
}
)";

// A module around `body`, the statements of a kernel with a dim N, a buffer
// A: f32[N] and a scalar s: f32.
std::string InKernel(const std::string& body) {
  return absl::StrCat("ir_version 1;\nproducer \"p\" \"v\";\n\n",
                      "kernel k<N: i32>(A: f32[N], s: f32)\n    grid(bx: 1) threads(32) {\n", body,
                      "}\n");
}

absl::StatusOr<Module> Parse(std::string_view text) { return ParseModule(text, "t.tile"); }

// The first statement of the only kernel of `text`.
Stmt FirstStmt(const absl::StatusOr<Module>& module) {
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  return As<Seq>(module->kernels[0]->body)->stmts[0];
}

// The value stored by `A[0] = EXPR;`.
Expr StoredValue(const std::string& expr) {
  Stmt stmt = FirstStmt(Parse(InKernel(absl::StrCat("  A[0] = ", expr, ";\n"))));
  const auto* store = As<Store>(stmt);
  return store ? store->value : nullptr;
}

std::string ErrorOf(std::string_view text) {
  absl::StatusOr<Module> module = Parse(text);
  return module.ok() ? "(parsed)" : std::string(module.status().message());
}

TEST(ParserTest, ParsesTheDocumentedExample) {
  absl::StatusOr<Module> module = Parse(kDocExample);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(module->ir_version, 1);
  EXPECT_EQ(module->producer, "tile-cpp");
  EXPECT_EQ(module->producer_version, "0.1.0");
  ASSERT_EQ(module->kernels.size(), 1u);
  const KernelNode& kernel = *module->kernels[0];
  EXPECT_EQ(kernel.name, "gemm");
  ASSERT_EQ(kernel.dims.size(), 3u);
  EXPECT_EQ(kernel.dims[2]->name, "K");
  ASSERT_EQ(kernel.params.size(), 3u);
  EXPECT_EQ(kernel.params[0].buffer->dtype, kF16);
  EXPECT_EQ(kernel.params[0].buffer->scope, MemoryScope::kGlobal);
  // Shapes refer to the dims themselves, not to copies with the same name.
  EXPECT_EQ(kernel.params[0].buffer->shape[1], kernel.dims[2]);
  EXPECT_EQ(kernel.launch.grid.size(), 2u);
  EXPECT_EQ(kernel.launch.threads, std::vector<int64_t>{128});
  ASSERT_TRUE(kernel.launch.swizzle.has_value());
  EXPECT_EQ(kernel.launch.swizzle->panel_size, 8);
  EXPECT_EQ(kernel.loc, (SourceLoc{"t.tile", 4, 1}));
  const auto& body = *As<Seq>(kernel.body);
  ASSERT_EQ(body.stmts.size(), 6u);
  const auto* loop = As<For>(body.stmts[4]);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->for_kind, ForKind::kPipelined);
  EXPECT_EQ(loop->pipeline.num_stages, 3);
  EXPECT_EQ(loop->loc(), (SourceLoc{"t.tile", 10, 3}));
  const auto* copy = As<Copy>(As<Seq>(loop->body)->stmts[0]);
  ASSERT_NE(copy, nullptr);
  // The copy's index uses the loop's own variable and the tile buffer declared above.
  const auto* index = As<Binary>(copy->src.ranges[1].min);
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->a, loop->var);
  EXPECT_EQ(copy->dst.buffer, As<Allocate>(body.stmts[0])->buffer);
  // A bare name is the whole buffer.
  EXPECT_EQ(copy->dst.ranges.size(), 2u);
  EXPECT_EQ(AsConstInt(copy->dst.ranges[0].min), 0);
  EXPECT_EQ(AsConstInt(copy->dst.ranges[1].extent), 32);
  const auto* gemm = As<Gemm>(As<Seq>(loop->body)->stmts[2]);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->policy, WarpPolicy::kSquare);
  EXPECT_EQ(Print(*module), kDocExample);
}

TEST(ParserTest, NamesAreDeclaredOncePerKernel) {
  EXPECT_EQ(ErrorOf(InKernel("  for i in 0 +: 4 serial {\n  }\n"
                             "  for i in 0 +: 4 serial {\n  }\n")),
            "t.tile:8:7: error: redeclaration of 'i' (first declared at 6:7; names are declared "
            "once per kernel)");
  EXPECT_EQ(ErrorOf(InKernel("  {\n    let t: f32 = s;\n  }\n  A[0] = t;\n")),
            "t.tile:9:10: error: use of 't' outside the block that declares it (at 7:9)");
  // Another kernel starts afresh.
  std::string two_kernels = InKernel("  let t: f32 = s;\n");
  two_kernels += "\nkernel k2(t: f32)\n    grid(bx: 1) threads(1) {\n}\n";
  EXPECT_TRUE(Parse(two_kernels).ok()) << Parse(two_kernels).status();
}

TEST(ParserTest, ShapesMayUseScalarParametersDeclaredAfterThem) {
  absl::StatusOr<Module> module = Parse(
      "ir_version 1;\nproducer \"p\" \"v\";\n\n"
      "kernel k<M: i32>(A: f32[M, n] strides[n, one], n: i32, one: i32)\n"
      "    grid(bx: n) threads(1) {\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const KernelNode& kernel = *module->kernels[0];
  EXPECT_EQ(kernel.params[0].buffer->shape[1], kernel.params[1].scalar);
  EXPECT_EQ(kernel.params[0].buffer->strides[1], kernel.params[2].scalar);
  EXPECT_EQ(kernel.launch.grid[0].extent, kernel.params[1].scalar);
  // The type written at the declaration is the one the variable has.
  EXPECT_EQ(kernel.params[1].scalar->dtype(), kI32);
}

TEST(ParserTest, NegativeLiteralsNegationAndSubtraction) {
  Expr literal = StoredValue("-3.5");
  ASSERT_NE(As<FloatImm>(literal), nullptr);
  EXPECT_EQ(As<FloatImm>(literal)->value, -3.5);
  EXPECT_EQ(As<Unary>(StoredValue("- 3.5"))->op, UnaryOp::kNeg);
  EXPECT_EQ(As<Unary>(StoredValue("-(3.5)"))->op, UnaryOp::kNeg);
  Expr sub_expr = StoredValue("s -3.5");
  const auto* sub = As<Binary>(sub_expr);
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->op, BinaryOp::kSub);
  EXPECT_EQ(As<FloatImm>(sub->b)->value, 3.5);
  Expr sub_negative_expr = StoredValue("s - -3.5");
  const auto* sub_negative = As<Binary>(sub_negative_expr);
  EXPECT_EQ(As<FloatImm>(sub_negative->b)->value, -3.5);
  Expr negated_negative_expr = StoredValue("-(-3.5)");
  const auto* negated_negative = As<Unary>(negated_negative_expr);
  EXPECT_EQ(As<FloatImm>(negated_negative->a)->value, -3.5);
}

TEST(ParserTest, PrecedenceAndAssociativity) {
  Expr sum_expr = StoredValue("s - s - s");
  const auto* sum = As<Binary>(sum_expr);
  ASSERT_NE(sum, nullptr);
  EXPECT_NE(As<Binary>(sum->a), nullptr) << "left-associative";
  Expr mixed_expr = StoredValue("s + s * s");
  const auto* mixed = As<Binary>(mixed_expr);
  EXPECT_EQ(mixed->op, BinaryOp::kAdd);
  EXPECT_EQ(As<Binary>(mixed->b)->op, BinaryOp::kMul);
  Expr logic = StoredValue("cast<f32>(s < 1.0 || s > 2.0 && !(s == 3.0))");
  const auto* any = As<Binary>(As<Cast>(logic)->value);
  EXPECT_EQ(any->op, BinaryOp::kOr);
  EXPECT_EQ(As<Binary>(any->b)->op, BinaryOp::kAnd);
}

// A version-2 module around `body`, as InKernel.
std::string InVersion2Kernel(const std::string& body) {
  std::string text = InKernel(body);
  return text.replace(text.find("ir_version 1;"), 13, "ir_version 2;");
}

TEST(ParserTest, XorBindsLikeCsCaret) {
  absl::StatusOr<Module> module = Parse(
      InVersion2Kernel("  let c: i32 = N / 8 ^ N % 8 * 8;\n  let d: bool = N ^ 1 == 0 && true;\n"
                       "  let e: u8x4 = broadcast(3_u8, 4) ^ broadcast(255_u8, 4);\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(module->ir_version, 2);
  const auto& stmts = As<Seq>(module->kernels[0]->body)->stmts;
  const auto* swizzle = As<Binary>(As<Let>(stmts[0])->value);
  ASSERT_NE(swizzle, nullptr);
  EXPECT_EQ(swizzle->op, BinaryOp::kXor);
  EXPECT_EQ(As<Binary>(swizzle->a)->op, BinaryOp::kDiv);
  EXPECT_EQ(As<Binary>(swizzle->b)->op, BinaryOp::kMul);
  // Below == and above &&, as in C: (N ^ (1 == 0)) && true. That parses and prints, and is
  // ill-typed (i32 ^ bool), which the verifier, not the parser, refuses.
  const auto* both = As<Binary>(As<Let>(stmts[1])->value);
  ASSERT_EQ(both->op, BinaryOp::kAnd);
  EXPECT_EQ(As<Binary>(both->a)->op, BinaryOp::kXor);
  EXPECT_EQ(As<Binary>(As<Binary>(both->a)->b)->op, BinaryOp::kEq);
  EXPECT_EQ(As<Let>(stmts[2])->value->dtype(), kU8.with_lanes(4));
  EXPECT_EQ(Print(*module), InVersion2Kernel("  let c: i32 = N / 8 ^ N % 8 * 8;\n"
                                             "  let d: bool = N ^ 1 == 0 && true;\n"
                                             "  let e: u8x4 = broadcast(3_u8, 4) ^ "
                                             "broadcast(255_u8, 4);\n"));
}

TEST(ParserTest, XorNeedsVersion2AndVersion1TextPrintsUnchanged) {
  EXPECT_EQ(ErrorOf(InKernel("  let c: i32 = N + 1 ^ 3;\n")),
            "t.tile:6:22: error: '^' needs ir_version 2, but the module declares ir_version 1");
  // A module that uses nothing of version 2 prints as version 1, whatever it declared.
  std::string v1 = InKernel("  let c: i32 = N + 1;\n");
  absl::StatusOr<Module> declared_2 = Parse(InVersion2Kernel("  let c: i32 = N + 1;\n"));
  ASSERT_TRUE(declared_2.ok()) << declared_2.status();
  EXPECT_EQ(declared_2->ir_version, 2);
  EXPECT_EQ(Print(*declared_2), v1);
  EXPECT_EQ(Print(*Parse(v1)), v1);
}

TEST(ParserTest, LiteralTypes) {
  absl::StatusOr<Module> module =
      Parse(InKernel("  let a: i64 = 7_i64;\n  let b: u8 = 255_u8;\n  let c: f16 = 0.5_f16;\n"
                     "  let d: bf16 = -inf_bf16;\n  let e: f64 = nan_f64;\n  let f: bool = true;\n"
                     "  let g: i4 = -8_i4;\n  let h: i32x4 = 1_i32x4;\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& stmts = As<Seq>(module->kernels[0]->body)->stmts;
  auto value = [&](int i) { return As<Let>(stmts[i])->value; };
  EXPECT_EQ(value(0)->dtype(), kI64);
  EXPECT_EQ(AsConstInt(value(1)), 255);
  EXPECT_EQ(value(1)->dtype(), kU8);
  EXPECT_EQ(value(2)->dtype(), kF16);
  EXPECT_EQ(As<FloatImm>(value(3))->value, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(As<FloatImm>(value(4))->value));
  EXPECT_EQ(value(5)->dtype(), kBool);
  EXPECT_EQ(AsConstInt(value(6)), -8);
  EXPECT_EQ(value(7)->dtype(), kI32.with_lanes(4));
}

std::string InVersion7Kernel(const std::string& body) {
  std::string text = InKernel(body);
  return text.replace(text.find("ir_version 1;"), 13, "ir_version 7;");
}

// u16, u32 and u64 (version 7): literals hold 0 to the type's top, u64's stopping at INT64_MAX,
// the largest value an IntImm holds.
TEST(ParserTest, UnsignedLiteralTypes) {
  absl::StatusOr<Module> module = Parse(
      InVersion7Kernel("  let a: u16 = 65535_u16;\n  let b: u32 = 4294967295_u32;\n"
                       "  let c: u64 = 9223372036854775807_u64;\n  let d: u32x4 = 1_u32x4;\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& stmts = As<Seq>(module->kernels[0]->body)->stmts;
  auto value = [&](int i) { return As<Let>(stmts[i])->value; };
  EXPECT_EQ(value(0)->dtype(), kU16);
  EXPECT_EQ(AsConstInt(value(1)), 4294967295);
  EXPECT_EQ(AsConstInt(value(2)), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(value(3)->dtype(), kU32.with_lanes(4));
  EXPECT_EQ(ErrorOf(InVersion7Kernel("  let v: u16 = 65536_u16;\n")),
            "t.tile:6:16: error: integer literal '65536_u16' does not fit in u16 (range 0 to "
            "65535)");
  EXPECT_EQ(ErrorOf(InVersion7Kernel("  let v: u64 = 9223372036854775808_u64;\n")),
            "t.tile:6:16: error: integer literal '9223372036854775808_u64' does not fit in u64 "
            "(range 0 to 9223372036854775807)");
}

// A name that version 7 made a keyword stays a name in a module of an older version, and prints
// renamed, as the printer renames every keyword used as a name.
TEST(ParserTest, ANameThatALaterVersionReservesReadsInAnOlderModule) {
  absl::StatusOr<Module> module =
      Parse(InKernel("  let u32: i32 = N + 1;\n  A[0] = cast<f32>(u32);\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(Print(*module), InKernel("  let u32_: i32 = N + 1;\n  A[0] = cast<f32>(u32_);\n"));
  EXPECT_EQ(ErrorOf(InVersion7Kernel("  let u32: i32 = N + 1;\n")),
            "t.tile:6:7: error: expected a name, found keyword 'u32'");
}

TEST(ParserTest, FloatsReadBackExactly) {
  for (double value : {0.1, 1.0 / 3.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                       -0.0, 123456789.0, 1e20, 6.02214076e23}) {
    SCOPED_TRACE(value);
    Expr printed = Float(value, kF64);
    Expr parsed = StoredValue(Print(printed));
    ASSERT_NE(As<FloatImm>(parsed), nullptr);
    EXPECT_EQ(std::signbit(As<FloatImm>(parsed)->value), std::signbit(value));
    EXPECT_EQ(As<FloatImm>(parsed)->value, value);
    EXPECT_EQ(parsed->dtype(), kF64);
  }
}

TEST(ParserTest, CallsResolveThroughTheRegistry) {
  Expr call = StoredValue("cast<f32>(exp2(0.5_f16))");
  const auto* inner = As<Call>(As<Cast>(call)->value);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->name, "exp2");
  EXPECT_EQ(inner->dtype(), kF16);
  EXPECT_EQ(As<Binary>(As<Cast>(StoredValue("cast<f32>(floormod(N, 3))"))->value)->op,
            BinaryOp::kFloorMod);
  Expr load = StoredValue("A[ramp(0, 2, 4)]");
  const auto* ramp = As<Ramp>(As<BufferLoad>(load)->indices[0]);
  ASSERT_NE(ramp, nullptr);
  EXPECT_EQ(ramp->lanes, 4);
  EXPECT_EQ(load->dtype(), kF32.with_lanes(4));
  EXPECT_EQ(As<Broadcast>(StoredValue("broadcast(s, 8)"))->lanes, 8);
  EXPECT_NE(As<Select>(StoredValue("select(s < 0.0, -s, s)")), nullptr);
}

TEST(ParserTest, StatementsGetTheirPositionOrTheirLocSuffix) {
  absl::StatusOr<Module> module =
      Parse(InKernel("  A[0] = 1.0;\n    barrier(warp) loc(\"gen.py\":41:2);\n"
                     "  for i in 0 +: 2 serial loc(\"gen.py\":42:0) {\n  }\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& stmts = As<Seq>(module->kernels[0]->body)->stmts;
  EXPECT_EQ(stmts[0]->loc(), (SourceLoc{"t.tile", 6, 3}));
  EXPECT_EQ(stmts[1]->loc(), (SourceLoc{"gen.py", 41, 2}));
  EXPECT_EQ(stmts[2]->loc(), (SourceLoc{"gen.py", 42, 0}));
}

// Printed text (a cache artifact) reads back with the locations it printed and no others: its
// own positions would name lines of the printout.
TEST(ParserTest, PrintedTextKeepsOnlyItsLocSuffixes) {
  absl::StatusOr<Module> module = ParsePrintedModule(
      InKernel("  A[0] = 1.0;\n    barrier(warp) loc(\"gen.py\":41:2);\n"), "printed.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& stmts = As<Seq>(module->kernels[0]->body)->stmts;
  EXPECT_EQ(stmts[0]->loc(), SourceLoc{});
  EXPECT_EQ(stmts[1]->loc(), (SourceLoc{"gen.py", 41, 2}));
  EXPECT_EQ(module->kernels[0]->loc, SourceLoc{});
  // Errors still name the text's own place.
  absl::StatusOr<Module> bad = ParsePrintedModule(InKernel("  A[0] = ;\n"), "printed.tile");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("printed.tile:"), std::string::npos) << bad.status();
}

TEST(ParserTest, LayoutInputsAreScopedToTheLayout) {
  absl::StatusOr<Module> module =
      Parse(InKernel("  alloc f: fragment f32[64] layout((i) -> (i % 32, i / 32));\n"
                     "  alloc g: fragment f32[64] layout((i) -> (i, 0));\n"
                     "  for i in 0 +: 64 parallel {\n    f[i] = g[i];\n  }\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& stmts = As<Seq>(module->kernels[0]->body)->stmts;
  const Layout& layout = *As<Allocate>(stmts[0])->buffer->layout;
  ASSERT_EQ(layout.inputs.size(), 1u);
  EXPECT_EQ(As<Binary>(layout.outputs[0])->a, layout.inputs[0]);
}

TEST(ParserTest, ReportsTheFirstProblemWithItsPosition) {
  EXPECT_EQ(ErrorOf(""), "t.tile:1:1: error: expected 'ir_version', found end of input");
  EXPECT_EQ(ErrorOf("ir_version 1;\nproducer \"p\" \"v\";\nkernel"),
            "t.tile:3:7: error: expected a kernel name, found end of input");
  EXPECT_EQ(ErrorOf(InKernel("  A[0] = s\n")), "t.tile:7:1: error: expected ';', found '}'");
  EXPECT_EQ(ErrorOf(InKernel("  let v: f32 = exp(1.0, 2.0);\n")),
            "t.tile:6:16: error: intrinsic 'exp' takes 1 argument, found 2");
  EXPECT_EQ(ErrorOf(InKernel("  let v: f32 = sqr(1.0);\n")),
            "t.tile:6:16: error: unknown intrinsic 'sqr'; did you mean 'sqrt'?");
  EXPECT_EQ(ErrorOf(InKernel("  let v: f32 = zzzzzz(1.0);\n")),
            "t.tile:6:16: error: unknown intrinsic 'zzzzzz' (see tile_ir/intrinsics.h for the "
            "registered ones)");
  EXPECT_EQ(ErrorOf(InKernel("  let v: f32 = 1;\n  let v: f32 = 2;\n")),
            "t.tile:7:7: error: redeclaration of 'v' (first declared at 6:7; names are declared "
            "once per kernel)");
  EXPECT_EQ(ErrorOf(InKernel("  let v: f32 = -1e400;\n")),
            "t.tile:6:16: error: float literal '-1e400' is out of the range of a double");
  EXPECT_EQ(ErrorOf(InKernel("  let v: i8 = -129_i8;\n")),
            "t.tile:6:15: error: integer literal '-129_i8' does not fit in i8 (range -128 to "
            "127)");
  EXPECT_EQ(ErrorOf(InKernel("  let v: i32 = 1.5_i32;\n")),
            "t.tile:6:16: error: a float literal cannot have the type i32");
  EXPECT_EQ(ErrorOf(InKernel("  let v: i32 = 1_xyz;\n")),
            "t.tile:6:16: error: unknown dtype 'xyz' in literal '1_xyz'");
  // Issue 45: a TileLang spelling listed no valid names.
  EXPECT_EQ(ErrorOf(InKernel("  let v: float32 = 1.0;\n")),
            "t.tile:6:10: error: unknown dtype 'float32'; did you mean f32 (TileLang's float32)? "
            "The dtypes are bool, i4, i8, i16, i32, i64, u8, u16, u32, u64, f8e4m3, f8e5m2, f16, "
            "bf16, f32, f64, each with xN for N lanes (f32x4)");
  EXPECT_EQ(ErrorOf(InKernel("  let v: f33 = 1.0;\n")),
            "t.tile:6:10: error: unknown dtype 'f33'; the dtypes are bool, i4, i8, i16, i32, i64, "
            "u8, u16, u32, u64, f8e4m3, f8e5m2, f16, bf16, f32, f64, each with xN for N lanes "
            "(f32x4)");
  EXPECT_EQ(ErrorOf(InKernel("  let v: f32x4 = broadcast(s, 2000);\n")),
            "t.tile:6:31: error: expected a lane count from 1 to 1024, found '2000'");
  EXPECT_EQ(ErrorOf(InKernel("  eval min(1);\n")),
            "t.tile:6:8: error: operator 'min' takes 2 arguments, found 1");
  EXPECT_EQ(ErrorOf(InKernel("  eval for;\n")),
            "t.tile:6:8: error: expected an expression, found keyword 'for'");
  EXPECT_EQ(ErrorOf(InKernel("  eval s[0];\n")), "t.tile:6:9: error: expected ';', found '['");
  EXPECT_EQ(ErrorOf("ir_version 1;\nproducer \"p\" \"v\";\nkernel k() grid() threads(1) {\n"
                    "  for t in 0 +: 4 pipelined(num_stages=2, order=[0], stage=[0.5]) {\n"
                    "  }\n}\n"),
            "t.tile:4:61: error: expected an integer (an integer without a dtype suffix), found "
            "'0.5'");
  EXPECT_EQ(ParseModule("", "").status().message(),
            "<input>:1:1: error: expected 'ir_version', found end of input");
}

std::string Repeat(std::string_view piece, int times) {
  std::string result;
  result.reserve(piece.size() * times);
  for (int i = 0; i < times; ++i) result.append(piece);
  return result;
}

// A long token is cut in its error: a 10^6-digit literal is not repeated whole.
TEST(ParserTest, LongInputIsCutInMessages) {
  const std::string digits(1000000, '9');
  const std::string cut = "9999999999999999999999999999999999999999... (1000000 characters)";
  EXPECT_EQ(ErrorOf(InKernel("  A[0] = " + digits + ";\n")),
            "t.tile:6:10: error: integer literal '" + cut +
                "' does not fit in i32 (range "
                "-2147483648 to 2147483647)");
  EXPECT_EQ(ErrorOf(InKernel("  A[0] = -" + digits + ";\n")),
            "t.tile:6:10: error: integer literal '-999999999999999999999999999999999999999... "
            "(1000001 characters)' does not fit in i32 (range -2147483648 to 2147483647)");
  EXPECT_EQ(ErrorOf(InKernel("  A[0] = " + digits + "e999;\n")),
            "t.tile:6:10: error: float literal '" +
                std::string("9999999999999999999999999999999999999999... (1000004 characters)") +
                "' is out of the range of a double");
  EXPECT_EQ(ErrorOf(InKernel("  let v: f32x4 = broadcast(s, " + digits + ");\n")),
            "t.tile:6:31: error: expected a lane count from 1 to 1024, found '" + cut + "'");
  const std::string name(1000000, 'x');
  EXPECT_EQ(ErrorOf(InKernel("  A[0] = " + name + ";\n")),
            "t.tile:6:10: error: use of undefined name "
            "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (1000000 characters)'");
}

TEST(ParserTest, DeepInputIsAnErrorNotAStackOverflow) {
  constexpr int kHuge = 100000;
  const std::string too_deep = "error: " + NestingTooDeepMessage();
  std::string parens = Repeat("(", kHuge) + "1.0" + Repeat(")", kHuge);
  EXPECT_NE(ErrorOf(InKernel("  A[0] = " + parens + ";\n"))
                .find("error: parentheses, unary operators and blocks nest more than 2000 deep"),
            std::string::npos);

  // The store is at depth 2, so the 998th '+' makes a node at depth 1001.
  std::string chain = "1.0" + Repeat(" + 1.0", kHuge - 1);
  std::string chain_error = ErrorOf(InKernel("  A[0] = " + chain + ";\n"));
  EXPECT_NE(chain_error.find("t.tile:6:5996: " + too_deep), std::string::npos) << chain_error;

  EXPECT_NE(ErrorOf(InKernel("  A[0] = " + Repeat("-", kHuge) + "s;\n")).find(too_deep),
            std::string::npos);
  EXPECT_NE(ErrorOf(InKernel("  A[0] = " + Repeat("!", kHuge) + "true;\n")).find(too_deep),
            std::string::npos);
  EXPECT_NE(ErrorOf(InKernel(Repeat("{", kHuge) + Repeat("}", kHuge))).find(too_deep),
            std::string::npos);
  std::string loops;
  for (int i = 0; i < kHuge / 100; ++i) {
    absl::StrAppend(&loops, "for loop", i, " in 0 +: 1 serial {");
  }
  EXPECT_NE(ErrorOf(InKernel(loops)).find(too_deep), std::string::npos)
      << ErrorOf(InKernel(loops)).substr(0, 200);
  std::string calls = Repeat("abs(", kHuge) + "s" + Repeat(")", kHuge);
  EXPECT_NE(ErrorOf(InKernel("  A[0] = " + calls + ";\n")).find(too_deep), std::string::npos);
  std::string loads = Repeat("A[", kHuge) + "0" + Repeat("]", kHuge);
  EXPECT_NE(ErrorOf(InKernel("  A[0] = " + loads + ";\n")).find(too_deep), std::string::npos);
}

TEST(ParserTest, NestingCountsStatementsAndExpressionsTogether) {
  // Body (1), store (2), then a chain whose deepest leaf is at 2 + terms.
  auto store_of = [](int terms) { return "  A[0] = s" + Repeat(" + s", terms - 1) + ";\n"; };
  EXPECT_EQ(ErrorOf(InKernel(store_of(kMaxNestingDepth - 2))), "(parsed)");
  EXPECT_NE(ErrorOf(InKernel(store_of(kMaxNestingDepth - 1))).find(NestingTooDeepMessage()),
            std::string::npos);
  // The same chain one loop deeper (a loop and its block are two levels).
  auto in_loop = [&](int terms) {
    return "  for i in 0 +: 1 serial {\n" + store_of(terms) + "  }\n";
  };
  EXPECT_EQ(ErrorOf(InKernel(in_loop(kMaxNestingDepth - 4))), "(parsed)");
  EXPECT_NE(ErrorOf(InKernel(in_loop(kMaxNestingDepth - 3))).find(NestingTooDeepMessage()),
            std::string::npos);
  // A leaf alone at the limit: the store's index `0` is at depth 3 in a block at 1.
  std::string blocks =
      Repeat("{", kMaxNestingDepth - 3) + "A[0] = s;" + Repeat("}", kMaxNestingDepth - 3);
  EXPECT_EQ(ErrorOf(InKernel(blocks)), "(parsed)");
  // A call without arguments is a leaf too.
  std::string call = Repeat("{", kMaxNestingDepth - 3) + "eval async_commit();" +
                     Repeat("}", kMaxNestingDepth - 3);
  EXPECT_EQ(ErrorOf(InKernel(call)), "(parsed)");
  EXPECT_NE(ErrorOf(InKernel("{" + call + "}")).find(NestingTooDeepMessage()), std::string::npos);
  EXPECT_NE(ErrorOf(InKernel("{" + blocks + "}")).find(NestingTooDeepMessage()), std::string::npos);
}

TEST(ParserTest, NestingJustBelowTheLimitParsesAndPrints) {
  std::string parens = Repeat("(", 400) + "s" + Repeat(")", 400);
  EXPECT_EQ(Print(StoredValue(parens)), "s");
  std::string chain = "s" + Repeat(" + s", 450);
  Expr sum = StoredValue(chain);
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(Print(sum), chain);
  std::string nested_right = Repeat("s - (", 200) + "s - s" + Repeat(")", 200);
  EXPECT_EQ(Print(StoredValue(nested_right)), nested_right);
}

}  // namespace
}  // namespace tile_ir::text
