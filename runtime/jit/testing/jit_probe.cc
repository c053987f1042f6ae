// A process that calls one kernel through the JIT cache, for tests of what
// several processes sharing $TILE_CACHE_DIR see: add_f32 of the operator
// suite, specialized with every dimension static (--static) or none, at
// --shape=M,N. Prints "source=<memory|disk|remote|compiled> key=<key>
// compiles=N disk_hits=N refused=N remote_hits=N" and exits 1 unless
// C == A + B.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "runtime/host_buffer.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/kernel_cache.h"
#include "runtime/jit/specializer.h"
#include "ops/op_suite.h"

using namespace tile_ir;
using namespace tile_ir::runtime;
using namespace tile_ir::runtime::jit;

int main(int argc, char** argv) {
  int64_t m = 70, n = 300;
  bool all_static = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--static") all_static = true;
    if (arg.rfind("--shape=", 0) == 0) {
      std::vector<std::string> parts = absl::StrSplit(arg.substr(8), ',');
      if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &m) ||
          !absl::SimpleAtoi(parts[1], &n)) {
        std::cerr << "bad --shape\n";
        return 2;
      }
    }
  }
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = OpenJitBackend("cpu");
  if (!backend.ok()) {
    std::cerr << backend.status() << "\n";
    return 1;
  }
  KernelCache cache(**backend, KernelCacheOptions::FromEnvironment());
  const ops::OpCase* op = ops::FindOp("add_f32");
  KernelTemplate t;
  t.kernel_name = "add_f32";
  t.all_static = all_static;
  t.build = [op](const TemplateArgs&) -> absl::StatusOr<Module> {
    absl::StatusOr<Kernel> kernel = op->build();
    if (!kernel.ok()) return kernel.status();
    return Module{kIrVersion, "jit_probe", "0", {*kernel}};
  };
  JitFunction add(t, {}, cache);
  HostBuffer a(kF32, {m, n}), b(kF32, {m, n}), c(kF32, {m, n});
  for (int64_t i = 0; i < m * n; ++i) {
    a.Set(i, static_cast<double>(i % 97));
    b.Set(i, 0.5 * static_cast<double>(i % 13));
  }
  c.Poison();
  std::vector<KernelArg> args = {KernelArg::Tensor(a.AsDLTensor()),
                                 KernelArg::Tensor(b.AsDLTensor()),
                                 KernelArg::Tensor(c.AsDLTensor())};
  CacheSource source;
  absl::StatusOr<LoadedKernel*> kernel = add.Specialize(args, &source);
  if (!kernel.ok()) {
    std::cerr << kernel.status() << "\n";
    return 1;
  }
  if (absl::Status status = (*kernel)->Launch(args); !status.ok()) {
    std::cerr << status << "\n";
    return 1;
  }
  for (int64_t i = 0; i < m * n; ++i) {
    if (c.Get(i) != a.Get(i) + b.Get(i)) {
      std::cerr << "wrong result at " << i << "\n";
      return 1;
    }
  }
  std::cout << "source=" << CacheSourceName(source) << " key=" << *add.KeyFor(args)
            << " compiles=" << cache.stats().compiles << " disk_hits=" << cache.stats().disk_hits
            << " refused=" << cache.stats().refused << " remote_hits=" << cache.stats().remote_hits
            << std::endl;
  return 0;
}
