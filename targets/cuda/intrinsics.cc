// The "cuda." intrinsics (in the C-source targets' library table) and the core-matrix reads of
// those that read wgmma operand tiles.
#include "targets/cuda/intrinsics.h"

#include <map>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "targets/c_source/library_call.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cuda {
namespace {

struct CoreMatrixTable {
  std::mutex mu;
  std::map<std::string, CoreMatrixReads, std::less<>> by_name;
};

CoreMatrixTable& GetCoreMatrixTable() {
  static CoreMatrixTable* table = new CoreMatrixTable;
  return *table;
}

}  // namespace

absl::Status RegisterCudaIntrinsic(std::string name, int num_args, int num_template_args,
                                   std::string description, bool async_copy,
                                   std::vector<int> core_matrix_operands,
                                   std::string core_matrix_fence) {
  if (absl::Status status =
          c_source::RegisterLibraryIntrinsic(kCudaIntrinsicPrefix, name, num_args,
                                             num_template_args, std::move(description), async_copy);
      !status.ok()) {
    return status;
  }
  if (!core_matrix_operands.empty()) {
    return RegisterCoreMatrixReads(
        std::move(name),
        CoreMatrixReads{std::move(core_matrix_operands), std::move(core_matrix_fence)});
  }
  return absl::OkStatus();
}

absl::Status RegisterCoreMatrixReads(std::string name, CoreMatrixReads reads) {
  CoreMatrixTable& table = GetCoreMatrixTable();
  std::lock_guard<std::mutex> lock(table.mu);
  auto it = table.by_name.find(name);
  if (it != table.by_name.end()) {
    if (it->second.operands == reads.operands && it->second.fence == reads.fence) {
      return absl::OkStatus();
    }
    return absl::AlreadyExistsError(absl::StrCat(
        "intrinsic '", name, "' is already registered as reading other core-matrix operands"));
  }
  table.by_name.emplace(std::move(name), std::move(reads));
  return absl::OkStatus();
}

const CoreMatrixReads* FindCoreMatrixReads(std::string_view name) {
  CoreMatrixTable& table = GetCoreMatrixTable();
  std::lock_guard<std::mutex> lock(table.mu);
  auto it = table.by_name.find(name);
  return it == table.by_name.end() ? nullptr : &it->second;
}

void RegisterRoleMarker(std::string name, std::string description, bool partitions_threads) {
  IntrinsicInfo marker;
  marker.name = std::move(name);
  marker.num_args = 0;
  marker.result = IntrinsicInfo::ResultType::kFixed;
  marker.fixed_result = kBool;
  marker.pure = false;
  marker.partitions_threads = partitions_threads;
  marker.description = std::move(description);
  RegisterIntrinsic(std::move(marker));
}

void RegisterCudaLibraryIntrinsics() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int bytes : {16, 8, 4}) {
      // Only a foreign registration of the same name can fail; the emitter
      // then reports the name as unregistered where it is used.
      RegisterCudaIntrinsic(absl::StrCat("cuda.cp_async_", bytes), 3, 0,
                            absl::StrCat("copies ", bytes,
                                         " bytes from global to shared memory asynchronously "
                                         "when the predicate holds, else zero-fills"),
                            /*async_copy=*/true)
          .IgnoreError();
    }
    RegisterCudaIntrinsic("cuda.fence_proxy_async", 0, 0,
                          "orders this thread's shared-memory stores before later reads of the "
                          "async proxy (wgmma operands)")
        .IgnoreError();
  });
}

bool SetsWarpgroupRegisters(const KernelNode& kernel) {
  class Finder : public IRVisitor {
   public:
    using IRVisitor::Visit;
    bool found = false;

   protected:
    void VisitCall(const Call& node) override {
      found |= absl::StartsWith(node.name, "cuda.setmaxnreg");
      IRVisitor::VisitCall(node);
    }
  } finder;
  finder.Visit(kernel.body);
  return finder.found;
}

}  // namespace tile_ir::cuda
