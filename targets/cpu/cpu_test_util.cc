// Test helpers of the CPU target (cpu_test_util.h).
#include "targets/cpu/cpu_test_util.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "targets/cpu/cpu_target.h"
#include "targets/target.h"

namespace tile_ir::cpu::test_util {

absl::StatusOr<Module> ParseTestdata(const std::string& name) {
  std::string path = "testdata/targets/cpu/" + name;
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError("cannot read " + path);
  std::stringstream text;
  text << file.rdbuf();
  return text::ParseModule(text.str(), path);
}

absl::StatusOr<std::unique_ptr<LinkedObject>> CompileLowered(const Module& lowered,
                                                             std::string_view kernel) {
  absl::StatusOr<Module> single = targets::SingleKernelModule(lowered, kernel);
  if (!single.ok()) return single.status();
  absl::StatusOr<targets::Binary> binary = MakeCpuTarget()->Compile(*single, /*source=*/"", kernel);
  if (!binary.ok()) return binary.status();
  return LinkedObject::Link(binary->bytes, binary->entry, kernel);
}

absl::StatusOr<std::unique_ptr<LinkedObject>> CompileKernel(const Module& module,
                                                            std::string_view kernel) {
  absl::StatusOr<targets::CompiledKernel> compiled = MakeCpuTarget()->CompileKernel(module, kernel);
  if (!compiled.ok()) return compiled.status();
  return LinkedObject::Link(compiled->binary.bytes, compiled->binary.entry, kernel);
}

BlockFn KernelLoader::Load(const std::string& file, const std::string& kernel) {
  absl::StatusOr<Module> module = ParseTestdata(file);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<LinkedObject>> object = CompileLowered(*module, kernel);
  EXPECT_TRUE(object.ok()) << file << ": " << object.status();
  if (!object.ok()) return nullptr;
  objects_.push_back(*std::move(object));
  return objects_.back()->block_fn();
}

void RunGrid(BlockFn kernel, const std::vector<void*>& args, int grid_x, int grid_y, int grid_z,
             int threads) {
  const int blocks = grid_x * grid_y * grid_z;
  std::atomic<int> next{0};
  auto work = [&] {
    for (int b = next++; b < blocks; b = next++) {
      kernel(args.data(), b % grid_x, (b / grid_x) % grid_y, b / (grid_x * grid_y));
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

GuardedBuffer::GuardedBuffer(size_t bytes, Side side) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t data_pages = (bytes + page - 1) / page;
  mapping_bytes_ = (data_pages + 1) * page;
  mapping_ =
      mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) std::abort();
  auto* base = static_cast<char*>(mapping_);
  if (side == Side::kGuardEnd) {
    mprotect(base + data_pages * page, page, PROT_NONE);
    data_ = base + data_pages * page - bytes;
  } else {
    mprotect(base, page, PROT_NONE);
    data_ = base + page;
  }
}

GuardedBuffer::~GuardedBuffer() { munmap(mapping_, mapping_bytes_); }

}  // namespace tile_ir::cpu::test_util
