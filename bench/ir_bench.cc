// Front-end throughput: how long a 100,000-statement module takes to go
// through parse + verify + print (text) and load + verify (protobuf).
// Run: bazel run -c opt //bench:ir_bench  (prints a Markdown table).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "frontends/text/parser.h"
#include "tile_ir/buffer.h"
#include "tile_ir/module.h"
#include "tile_ir/printer.h"
#include "tile_ir/serialization.h"
#include "tile_ir/verifier.h"

namespace tile_ir {
namespace {

// A kernel whose body holds `loops` parallel loops of `per_loop` statements:
// lets, loads and stores with index arithmetic, like a lowered element-wise kernel.
Module MakeModule(int loops, int per_loop) {
  VarRef n = Var::Make("N");
  Buffer x = BufferNode::Make("X", kF32, {n}, MemoryScope::kGlobal);
  Buffer y = BufferNode::Make("Y", kF32, {n}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx");
  std::vector<Stmt> body;
  for (int l = 0; l < loops; ++l) {
    VarRef i = Var::Make("loop" + std::to_string(l));
    std::vector<Stmt> stmts;
    for (int s = 0; s + 1 < per_loop; s += 2) {
      VarRef t = Var::Make("t" + std::to_string(l) + "_" + std::to_string(s), kF32);
      Expr index = Binary::Make(BinaryOp::kAdd, Binary::Make(BinaryOp::kMul, bx, Int(128)), i);
      stmts.push_back(Let::Make(t, Binary::Make(BinaryOp::kMul, BufferLoad::Make(x, {index}),
                                                Float(0.5))));
      stmts.push_back(Store::Make(y, {index}, Binary::Make(BinaryOp::kAdd, t, Float(1.0))));
    }
    body.push_back(For::Make(i, Int(0), Int(128), ForKind::kParallel, Seq::Make(stmts)));
  }
  Launch launch;
  launch.grid.push_back({bx, Binary::Make(BinaryOp::kCeilDiv, n, Int(128))});
  launch.threads = {128};
  Module module;
  module.producer = "ir_bench";
  module.producer_version = "1";
  module.kernels.push_back(KernelNode::Make("bench", {n}, {Param{x, nullptr}, Param{y, nullptr}},
                                            launch, Seq::Make(body)));
  return module;
}

// Median wall time of `repeats` runs, in milliseconds.
double MedianMs(int repeats, const std::function<void()>& fn) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int Run() {
  constexpr int kLoops = 1000;
  constexpr int kPerLoop = 100;
  constexpr int kRepeats = 5;
  Module module = MakeModule(kLoops, kPerLoop);
  const int statements = kLoops * (kPerLoop + 1);
  const std::string text = Print(module);
  const std::string bytes = WriteModuleProto(module);
  if (absl::Status s = Verify(module); !s.ok()) {
    std::fprintf(stderr, "ir_bench: generated module does not verify: %s\n",
                 std::string(s.message()).c_str());
    return 1;
  }
  bool ok = true;
  double parse_verify_print = MedianMs(kRepeats, [&] {
    absl::StatusOr<Module> parsed = text::ParseModule(text, "bench.tile");
    ok &= parsed.ok() && Verify(*parsed).ok() && Print(*parsed) == text;
  });
  double parse_only = MedianMs(kRepeats, [&] { ok &= text::ParseModule(text, "bench.tile").ok(); });
  double proto_load_verify = MedianMs(kRepeats, [&] {
    absl::StatusOr<Module> loaded = ReadModuleProto(bytes, "bench.tilepb");
    ok &= loaded.ok() && Verify(*loaded).ok();
  });
  double proto_write = MedianMs(kRepeats, [&] { ok &= !WriteModuleProto(module).empty(); });
  if (!ok) {
    std::fprintf(stderr, "ir_bench: a round trip failed\n");
    return 1;
  }
  std::printf("| step (%d statements, %.1f MB text, %.1f MB proto) | median of %d |\n",
              statements, text.size() / 1e6, bytes.size() / 1e6, kRepeats);
  std::printf("| --- | --- |\n");
  std::printf("| text parse + verify + print | %.1f ms |\n", parse_verify_print);
  std::printf("| text parse alone | %.1f ms |\n", parse_only);
  std::printf("| proto load + verify | %.1f ms |\n", proto_load_verify);
  std::printf("| proto write | %.1f ms |\n", proto_write);
  return 0;
}

}  // namespace
}  // namespace tile_ir

int main() { return tile_ir::Run(); }
