// Option values of a pipeline step: validation against the pass's specs and typed access.
#include "passes/pass/pass.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/pass/close_matches.h"

namespace tile_ir::passes {
namespace {

bool ParseInt(std::string_view text, int64_t* value) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  // from_chars rejects a leading '+', which users reasonably write.
  if (begin != end && *begin == '+') ++begin;
  if (begin == end || (*begin == '-' && begin + 1 == end)) return false;
  auto [ptr, ec] = std::from_chars(begin, end, *value);
  return ec == std::errc() && ptr == end;
}

[[noreturn]] void DieOnMisuse(const std::string& message) {
  std::fprintf(stderr, "internal error in a pass: %s\n", message.c_str());
  std::abort();
}

}  // namespace

std::string_view OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kInt: return "integer";
    case OptionType::kBool: return "boolean";
    case OptionType::kString: return "string";
  }
  return "?";
}

absl::Status CheckOptionValue(OptionType type, std::string_view value) {
  int64_t unused;
  bool ok = type == OptionType::kString || (type == OptionType::kInt && ParseInt(value, &unused)) ||
            (type == OptionType::kBool && (value == "true" || value == "false"));
  if (ok) return absl::OkStatus();
  std::string article = type == OptionType::kInt ? "an " : "a ";
  return absl::InvalidArgumentError(absl::StrCat(
      "expects ", article, std::string(OptionTypeName(type)), ", got '", std::string(value), "'"));
}

absl::StatusOr<PassOptions> PassOptions::Create(
    std::string_view pass_name_view, const std::vector<OptionSpec>& specs,
    const std::vector<std::pair<std::string, std::string>>& values) {
  std::string pass_name(pass_name_view);
  PassOptions options;
  for (const OptionSpec& spec : specs) {
    options.values_[spec.name] = Value{spec.type, spec.default_value};
  }
  for (const auto& [name, text] : values) {
    auto it = options.values_.find(name);
    if (it == options.values_.end() && name == "target") {
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", pass_name, "' takes no target option: a pipeline's target is given once ",
          "for the whole run (tile-opt --target=", text, ")"));
    }
    if (it == options.values_.end()) {
      std::vector<std::string> names;
      for (const OptionSpec& spec : specs) names.push_back(spec.name);
      std::string known =
          names.empty() ? " (it has no options)" : DidYouMean(CloseMatches(name, names));
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option '", name, "' of pass '", pass_name, "'", known));
    }
    absl::Status valid = CheckOptionValue(it->second.type, text);
    if (!valid.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("option '", name, "' of pass '", pass_name, "' ", valid.message()));
    }
    it->second.text = text;
  }
  return options;
}

const PassOptions::Value& PassOptions::Lookup(std::string_view name, OptionType type) const {
  auto it = values_.find(name);
  if (it == values_.end()) DieOnMisuse("undeclared option '" + std::string(name) + "'");
  if (it->second.type != type) {
    DieOnMisuse("option '" + std::string(name) + "' read as " + std::string(OptionTypeName(type)) +
                " but declared " + std::string(OptionTypeName(it->second.type)));
  }
  return it->second;
}

int64_t PassOptions::GetInt(std::string_view name) const {
  int64_t value = 0;
  ParseInt(Lookup(name, OptionType::kInt).text, &value);
  return value;
}

bool PassOptions::GetBool(std::string_view name) const {
  return Lookup(name, OptionType::kBool).text == "true";
}

const std::string& PassOptions::GetString(std::string_view name) const {
  return Lookup(name, OptionType::kString).text;
}

const TargetInfo& PassOptions::target() const {
  if (target_ == nullptr) {
    // The pass manager refuses to run a pass with needs_target without a
    // target, so this is a pass asking without declaring it, or a caller
    // running a pass directly without set_target.
    std::fprintf(stderr,
                 "internal error: a pass asked for the target of a run that has none (it must "
                 "declare needs_target, and direct callers must set_target)\n");
    std::abort();
  }
  return *target_;
}

KernelPassFn EachKernel(
    std::function<absl::StatusOr<Kernel>(const Kernel& kernel, const PassOptions& options)>
        rewrite) {
  return
      [rewrite = std::move(rewrite)](const PassOptions& options) -> absl::StatusOr<KernelRewrite> {
        return KernelRewrite(
            [&rewrite, &options](const Kernel& kernel) { return rewrite(kernel, options); });
      };
}

absl::StatusOr<bool> MapKernels(Module& module, const KernelRewrite& rewrite) {
  bool changed = false;
  for (Kernel& kernel : module.kernels) {
    absl::StatusOr<Kernel> result = rewrite(kernel);
    if (!result.ok()) return result.status();
    changed |= *result != kernel;
    kernel = *std::move(result);
  }
  return changed;
}

absl::StatusOr<bool> RunPass(const PassInfo& pass, Module& module, const PassOptions& options) {
  if (pass.run) return pass.run(module, options);
  absl::StatusOr<KernelRewrite> rewrite = pass.run_kernel(options);
  if (!rewrite.ok()) return rewrite.status();
  return MapKernels(module, *rewrite);
}

}  // namespace tile_ir::passes
