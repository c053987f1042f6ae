// The CUDA family and its Target: lowering, CUDA C++, NVRTC.
#include "targets/cuda/cuda_target.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "targets/cuda/cuda_codegen.h"
#include "targets/cuda/device_headers.h"
#include "targets/cuda/gemm_fma.h"
#include "targets/cuda/gemm_mma.h"
#include "targets/cuda/gemm_wgmma.h"
#include "targets/cuda/intrinsics.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "targets/cuda/passes/cuda_passes.h"
#include "targets/cuda/passes/warp_specialize.h"

namespace tile_ir::cuda {
namespace {

// The values of {gemm=...} and the choice each names; the default (auto) first, which a
// canonical name leaves out.
constexpr std::pair<std::string_view, WgmmaUse> kGemmOptions[] = {
    {"auto", WgmmaUse::kSwizzledOperands},
    {"wgmma", WgmmaUse::kWherePossible},
    {"mma", WgmmaUse::kNever},
};

// Line tables cost nothing at run time and let compute-sanitizer and cuobjdump
// point at lines of the .cu file.
constexpr char kNvrtcOptions[] = "-lineinfo";

// The SM count a persistent kernel is compiled for when the target names none: the H100 SXM's
// and the H200's 132. A runtime that opens a GPU with another count names it ({sms=114} on an
// H100 PCIe; runtime/cuda), so that the kernel and its cache entry are that GPU's; a kernel
// compiled for more SMs than a GPU has is still correct, its last blocks wait for a second
// wave.
constexpr int kDefaultSms = 132;

// The options of a CUDA target, each default first.
std::vector<targets::TargetOption> CudaOptions() {
  std::vector<std::string> values;
  for (const auto& [value, unused] : kGemmOptions) values.emplace_back(value);
  return {{"gemm", values,
           "how sm_90a runs tensor-core gemms: auto (wgmma when both operand tiles are "
           "128-byte swizzled, else mma.sync), wgmma (wherever it can run), mma (mma.sync "
           "only)"},
          {"warp_specialize",
           {"on", "off"},
           "whether sm_90a gives the copies of a kernel's software pipeline to a producer "
           "warpgroup whose one thread issues them as TMA loads, synchronized by mbarriers: "
           "on (the default: where the loop and its copies allow, --remarks says why not "
           "elsewhere), off (the compute warps issue cp.async copies)"},
          {"persistent",
           {"off", "on"},
           "whether a warp-specialized sm_90a kernel whose output tiles all take the same "
           "work launches one block per SM that loops over tiles, so that the producer loads "
           "the next tile's stages while the consumers store the last one (on), or one block "
           "per tile (off, the default: on the H200 gemms gained 0.5-1.5% and attention lost "
           "1-3%, bench/results/h200_2026-12-05_run19)"},
          {"sms",
           {absl::StrCat(kDefaultSms)},
           "the SM count persistent kernels launch a block on (132 is the H100 SXM's and "
           "H200's; the runtime names its GPU's count when it differs)",
           std::pair<int64_t, int64_t>{1, 1024}},
          {"tma_store",
           {"on", "off"},
           "whether the consumers of a warp-specialized sm_90a kernel write each output tile "
           "from registers to shared memory and store it with the TMA, one thread issuing the "
           "store while the others go on (on, the default: 1-4% faster gemms on the H200, "
           "bench/results/h200_2026-12-05_run19), or store their registers to global memory "
           "themselves (off)"},
          {"cluster",
           {"1", "2"},
           "blocks per thread-block cluster of a warp-specialized sm_90a kernel: 1 (the "
           "default), or 2, where the blocks of each pair along x read the same tile of an "
           "operand (a gemm's B in a rasterized grid) and each loads half of it into both "
           "with a TMA multicast, halving that operand's traffic from L2 (correct and "
           "sanitizer-clean on an H100, but 35-40% slower than 1 there, "
           "bench/results/h100_2026-12-05_run20); warp-specialize says where it cannot pair"},
          {"pingpong",
           {"off", "on"},
           "whether the two consumer warpgroups of a warp-specialized sm_90a kernel take turns "
           "issuing the first gemm of each iteration of a consumer loop with two or more gemms "
           "(an attention's), through two mbarriers, so that one's softmax runs while the "
           "other's gemms do, as FlashAttention-3 does (on: it replaces {overlap=on}'s rotation "
           "of the loop and was 7-8% slower than it on an H100, clean under compute-sanitizer, "
           "bench/results/h100_2026-12-07_run24), or run freely (off, the default); persistent "
           "kernels run freely"},
          {"overlap",
           {"on", "off"},
           "whether a warp-specialized sm_90a consumer loop that chains two gemms through "
           "registers (an attention's Q K^T, softmax, P V) issues each iteration's first gemm "
           "with the previous iteration's second and runs its register work while that one "
           "does (on, the default: FlashAttention-3's intra-warpgroup overlap, 6-13% faster "
           "attention on the H200, bench/results/h200_2026-12-06_run22), or runs each "
           "iteration's gemms in turn (off)"}};
}

// The value `name` gives option `key`, else its default (CudaOptions' first value): the one
// place a default is read, for the code and the cache context alike.
std::string EffectiveOption(const targets::TargetName& name, std::string_view key) {
  if (std::string given = name.Option(key); !given.empty()) return given;
  for (const targets::TargetOption& option : CudaOptions()) {
    if (option.key == key && !option.values.empty()) return option.values.front();
  }
  return "";
}

// 0 without {persistent=on}, else the SM count of {sms=N}; the name was checked.
int PersistentBlocks(const targets::TargetName& name) {
  if (EffectiveOption(name, "persistent") != "on") return 0;
  int sms = kDefaultSms;
  (void)absl::SimpleAtoi(EffectiveOption(name, "sms"), &sms);
  return sms;
}

class CudaTarget final : public targets::Target {
 public:
  CudaTarget(targets::TargetName name, WgmmaUse wgmma)
      : Target(name),
        info_(std::make_shared<CudaTargetInfo>(
            name.arch, wgmma, name.ToString(),
            WarpSpecialization{.enabled = EffectiveOption(name, "warp_specialize") == "on",
                               .persistent_blocks = PersistentBlocks(name),
                               .tma_stores = EffectiveOption(name, "tma_store") == "on",
                               .cluster_blocks = EffectiveOption(name, "cluster") == "2" ? 2 : 1,
                               .pingpong = EffectiveOption(name, "pingpong") == "on",
                               .overlap_gemm_chains = EffectiveOption(name, "overlap") == "on"})) {}

  std::shared_ptr<const passes::TargetInfo> info() const override { return info_; }
  std::string DefaultPipeline() const override { return DefaultCudaPipeline(); }
  std::vector<passes::PassInfo> Passes() const override { return CudaPasses(); }
  std::string source_extension() const override { return "cu"; }

  absl::StatusOr<std::string> Emit(const Module& lowered,
                                   const targets::EmitOptions& options) const override {
    CudaCodegenOptions codegen;
    codegen.arch = name().arch;
    codegen.kernel = options.kernel;
    codegen.embed_library = options.self_contained;
    return EmitCudaSource(lowered, codegen);
  }

  absl::StatusOr<std::string> FindCompiler() const override {
    absl::StatusOr<std::string> version = NvrtcVersion();
    if (!version.ok()) return version.status();
    return absl::StrCat("NVRTC ", *version);
  }

  absl::StatusOr<targets::Binary> Compile(const Module& lowered, const std::string& source,
                                          std::string_view kernel) const override {
    const KernelNode* node = nullptr;
    for (const Kernel& each : lowered.kernels) {
      if (each->name == kernel) node = each.get();
    }
    if (node == nullptr) {
      return absl::NotFoundError(
          absl::StrCat("no kernel named '", std::string(kernel), "' to compile"));
    }
    NvrtcOptions nvrtc;
    nvrtc.arch = name().arch;
    nvrtc.extra_options = {kNvrtcOptions};
    absl::StatusOr<NvrtcOutput> compiled =
        CompileWithNvrtc(source, absl::StrCat(std::string(kernel), ".cu"), nvrtc);
    if (!compiled.ok()) return compiled.status();
    targets::Binary binary;
    binary.format = "cubin";
    // The emitter's extern "C" __global__ function, named for CUDA ("main" is not a symbol).
    binary.entry = CudaKernelSymbol(lowered, kernel);
    binary.dynamic_shared_bytes = SharedMemoryBytes(*node);
    absl::StatusOr<std::string> compiler = FindCompiler();
    binary.compiler = compiler.ok() ? *compiler : "NVRTC";
    std::string summary = absl::StrCat("cubin ", compiled->cubin.size(), " bytes");
    for (const auto& [entry, registers] : compiled->registers) {
      absl::StrAppend(&summary, ", ", entry, ": ", registers, " registers");
    }
    binary.log = compiled->log.empty() ? summary : absl::StrCat(compiled->log, "\n", summary);
    binary.bytes = std::move(compiled->cubin);
    binary.files = {{"ptx", std::move(compiled->ptx)}};
    return binary;
  }

  std::vector<std::pair<std::string, std::string>> CacheFields() const override {
    std::vector<std::pair<std::string, std::string>> fields = Target::CacheFields();
    fields.emplace_back("device_library",
                        absl::StrCat(absl::Hex(DeviceLibraryFingerprint(), absl::kZeroPad16)));
    fields.emplace_back("options", kNvrtcOptions);
    // Every option's effective value, defaults included: a changed default changes the code
    // while the canonical name (which omits defaults) stays, and the key must change with it.
    std::vector<std::string> effective;
    for (const targets::TargetOption& option : CudaOptions()) {
      effective.push_back(absl::StrCat(option.key, "=", EffectiveOption(name(), option.key)));
    }
    fields.emplace_back("target_options", absl::StrJoin(effective, ","));
    return fields;
  }

 private:
  std::shared_ptr<const CudaTargetInfo> info_;
};

class CudaFamily final : public targets::TargetFamily {
 public:
  std::string name() const override { return "cuda"; }
  std::string description() const override {
    return "CUDA C++ over tile's device library, compiled with NVRTC";
  }
  std::vector<std::string> archs() const override { return KnownCudaArchs(); }
  std::string default_arch() const override { return "sm_90a"; }
  std::vector<targets::TargetOption> options() const override { return CudaOptions(); }
  void RegisterIntrinsics() const override {
    RegisterCudaLibraryIntrinsics();
    // These fail only when another component took the names; lowering would say so.
    RegisterGemmMmaIntrinsic().IgnoreError();
    RegisterGemmFmaIntrinsic().IgnoreError();
    RegisterGemmWgmmaIntrinsic().IgnoreError();
    RegisterWarpSpecializationIntrinsics();
  }
  std::optional<std::string> Replacement(std::string_view text) const override {
    for (const auto& [old_spelling, variant] :
         {std::pair<std::string_view, std::string_view>{"cuda:sm_90a-wgmma", "wgmma"},
          {"cuda:sm_90a-mma", "mma"}}) {
      if (text == old_spelling) {
        return absl::StrCat("target '", std::string(text),
                            "' is now spelled 'cuda:sm_90a{gemm=", std::string(variant), "}'");
      }
    }
    return std::nullopt;
  }

  absl::Status CheckEnvironment() const override {
    if (const char* stale = std::getenv(kStaleWgmmaEnvironmentVariable); stale != nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(kStaleWgmmaEnvironmentVariable, "=", stale,
                       " is set, but the environment no longer changes what is compiled: name the "
                       "variant in the target instead, cuda:sm_90a{gemm=wgmma} for ",
                       kStaleWgmmaEnvironmentVariable, "=1 or cuda:sm_90a{gemm=mma} for ",
                       kStaleWgmmaEnvironmentVariable, "=0, and unset it"));
    }
    return absl::OkStatus();
  }

  // Options that only sm_90a takes, whatever their value: the registry asks with the name as
  // written, Create with the name it is given.
  absl::Status CheckOptions(const targets::TargetName& name) const override {
    if (name.arch == "sm_90a") return absl::OkStatus();
    const std::string warp_specialize = name.Option("warp_specialize");
    if (!warp_specialize.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("target '", name.ToString(), "': {warp_specialize=", warp_specialize,
                       "} applies to sm_90a only, the one with mbarrier waits and setmaxnreg"));
    }
    // The options of warp-specialized kernels, which only sm_90a builds.
    constexpr std::pair<const char*, const char*> kSplitOptions[] = {
        {"persistent", "whose warp-specialized kernels can be persistent"},
        {"sms", "whose warp-specialized kernels can be persistent"},
        {"tma_store", "whose warp-specialized kernels' consumers can store with the TMA"},
        {"cluster",
         "whose warp-specialized kernels' blocks can share loads in thread-block "
         "clusters"},
        {"pingpong", "whose warp-specialized kernels have consumer warpgroups to take turns"},
        {"overlap", "whose warp-specialized kernels' consumers issue gemms asynchronously"},
    };
    for (const auto& [key, why] : kSplitOptions) {
      if (!name.Option(key).empty()) {
        return absl::InvalidArgumentError(absl::StrCat("target '", name.ToString(), "': {", key,
                                                       "=...} applies to sm_90a only, ", why));
      }
    }
    if (const std::string gemm = name.Option("gemm"); !gemm.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("target '", name.ToString(), "': {gemm=", gemm, "} chooses between ",
                       "wgmma and mma.sync, which only sm_90a has both of"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<targets::Target>> Create(
      const targets::TargetName& name) const override {
    const std::string gemm = name.Option("gemm");  // empty for the default
    WgmmaUse wgmma = kGemmOptions[0].second;
    for (const auto& [value, use] : kGemmOptions) {
      if (value == gemm) wgmma = use;
    }
    const std::string warp_specialize = name.Option("warp_specialize");
    if (!warp_specialize.empty() && warp_specialize != "on" && warp_specialize != "off") {
      return absl::InvalidArgumentError(absl::StrCat("target '", name.ToString(),
                                                     "': {warp_specialize=", warp_specialize,
                                                     "} is not one of off, on"));
    }
    if (absl::Status options = CheckOptions(name); !options.ok()) return options;
    return std::unique_ptr<targets::Target>(std::make_unique<CudaTarget>(name, wgmma));
  }
};

}  // namespace

std::unique_ptr<targets::TargetFamily> MakeCudaFamily() { return std::make_unique<CudaFamily>(); }

std::unique_ptr<targets::Target> MakeCudaTarget(const std::string& arch, WgmmaUse wgmma) {
  targets::TargetName name{"cuda", arch, {}};
  for (const auto& [value, use] : kGemmOptions) {
    // The default, and every choice on an architecture without wgmma, goes unnamed.
    if (use == wgmma && use != kGemmOptions[0].second && arch == "sm_90a") {
      name.options = {{"gemm", std::string(value)}};
    }
  }
  CudaFamily().RegisterIntrinsics();
  return std::make_unique<CudaTarget>(std::move(name), wgmma);
}

}  // namespace tile_ir::cuda
