// tile-run end to end through its library entry point, with fake devices
// whose kernels are C++ functions over the bound tensors (one on host memory,
// one on memory reached only through copies, like a GPU's) and a small
// operator suite: checking, poisoning, failures, shapes, benches, artifacts,
// the suite table and every command-line error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "runtime/device_base.h"
#include "runtime/host_buffer.h"
#include "runtime/kernel_args.h"
#include "runtime/testing/pass_through_target.h"
#include "tools/tile_run/tile_run_main.h"

namespace tile_ir::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Y = alpha * X under several names; the fake device gets some of them wrong.
std::string ScaleModule(const std::string& name) {
  return absl::StrCat(
      R"(ir_version 1;
producer "test" "1";

kernel )",
      name, R"(<N: i32>(X: f32[N], Y: f32[N], alpha: f32) grid(bx: ceildiv(N, 128)) threads(128) {
}
)");
}

// Memory of a pretend accelerator: kernels see kDLExtDev tensors, and the
// host reaches the data only through copies.
class StagedBuffer final : public runtime::DeviceBuffer {
 public:
  StagedBuffer(DataType dtype, std::vector<int64_t> shape) : memory_(dtype, std::move(shape)) {
    tensor_ = *memory_.AsDLTensor();
    tensor_.device = {kDLExtDev, 0};
  }
  const DLTensor* tensor() const override { return &tensor_; }
  absl::Status CopyFromHost(const runtime::HostBuffer& host) override {
    std::memcpy(memory_.data(), host.data(), host.size_bytes());
    return absl::OkStatus();
  }
  absl::Status CopyToHost(runtime::HostBuffer& host) const override {
    std::memcpy(host.data(), memory_.data(), host.size_bytes());
    return absl::OkStatus();
  }
  absl::Status Fill(uint8_t byte) override {
    memory_.Poison(byte);
    return absl::OkStatus();
  }

 private:
  runtime::HostBuffer memory_;
  DLTensor tensor_;
};

// Computes Y = alpha * X, except: "wrong" adds 1 to element 3 and "lazy"
// leaves element 5 unwritten (poisoned). A staged kernel takes kDLExtDev
// tensors, times itself at 4 ms and keeps artifacts.
class FakeKernel final : public runtime::LoadedKernel {
 public:
  FakeKernel(Module module, bool staged) : module_(std::move(module)), staged_(staged) {}
  const KernelNode& signature() const override { return *module_.kernels.front(); }
  absl::Status Launch(const std::vector<runtime::KernelArg>& args) override {
    absl::StatusOr<runtime::BoundArgs> bound =
        runtime::BindArguments(signature(), args, staged_ ? kDLExtDev : kDLCPU, 1);
    if (!bound.ok()) return bound.status();
    const float* x = static_cast<const float*>(bound->data[0]);
    float* y = static_cast<float*>(bound->data[1]);
    float alpha;
    std::memcpy(&alpha, &bound->scalar_storage[2], sizeof alpha);
    const std::string& name = signature().name;
    for (int64_t i = 0; i < bound->dims[0]; ++i) {
      if (name == "lazy" && i == 5) continue;
      y[i] = alpha * x[i] + (name == "wrong" && i == 3 ? 1.0f : 0.0f);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<double> TimedLaunch(const std::vector<runtime::KernelArg>& args) override {
    if (!staged_) return LoadedKernel::TimedLaunch(args);
    if (absl::Status status = Launch(args); !status.ok()) return status;
    return 0.004;
  }
  std::vector<runtime::KernelArtifact> artifacts() const override {
    if (!staged_) return {};
    return {{"cu", "// " + signature().name}, {"cubin", std::string("\177ELF\0", 5)}};
  }

 private:
  Module module_;
  bool staged_;
};

class FakeDevice final : public runtime::Device {
 public:
  explicit FakeDevice(bool staged)
      : staged_(staged),
        target_(runtime::testing::MakePassThroughTarget(staged ? "staged" : "fake")) {}
  std::string name() const override { return staged_ ? "staged" : "fake"; }
  std::string description() const override {
    return staged_ ? "staged: C++ kernels on copies" : "fake: C++ kernels";
  }
  const targets::Target& target() const override { return *target_; }
  // The pass-through target's module holds only the kernel, as it was written.
  absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> LoadCompiled(
      targets::CompiledKernel compiled) override {
    return std::make_unique<FakeKernel>(std::move(compiled.lowered), staged_);
  }
  absl::StatusOr<std::unique_ptr<runtime::DeviceBuffer>> Allocate(
      DataType dtype, const std::vector<int64_t>& shape) override {
    if (!staged_) return Device::Allocate(dtype, shape);
    return std::make_unique<StagedBuffer>(dtype, shape);
  }

 private:
  bool staged_;
  std::unique_ptr<targets::Target> target_;
};

ops::OpCase ScaleOp(const std::string& name) {
  ops::OpCase op;
  op.name = name;
  op.description = "Y = alpha * X";
  op.build = [name]() -> absl::StatusOr<Kernel> {
    absl::StatusOr<Module> module = text::ParseModule(ScaleModule(name), name + ".tile");
    if (!module.ok()) return module.status();
    return module->kernels.front();
  };
  op.default_shapes = {{"N", 1000}};
  op.ragged_shapes = {{"N", 777}};
  op.scalars = {{"alpha", 2.0}};
  op.outputs = {"Y"};
  op.reference = [](ops::RefTensors& t, const ops::Shapes&,
                    const std::map<std::string, double>& scalars) {
    const std::vector<double>& x = t.at("X").data;
    std::vector<double>& y = t.at("Y").data;
    for (size_t i = 0; i < y.size(); ++i) y[i] = scalars.at("alpha") * x[i];
  };
  op.flops = [](const ops::Shapes& d) { return double(d.at("N")); };
  op.bytes = [](const ops::Shapes& d) { return 8.0 * d.at("N"); };
  return op;
}

const std::vector<ops::OpCase>& TestSuite() {
  static const std::vector<ops::OpCase> suite = {ScaleOp("scale"), ScaleOp("wrong"),
                                                 ScaleOp("lazy")};
  return suite;
}

struct Result {
  int status;
  std::string out;
  std::string err;
};

Result RunTileRun(std::vector<std::string> args, const std::vector<ops::OpCase>* suite = nullptr) {
  args.insert(args.begin(), "tile-run");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  TileRunEnvironment env;
  env.open_device =
      [](std::string_view target) -> absl::StatusOr<std::unique_ptr<runtime::Device>> {
    if (target != "fake" && target != "staged") {
      return absl::NotFoundError("unknown target; known targets: fake, staged");
    }
    return std::make_unique<FakeDevice>(target == "staged");
  };
  env.suite = suite != nullptr ? suite : &TestSuite();
  std::ostringstream out, err;
  int status = TileRunMain(static_cast<int>(argv.size()), argv.data(), out, err, env);
  return {status, out.str(), err.str()};
}

std::string WriteModule(const std::string& stem, const std::string& text) {
  std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", stem, ".tile");
  std::ofstream(path) << text;
  return path;
}

TEST(TileRunTest, HelpAndList) {
  Result help = RunTileRun({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_THAT(help.out, HasSubstr("--check"));
  EXPECT_THAT(help.out, HasSubstr("--ragged"));
  EXPECT_THAT(help.out, HasSubstr("A kernel is matched to its operator by name, then its "
                                  "signature is checked"));
  EXPECT_THAT(help.out, HasSubstr("on standard normal inputs and on the operator's own"));
  Result list = RunTileRun({"--list"});
  EXPECT_EQ(list.status, 0);
  // One block per operator: its signature, then indented "key: value" lines.
  EXPECT_THAT(list.out, HasSubstr("scale(X: f32[N], Y: f32[N], alpha: f32)\n"
                                  "  description: Y = alpha * X\n"
                                  "  default shapes: N=1000\n"
                                  "  ragged shapes: N=777\n"
                                  "  scalars: alpha=2\n"
                                  "  outputs: Y\n"
                                  "  inputs (normal): X N(0, 1)\n"
                                  "  inputs (op ranges): X uniform [-1, 1)\n"
                                  "\n"
                                  "wrong(X: f32[N], Y: f32[N], alpha: f32)\n"));
}

TEST(TileRunTest, CheckPassesAtTheOperatorsDefaultShapes) {
  std::string path = WriteModule("scale", ScaleModule("scale"));
  Result r = RunTileRun({path, "--target=fake", "--check", "--seed=42"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kernel scale from " + path + " on fake: C++ kernels"));
  EXPECT_THAT(r.out, HasSubstr("shapes  N=1000"));
  EXPECT_THAT(r.out, HasSubstr("seed    42\n"
                               "  inputs  normal: X N(0, 1)\n"
                               "          op ranges: X uniform [-1, 1)\n"));
  // Each input case is checked and reported.
  EXPECT_THAT(r.out, HasSubstr("check   Y [normal]: max abs err 0, max rel err 0"));
  EXPECT_THAT(r.out, HasSubstr("check   Y [op ranges]: max abs err 0, max rel err 0"));
  EXPECT_THAT(r.out, HasSubstr("0 of 1000 mismatched, 0 NaN: PASS"));
  EXPECT_THAT(r.out, HasSubstr("PASS (rerun with --seed=42)"));
}

TEST(TileRunTest, AWrongElementFailsAndIsReported) {
  std::string path = WriteModule("wrong", ScaleModule("wrong"));
  Result r = RunTileRun({path, "--target=fake", "--check", "--seed=7"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("worst at [3]"));
  EXPECT_THAT(r.out, HasSubstr("1 of 1000 mismatched, 0 NaN: FAIL"));
  EXPECT_THAT(r.out, HasSubstr("\nFAIL"));
}

TEST(TileRunTest, OutputsArePoisonedSoAnUnwrittenElementIsNaN) {
  std::string path = WriteModule("lazy", ScaleModule("lazy"));
  Result r = RunTileRun({path, "--target=fake", "--check", "--seed=1"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("worst at [5] (got nan"));
  EXPECT_THAT(r.out, HasSubstr("1 of 1000 mismatched, 1 NaN: FAIL"));
}

TEST(TileRunTest, SameSeedSameDataOtherSeedOtherData) {
  std::string path = WriteModule("wrong", ScaleModule("wrong"));
  auto worst = [&](const std::string& seed) {
    Result r = RunTileRun({path, "--target=fake", "--check", "--seed=" + seed});
    size_t at = r.out.find("worst at");
    return r.out.substr(at, r.out.find(')', at) - at);
  };
  EXPECT_EQ(worst("5"), worst("5"));
  EXPECT_NE(worst("5"), worst("6"));
  Result no_seed = RunTileRun({path, "--target=fake", "--check"});
  EXPECT_THAT(no_seed.out, HasSubstr("seed    "));
  EXPECT_THAT(no_seed.out, HasSubstr("(rerun with --seed="));
}

TEST(TileRunTest, ShapesRaggedAndScalars) {
  std::string path = WriteModule("scale", ScaleModule("scale"));
  Result shapes = RunTileRun({path, "--target=fake", "--check", "--shapes", "N=77"});
  EXPECT_EQ(shapes.status, 0) << shapes.err;
  EXPECT_THAT(shapes.out, HasSubstr("shapes  N=77"));
  EXPECT_THAT(shapes.out, HasSubstr("0 of 77 mismatched"));
  Result ragged = RunTileRun({path, "--target=fake", "--check", "--ragged"});
  EXPECT_EQ(ragged.status, 0) << ragged.err;
  EXPECT_THAT(ragged.out, HasSubstr("shapes  N=777"));
  // The reference sees the overridden scalar too.
  Result scalars = RunTileRun({path, "--target=fake", "--check", "--scalars=alpha=-0.5"});
  EXPECT_EQ(scalars.status, 0) << scalars.err;
}

TEST(TileRunTest, BenchReportsTheMedianAndRates) {
  std::string path = WriteModule("scale", ScaleModule("scale"));
  Result r = RunTileRun({path, "--target=fake", "--bench", "--iters=5", "--warmup=1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("over 5 launches"));
  EXPECT_THAT(r.out, HasSubstr("GFLOP/s"));
  EXPECT_THAT(r.out, HasSubstr("GB/s"));
  EXPECT_THAT(r.out, HasSubstr("ran (outputs not checked; --check compares them)"));
}

TEST(TileRunTest, AllPrintsATableAndFailsWhenAnOperatorFails) {
  Result r = RunTileRun({"--all", "--target=fake", "--seed=3"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out,
              HasSubstr("op     shapes  inputs     max abs err  max rel err  verdict  time"));
  EXPECT_THAT(r.out, HasSubstr("scale  N=1000  normal     0            0            PASS"));
  EXPECT_THAT(r.out, HasSubstr("scale  N=1000  op ranges  0            0            PASS\n"));
  EXPECT_THAT(r.out, HasSubstr("problems:\n  wrong: Y [normal]: max abs err 1"));
  EXPECT_THAT(r.out, HasSubstr("\n    Y [op ranges]: max abs err 1"));
  EXPECT_THAT(r.out, HasSubstr("1 of 3 operators passed on fake: C++ kernels (seed 3)"));
  EXPECT_THAT(r.err, HasSubstr("[2/3] wrong"));
  Result ragged = RunTileRun({"--all", "--target=fake", "--ragged", "--bench", "--iters=2"});
  EXPECT_THAT(ragged.out, HasSubstr("scale  N=777"));
  EXPECT_THAT(ragged.out, HasSubstr("median time"));
  std::vector<ops::OpCase> good = {ScaleOp("scale")};
  EXPECT_EQ(RunTileRun({"--all", "--target=fake"}, &good).status, 0);
}

TEST(TileRunTest, DeviceMemoryIsFilledPoisonedAndCopiedBack) {
  std::string path = WriteModule("scale", ScaleModule("scale"));
  Result r = RunTileRun({path, "--target=staged", "--check", "--ragged", "--seed=9"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("0 of 777 mismatched, 0 NaN: PASS"));
  std::string lazy = WriteModule("lazy", ScaleModule("lazy"));
  Result poisoned = RunTileRun({lazy, "--target=staged", "--check", "--seed=1"});
  EXPECT_EQ(poisoned.status, 1);
  EXPECT_THAT(poisoned.out, HasSubstr("worst at [5] (got nan"));
  Result all = RunTileRun({"--all", "--target=staged", "--seed=3"});
  EXPECT_THAT(all.out, HasSubstr("1 of 3 operators passed on staged"));
}

TEST(TileRunTest, BenchUsesTheDevicesClock) {
  std::string path = WriteModule("scale", ScaleModule("scale"));
  Result r = RunTileRun({path, "--target=staged", "--bench", "--iters=3"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("median 4.00 ms over 3 launches"));
}

TEST(TileRunTest, DumpCubinWritesTheArtifacts) {
  std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/dump");
  std::string path = WriteModule("scale", ScaleModule("scale"));
  Result r = RunTileRun({path, "--target=staged", "--dump-cubin=" + dir});
  EXPECT_EQ(r.status, 0) << r.err;
  std::ifstream cu(dir + "/scale.cu");
  std::string source((std::istreambuf_iterator<char>(cu)), std::istreambuf_iterator<char>());
  EXPECT_EQ(source, "// scale");
  std::ifstream cubin(dir + "/scale.cubin", std::ios::binary);
  std::string binary((std::istreambuf_iterator<char>(cubin)), std::istreambuf_iterator<char>());
  EXPECT_EQ(binary, std::string("\177ELF\0", 5));
  Result all = RunTileRun({"--all", "--target=staged", "--dump-cubin=" + dir + "/all"});
  std::ifstream wrong_cu(dir + "/all/wrong.cu");
  EXPECT_TRUE(wrong_cu.good());
  Result host = RunTileRun({path, "--target=fake", "--dump-cubin=" + dir});
  EXPECT_EQ(host.status, 1);
  EXPECT_THAT(host.err, HasSubstr("--dump-cubin: the fake device keeps no compiled code to write"));
  EXPECT_EQ(RunTileRun({path, "--target=staged", "--dump-cubin="}).status, 2);
}

TEST(TileRunTest, KernelsOutsideTheSuiteNeedShapesAndCannotBeChecked) {
  std::string path = WriteModule("mystery", ScaleModule("mystery"));
  Result check = RunTileRun({path, "--target=fake", "--check"});
  EXPECT_EQ(check.status, 2);
  EXPECT_THAT(check.err, HasSubstr("no reference for kernel 'mystery': --check needs an "
                                   "operator-suite entry"));
  Result no_dims = RunTileRun({path, "--target=fake"});
  EXPECT_EQ(no_dims.status, 2);
  EXPECT_THAT(no_dims.err, HasSubstr("no value for dimension 'N' of kernel 'mystery' (it is not "
                                     "in the operator suite); give it with --shapes N=N"));
  Result no_scalar = RunTileRun({path, "--target=fake", "--shapes=N=10"});
  EXPECT_EQ(no_scalar.status, 1);
  EXPECT_THAT(no_scalar.err,
              HasSubstr("kernel 'mystery': no value for the scalar parameter 'alpha'"));
  Result ran = RunTileRun({path, "--target=fake", "--shapes=N=10", "--scalars=alpha=3"});
  EXPECT_EQ(ran.status, 0) << ran.err;
  EXPECT_THAT(ran.out, HasSubstr("ran (outputs not checked)"));
  Result unknown = RunTileRun({path, "--target=fake", "--shapes=N=10,Q=3", "--scalars=alpha=3"});
  EXPECT_EQ(unknown.status, 1);
  EXPECT_THAT(unknown.err, HasSubstr("kernel 'mystery' has no dimension 'Q' (its dimensions: N)"));
}

// A kernel named like an operator but declared otherwise is refused before it
// runs: the reference would read and write the operator's parameters.
TEST(TileRunTest, AKernelNamedLikeAnOperatorMustHaveItsSignature) {
  struct Variant {
    std::string signature;  // replaces "<N: i32>(X: f32[N], Y: f32[N], alpha: f32)"
    std::string difference;
  };
  const std::vector<Variant> variants = {
      {"<N: i32>(Z: f32[N], Y: f32[N], alpha: f32)",
       "it lacks the operator's parameter 'X' (it has 'Z', which the operator lacks)"},
      {"<N: i32>(X: f32[N], Y: f16[N], alpha: f32)",
       "its parameter 'Y' is f16 where the operator's is f32"},
      {"<N: i32>(X: f32[N], Y: f32[64], alpha: f32)",
       "its parameter 'Y' has the shape [64] where the operator's is [N]"},
      {"<N: i32>(X: f32[N], Y: f32[N - 1], alpha: f32)",
       "its parameter 'Y' has the shape [N - 1] where the operator's is [N]"},
      {"<N: i32>(X: f32[N], Y: f32[N, 2], alpha: f32)",
       "its parameter 'Y' has rank 2 ([N, 2]) where the operator's has rank 1 ([N])"},
      {"<N: i32>(X: f32[N], Y: f32[N])", "it lacks the operator's parameter 'alpha'"},
      {"<N: i32>(X: f32[N], Y: f32[N], alpha: f32, beta: f32)",
       "it has the parameter 'beta', which the operator lacks"},
      {"<N: i32>(Y: f32[N], X: f32[N], alpha: f32)",
       "its parameters come in the order (Y, X, alpha) where the operator's are (X, Y, alpha)"},
      {"<N: i32>(X: f32[N], Y: f32[N], alpha: f64)",
       "its parameter 'alpha' is f64 where the operator's is f32"},
      {"<N: i32>(X: f32[N], Y: f32[N], alpha: f32[N])",
       "its parameter 'alpha' is a buffer where the operator's is a scalar (alpha: f32)"},
      {"<N: i32, M: i32>(X: f32[N], Y: f32[M], alpha: f32)",
       "its dimensions are <N: i32, M: i32> where the operator's are <N: i32>"},
  };
  const std::string own = "<N: i32>(X: f32[N], Y: f32[N], alpha: f32)";
  for (const Variant& variant : variants) {
    std::string text = ScaleModule("scale");
    text.replace(text.find(own), own.size(), variant.signature);
    std::string path = WriteModule("variant", text);
    Result check = RunTileRun({path, "--target=fake", "--check", "--seed=1"});
    EXPECT_EQ(check.status, 2) << variant.signature << "\n" << check.out << check.err;
    EXPECT_EQ(check.err, "tile-run: error: " + path +
                             ": kernel 'scale' is named like the suite operator but " +
                             variant.difference +
                             "; --check compares with that operator's reference, so the "
                             "signatures must match (the operator's: scale(X: f32[N], Y: f32[N], "
                             "alpha: f32); rename the kernel to run it outside the suite)\n");
    EXPECT_THAT(check.out, Not(HasSubstr("launch")));
    // Without --check the operator's shapes and inputs would still be used.
    Result run = RunTileRun({path, "--target=fake", "--seed=1"});
    EXPECT_EQ(run.status, 2) << variant.signature;
    EXPECT_THAT(run.err, HasSubstr(variant.difference + "; tile-run runs it with that "
                                                        "operator's shapes, inputs and outputs"));
  }
  // Renamed, the same kernel runs outside the suite.
  std::string renamed = ScaleModule("mine");
  renamed.replace(renamed.find(own), own.size(), "<N: i32>(X: f32[N], Y: f16[N], alpha: f32)");
  Result outside = RunTileRun(
      {WriteModule("mine", renamed), "--target=fake", "--shapes=N=8", "--scalars=alpha=1"});
  EXPECT_EQ(outside.status, 0) << outside.err;
}

TEST(TileRunTest, LaunchErrorsNameTheFileAndKernel) {
  std::string path = WriteModule("scale", ScaleModule("scale"));
  Result r = RunTileRun({path, "--target=fake", "--shapes=N=0"});
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.err,
              HasSubstr(path + ": kernel 'scale': grid axis bx has ceildiv(N, 128) = 0 blocks"));
}

TEST(TileRunTest, CommandLineErrors) {
  std::string path = WriteModule("scale", ScaleModule("scale"));
  EXPECT_THAT(RunTileRun({path, "--target=fake", "--shapes=N"}).err,
              HasSubstr("--shapes: expected NAME=VALUE, got 'N'"));
  EXPECT_THAT(RunTileRun({path, "--target=fake", "--shapes=N=x"}).status, 2);
  EXPECT_THAT(RunTileRun({path, "--target=fake", "--iters=0"}).err,
              HasSubstr("--iters must be an integer >= 1, got '0'"));
  EXPECT_THAT(RunTileRun({path, "--target=fake", "--seed=-1"}).err,
              HasSubstr("--seed must be a non-negative integer"));
  EXPECT_THAT(RunTileRun({path, "--chek"}).err, HasSubstr("did you mean '--check'"));
  EXPECT_EQ(RunTileRun({}).status, 2);
  Result all_with_file = RunTileRun({"--all", path});
  EXPECT_EQ(all_with_file.status, 2);
  EXPECT_THAT(all_with_file.err, HasSubstr("--all runs every operator at its own shapes"));
  Result target = RunTileRun({path, "--target=cuda"});
  EXPECT_EQ(target.status, 1);
  EXPECT_THAT(target.err, HasSubstr("tile-run: error: --target=cuda: unknown target"));
  Result missing = RunTileRun({"/nonexistent/k.tile", "--target=fake"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent/k.tile"));
}

// Every value is checked before anything is compiled or allocated: a dimension against its
// dtype, a name given twice, and the host memory the buffers need.
TEST(TileRunTest, ShapesAndScalarsAreCheckedBeforeAnythingIsAllocated) {
  std::string path = WriteModule("scale", ScaleModule("scale"));
  auto refused = [&path](const std::string& flag) {
    Result r = RunTileRun({path, "--target=fake", flag});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out, "");
    return r.err;
  };
  EXPECT_EQ(refused("--shapes=N=64,N=128"),
            "tile-run: error: --shapes: 'N' is given twice: N=64 and N=128\n");
  EXPECT_EQ(refused("--shapes=N=2147483648"),
            "tile-run: error: --shapes: N=2147483648 is out of range for dimension 'N' of kernel "
            "'scale', whose type i32 holds 0 to 2147483647\n");
  EXPECT_EQ(refused("--shapes=N=99999999999999999999"),
            "tile-run: error: --shapes: N=99999999999999999999 is out of range for dimension 'N' "
            "of kernel 'scale', whose type i32 holds 0 to 2147483647\n");
  EXPECT_EQ(refused("--shapes=N=-1"),
            "tile-run: error: --shapes: N=-1 is out of range for dimension 'N' of kernel 'scale', "
            "whose type i32 holds 0 to 2147483647\n");
  EXPECT_EQ(refused("--shapes=N=" + std::string(1000000, '9')),
            "tile-run: error: --shapes: N=9999999999999999999999999999999999999999... (1000000 "
            "characters) is out of range for dimension 'N' of kernel 'scale', whose type i32 holds "
            "0 to 2147483647\n");
  EXPECT_EQ(refused("--shapes=N=1e3"),
            "tile-run: error: --shapes: N=1e3: the value is not an integer\n");
  EXPECT_EQ(refused("--scalars=alpha=1,alpha=2"),
            "tile-run: error: --scalars: 'alpha' is given twice: alpha=1 and alpha=2\n");
  EXPECT_EQ(refused("--scalars=alpha=two"),
            "tile-run: error: --scalars: alpha=two: the value is not a number\n");

  // Each dimension fits its i32, but no machine holds 2^40-element buffers.
  std::string wide_path = WriteModule("wide", R"(ir_version 1;
producer "test" "1";

kernel wide<M: i32, N: i32>(X: f32[M, N], Y: f32[M, N]) grid(bx: ceildiv(N, 128)) threads(128) {
}
)");
  Result memory = RunTileRun({wide_path, "--target=fake", "--shapes=M=1048576,N=1048576"});
  EXPECT_EQ(memory.status, 2);
  EXPECT_THAT(memory.err,
              HasSubstr(wide_path + ": kernel 'wide' at these shapes needs 24.0 TiB of host memory "
                                    "(each buffer's copy and its float64 reference: X 12.0 TiB, Y "
                                    "12.0 TiB), more than this machine's "));
  EXPECT_THAT(memory.err, HasSubstr("; give smaller --shapes"));
}

TEST(TileRunTest, IntegerScalarsAreCheckedAgainstTheirDtype) {
  std::string module = ScaleModule("count");
  module.replace(module.find("alpha: f32"), 10, "n: i64, k: i8");
  std::string path = WriteModule("count", module);
  auto refused = [&path](const std::string& flag) {
    Result r = RunTileRun({path, "--target=fake", "--shapes=N=4", flag});
    EXPECT_EQ(r.status, 2) << r.out;
    return r.err;
  };
  EXPECT_EQ(refused("--scalars=n=9223372036854775808,k=1"),
            "tile-run: error: --scalars: n=9223372036854775808 is out of range for scalar "
            "parameter 'n' of kernel 'count', whose type i64 holds -9223372036854775808 to "
            "9223372036854775807\n");
  EXPECT_EQ(refused("--scalars=n=1,k=128"),
            "tile-run: error: --scalars: k=128 is out of range for scalar parameter 'k' of kernel "
            "'count', whose type i8 holds -128 to 127\n");
  EXPECT_EQ(refused("--scalars=n=1.5,k=1"),
            "tile-run: error: --scalars: n=1.5 is not an integer, and scalar parameter 'n' of "
            "kernel 'count' is an i64: write an integer, without a point or an exponent\n");
}

TEST(TileRunTest, PicksTheKernelOfAModuleWithSeveral) {
  std::string two = ScaleModule("scale") + "\n" +
                    ScaleModule("wrong").substr(ScaleModule("wrong").find("kernel"));
  std::string path = WriteModule("two", two);
  Result ambiguous = RunTileRun({path, "--target=fake", "--check"});
  EXPECT_EQ(ambiguous.status, 2);
  EXPECT_THAT(ambiguous.err,
              HasSubstr("the module has 2 kernels (scale, wrong); choose one with --kernel"));
  EXPECT_EQ(RunTileRun({path, "--target=fake", "--check", "--kernel=scale"}).status, 0);
  EXPECT_EQ(RunTileRun({path, "--target=fake", "--check", "--kernel=wrong"}).status, 1);
  Result none = RunTileRun({path, "--target=fake", "--kernel=nope"});
  EXPECT_THAT(none.err, HasSubstr("no kernel named 'nope' (kernels: scale, wrong)"));
  EXPECT_THAT(none.out, Not(HasSubstr("PASS")));
}

}  // namespace
}  // namespace tile_ir::tools
