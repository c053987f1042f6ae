#include "tools/tile_opt/tile_opt_main.h"

#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "frontends/io/bounded_file.h"
#include "frontends/io/module_io.h"
#include "passes/pass/pass_manager.h"
#include "passes/pass/pass_pipeline.h"
#include "passes/pass/reproducer.h"
#include "passes/transforms/all_passes.h"
#include "tile_ir/upgrade.h"
#include "tile_ir/verifier.h"
#include "tile_ir/version.h"
#include "tile_ir/write_version.h"
#include "tools/common/cli.h"

namespace tile_ir::tools {
namespace {

using io::ModuleFormat;

constexpr absl::string_view kSplitMarker = "// -----";

cli::ArgParser MakeParser() {
  cli::ArgParser parser(
      "tile-opt", "[options] INPUT",
      "Reads a tile IR module (INPUT is a .tile, .tilepb or .json file, or - for stdin),\n"
      "verifies it, runs a pass pipeline over it and writes the result.\n"
      "Examples: tile-opt kernel.tile --pass-pipeline='simplify,remove-dead-code'\n"
      "          tile-opt kernel.tile --target=cuda:sm_90a   (the target's default pipeline)\n"
      "          tile-opt --target=cuda:sm_90a --print-pipeline");
  parser.Add({"pass-pipeline", "PIPELINE",
              "passes to run, e.g. 'simplify,remove-dead-code'; default: --target's pipeline"});
  parser.Add({"target", "TARGET",
              "the target every lowering pass runs for (cpu, cuda:sm_90a, ...; --list-targets); "
              "given once, never in the pipeline"});
  parser.Add({"print-pipeline", "", "print the pipeline that would run, and stop"});
  parser.Add({"list-targets", "", "print the targets this tile-opt knows"});
  parser.Add({"input-format", "FORMAT", "tile | tilepb | json; required when INPUT is -"});
  parser.Add({"emit", "FORMAT", "output form: text | proto | json", "text"});
  parser.Add({"ir-version", "N",
              absl::StrCat("write for readers of ir_version N (", kOldestSupportedIrVersion, " to ",
                           kIrVersion,
                           "); refused, naming the feature, when the module needs a newer one")});
  parser.Add({"o", "FILE", "write the output to FILE instead of stdout"});
  parser.Add({"list-passes", "",
              "print the passes with their descriptions and options (a target's own passes "
              "only with --target)"});
  parser.Add({"split-input-file", "",
              "treat each part between '// -----' lines as its own module (text input)"});
  parser.Add({"no-verify", "", "do not verify the input and the IR after each pass"});
  parser.Add({"print-ir-before", "PASS", "print the IR before each run of PASS (to stderr)"});
  parser.Add({"print-ir-after-all", "", "print the IR after every pass (to stderr)"});
  parser.Add({"print-ir-after-change", "", "print the IR after each pass that changed it"});
  parser.Add({"print-locs", "", "print source locations in the text output"});
  parser.Add({"timing", "", "report the time spent in each pass (to stderr)"});
  parser.Add({"remarks", "",
              "print to stderr where the passes move data the program did not ask to move (a "
              "fragment read by threads that do not hold it, staged through shared memory)"});
  parser.Add({"reproducer", "FILE",
              "when a pass fails, write the IR before it and the rest of the pipeline to FILE"});
  parser.Add({"run-reproducer", "", "take the pipeline from INPUT's reproducer header"});
  parser.Add({"help", "", "show this help"});
  return parser;
}

// `target` is --target's canonical name, or empty: then only the target-independent passes
// are in `registry`, and the listing says where the others are.
std::string ListPasses(const passes::PassRegistry& registry, const std::string& target) {
  std::string text =
      target.empty()
          ? "Passes, the target-independent ones (a target's own passes are listed with "
            "--target=NAME, e.g. --target=cuda):\n"
          : absl::StrCat("Passes, with ", target, "'s own:\n");
  for (const passes::PassInfo* pass : registry.All()) {
    absl::StrAppend(&text, "  ", pass->name, pass->needs_target ? " (lowers for --target)" : "",
                    "\n      ", pass->description, "\n");
    for (const passes::OptionSpec& option : pass->options) {
      absl::string_view type = option.type == passes::OptionType::kInt    ? "int"
                               : option.type == passes::OptionType::kBool ? "bool"
                                                                          : "string";
      absl::StrAppend(&text, "      ", option.name, "=<", type, "> (",
                      option.default_value.empty() ? std::string("no default")
                                                   : "default " + option.default_value,
                      "): ", option.description, "\n");
    }
  }
  return text;
}

// One module's worth of input: its text and the line it starts at in the file.
struct Chunk {
  std::string contents;
  int first_line = 1;
};

std::vector<Chunk> SplitInput(const std::string& contents) {
  std::vector<Chunk> chunks(1);
  int line_number = 1;
  for (absl::string_view line : absl::StrSplit(contents, '\n')) {
    if (absl::StripTrailingAsciiWhitespace(line) == kSplitMarker) {
      chunks.push_back({"", line_number + 1});
    } else {
      absl::StrAppend(&chunks.back().contents, line, "\n");
    }
    ++line_number;
  }
  return chunks;
}

// Prefixing blank lines keeps the parser's line numbers those of the whole file.
std::string WithLineOffset(const Chunk& chunk) {
  return std::string(chunk.first_line - 1, '\n') + chunk.contents;
}

// What a run does, decided from the flags before anything is read: MlirOptMain's config.
struct OptConfig {
  std::string input;  // a path, or - for stdin
  ModuleFormat input_format = ModuleFormat::kText;
  ModuleFormat emit = ModuleFormat::kText;
  std::optional<int64_t> ir_version;
  std::optional<PipelineTarget> target;
  std::string pipeline;  // --pass-pipeline, else the target's default
  bool run_reproducer = false;
  bool split_input_file = false;
  bool remarks = false;
  std::optional<std::string> output_path;  // -o's; stdout without it
  passes::PassManagerOptions pm_options;
  PrintOptions print_options;
};

// -1 to go on, else the exit status of the error reported.
constexpr int kGoOn = -1;

int UsageError(std::ostream& err, absl::string_view message) {
  err << "tile-opt: error: " << message << "\n";
  return 2;
}

// Without --target, a pipeline naming a target's own pass ("unknown pass") gets a hint naming
// the targets that have it: "; 'pad-shared-rows' is a pass of target cuda: pass --target=cuda".
std::string TargetPassHint(const std::string& pipeline, const TileOptTargets& targets) {
  absl::StatusOr<passes::Pipeline> steps = passes::ParsePipeline(pipeline);
  if (!steps.ok() || !targets.targets_with_pass) return "";
  for (const passes::PipelineStep& step : *steps) {
    if (passes::BuiltinPassRegistry().Find(step.pass) != nullptr) continue;
    std::vector<std::string> owners = targets.targets_with_pass(step.pass);
    if (owners.empty()) continue;
    return absl::StrCat("; '", step.pass, "' is a pass of target ", absl::StrJoin(owners, ", "),
                        ": pass --target=", owners.front());
  }
  return "";
}

// --help, --list-targets, --list-passes and --print-pipeline answer without an input: the exit
// status when one of them was given (or its usage error), else kGoOn. `target` is --target's.
int AnswerQueries(const cli::ArgParser& parser, const TileOptTargets& targets,
                  const std::optional<PipelineTarget>& target, std::ostream& out,
                  std::ostream& err) {
  if (parser.Has("list-passes")) {
    out << (target ? ListPasses(target->passes, target->name)
                   : ListPasses(passes::BuiltinPassRegistry(), ""));
    return 0;
  }
  if (!parser.Has("print-pipeline")) return kGoOn;
  if (!parser.Has("pass-pipeline") && !target) {
    return UsageError(err, "--print-pipeline needs --target or --pass-pipeline");
  }
  std::string text =
      parser.Has("pass-pipeline") ? parser.Get("pass-pipeline") : target->default_pipeline;
  absl::StatusOr<passes::Pipeline> pipeline = passes::ParsePipeline(text);
  if (!pipeline.ok()) {
    return UsageError(err, absl::StrCat("--pass-pipeline: ", pipeline.status().message()));
  }
  out << passes::PrintPipeline(*pipeline) << "\n";
  return 0;
}

// INPUT's format from --input-format or its extension; a usage error otherwise.
int ParseFormats(const cli::ArgParser& parser, OptConfig& config, std::ostream& err) {
  if (parser.Has("input-format")) {
    std::optional<ModuleFormat> format = io::ParseModuleFormat(parser.Get("input-format"));
    if (!format) {
      return UsageError(err, absl::StrCat("unknown --input-format '", parser.Get("input-format"),
                                          "'; expected tile, tilepb or json"));
    }
    config.input_format = *format;
  } else if (config.input == "-") {
    return UsageError(err, "reading stdin needs --input-format=tile|tilepb|json");
  } else {
    std::optional<ModuleFormat> format = io::ModuleFormatFromPath(config.input);
    if (!format) {
      return UsageError(err, absl::StrCat(config.input,
                                          ": unknown extension; expected .tile, .tilepb or .json "
                                          "(or pass --input-format)"));
    }
    config.input_format = *format;
  }
  std::optional<ModuleFormat> emit = io::ParseModuleFormat(parser.Get("emit"));
  if (!emit) {
    return UsageError(err, absl::StrCat("unknown --emit '", parser.Get("emit"),
                                        "'; expected text, proto or json"));
  }
  config.emit = *emit;
  return kGoOn;
}

// A version this build cannot write is a usage error, decided before reading anything.
int ParseIrVersion(const cli::ArgParser& parser, OptConfig& config, std::ostream& err) {
  if (!parser.Has("ir-version")) return kGoOn;
  const std::string flag = parser.Get("ir-version");
  int64_t version = 0;
  if (!absl::SimpleAtoi(flag, &version)) {
    return UsageError(err, absl::StrCat("--ir-version: '", flag, "' is not an integer"));
  }
  if (absl::Status status = CheckWritableIrVersion(version); !status.ok()) {
    return UsageError(err, absl::StrCat("--ir-version=", flag, ": ", status.message()));
  }
  config.ir_version = version;
  return kGoOn;
}

void SetPassManagerOptions(const cli::ArgParser& parser, OptConfig& config, std::ostream& err) {
  passes::PassManagerOptions& options = config.pm_options;
  options.verify_each = !parser.Has("no-verify");
  options.print_ir_before = parser.Get("print-ir-before");
  options.print_ir_after_all = parser.Has("print-ir-after-all");
  options.print_ir_after_change = parser.Has("print-ir-after-change");
  options.timing = parser.Has("timing");
  options.reproducer_path = parser.Get("reproducer");
  options.dump = &err;
  config.print_options.print_locs = parser.Has("print-locs");
}

// Stage 1: the flags as a config, every usage error decided; queries answered. kGoOn when an
// input is to be processed.
int ParseOptions(int argc, char** argv, const TileOptTargets& targets, OptConfig& config,
                 std::ostream& out, std::ostream& err) {
  cli::ArgParser parser = MakeParser();
  if (absl::Status status = parser.Parse(argc, argv); !status.ok()) {
    return UsageError(err, status.message());
  }
  if (parser.Has("help")) {
    out << parser.Help();
    return 0;
  }
  if (parser.Has("list-targets")) {
    out << "Targets (--target=NAME):\n" << targets.description;
    return 0;
  }
  if (parser.Has("target")) {
    absl::StatusOr<PipelineTarget> resolved = targets.resolve(parser.Get("target"));
    if (!resolved.ok()) {
      return UsageError(err, absl::StrCat("--target: ", resolved.status().message()));
    }
    config.target = *std::move(resolved);
  }
  if (int status = AnswerQueries(parser, targets, config.target, out, err); status != kGoOn) {
    return status;
  }
  if (parser.positional().size() != 1) {
    return UsageError(err, "expected exactly one INPUT (a file, or - for stdin); see --help");
  }
  config.input = parser.positional().front();
  if (int status = ParseFormats(parser, config, err); status != kGoOn) return status;
  if (int status = ParseIrVersion(parser, config, err); status != kGoOn) return status;
  config.pipeline = parser.Get("pass-pipeline");
  if (!parser.Has("pass-pipeline") && config.target) {
    config.pipeline = config.target->default_pipeline;
  }
  config.run_reproducer = parser.Has("run-reproducer");
  config.split_input_file = parser.Has("split-input-file");
  config.remarks = parser.Has("remarks");
  if (parser.Has("o")) config.output_path = parser.Get("o");
  SetPassManagerOptions(parser, config, err);
  return kGoOn;
}

// Stage 2: INPUT's bytes, and the name messages give it.
absl::StatusOr<std::string> ReadInput(const OptConfig& config, std::istream& in,
                                      std::string& source_name) {
  source_name = config.input;
  if (config.input != "-") return io::ReadFile(config.input);
  source_name = "<stdin>";
  return io::ReadBoundedStream(in, io::kMaxModuleBytes, source_name);
}

// With --run-reproducer, the pipeline (and, without --target, the target) of the input's header.
int ApplyReproducer(const std::string& contents, const std::string& source_name,
                    const TileOptTargets& targets, OptConfig& config, std::ostream& err) {
  if (!config.run_reproducer) return kGoOn;
  absl::StatusOr<std::string> replay = passes::ReadReproducerPipeline(contents);
  if (!replay.ok()) {
    err << "tile-opt: error: " << source_name << ": " << replay.status().message() << "\n";
    return 1;
  }
  config.pipeline = *replay;
  const std::string replay_target = passes::ReadReproducerTarget(contents);
  if (replay_target.empty() || config.target) return kGoOn;
  absl::StatusOr<PipelineTarget> resolved = targets.resolve(replay_target);
  if (!resolved.ok()) {
    err << "tile-opt: error: " << source_name
        << ": the reproducer's target: " << resolved.status().message() << "\n";
    return 1;
  }
  config.target = *std::move(resolved);
  return kGoOn;
}

// Stage 3: one module of the input through the pipeline, appended to `output` in --emit's form;
// false (the error reported) when it failed.
bool ProcessModule(const std::string& text, const std::string& source_name, const OptConfig& config,
                   passes::PassManager& manager, std::vector<std::string>& remarks,
                   std::string& output, std::ostream& err) {
  absl::StatusOr<Module> module = io::ReadModule(text, config.input_format, source_name);
  if (!module.ok()) {
    err << "tile-opt: error: " << module.status().message() << "\n";
    return false;
  }
  if (config.pm_options.verify_each) {
    if (absl::Status status = Verify(*module); !status.ok()) {
      err << "tile-opt: error: " << source_name << ": invalid input IR:\n"
          << status.message() << "\n";
      return false;
    }
  }
  absl::Status ran = manager.Run(*module);
  for (const std::string& remark : remarks) err << "remark: " << remark << "\n";
  remarks.clear();
  if (!ran.ok()) {
    err << "tile-opt: error: " << source_name << ": " << ran.message() << "\n";
    return false;
  }
  // After the pipeline: a pass may have introduced a newer feature (a swizzle's '^').
  if (config.ir_version) {
    if (absl::Status status = CheckWritableAsIrVersion(*module, *config.ir_version); !status.ok()) {
      err << "tile-opt: error: " << source_name << ": --ir-version=" << *config.ir_version << ": "
          << status.message() << "\n";
      return false;
    }
  }
  absl::StrAppend(&output, io::WriteModule(*module, config.emit, config.print_options));
  return true;
}

// Stage 4: the output to -o's file or stdout; the exit status.
int WriteOutput(const OptConfig& config, const std::string& output, std::ostream& out,
                std::ostream& err) {
  if (config.output_path) {
    if (absl::Status status = io::WriteFile(*config.output_path, output); !status.ok()) {
      err << "tile-opt: error: " << status.message() << "\n";
      return 1;
    }
    return 0;
  }
  out << output;
  out.flush();
  if (!out) {
    err << "tile-opt: error: writing the output failed\n";
    return 1;
  }
  return 0;
}

}  // namespace

int TileOptMain(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err,
                const TileOptTargets& targets) {
  OptConfig config;
  if (int status = ParseOptions(argc, argv, targets, config, out, err); status != kGoOn) {
    return status;
  }
  std::string source_name;
  absl::StatusOr<std::string> contents = ReadInput(config, in, source_name);
  if (!contents.ok()) {
    err << "tile-opt: error: " << contents.status().message() << "\n";
    return 1;
  }
  if (int status = ApplyReproducer(*contents, source_name, targets, config, err); status != kGoOn) {
    return status;
  }
  std::vector<std::string> remarks;
  if (config.remarks) config.pm_options.remarks = &remarks;
  if (config.target) config.pm_options.target = config.target->info;
  absl::StatusOr<passes::PassManager> manager = passes::PassManager::Create(
      config.target ? config.target->passes : passes::BuiltinPassRegistry(), config.pipeline,
      config.pm_options);
  if (!manager.ok()) {
    return UsageError(err, absl::StrCat("--pass-pipeline: ", manager.status().message(),
                                        config.target ? "" : TargetPassHint(config.pipeline, targets)));
  }
  std::vector<Chunk> chunks;
  if (config.split_input_file && config.input_format == ModuleFormat::kText) {
    chunks = SplitInput(*contents);
  } else {
    chunks.push_back({*std::move(contents), 1});
  }
  std::string output;
  bool failed = false;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0) absl::StrAppend(&output, kSplitMarker, "\n");
    const std::string text =
        chunks.size() > 1 ? WithLineOffset(chunks[i]) : std::move(chunks[i].contents);
    failed |= !ProcessModule(text, source_name, config, *manager, remarks, output, err);
  }
  if (config.pm_options.timing) err << manager->TimingReport();
  if (failed) return 1;
  return WriteOutput(config, output, out, err);
}

}  // namespace tile_ir::tools
