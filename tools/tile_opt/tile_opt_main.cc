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
#include "absl/strings/str_split.h"
#include "frontends/io/bounded_file.h"
#include "frontends/io/module_io.h"
#include "passes/transforms/all_passes.h"
#include "passes/pass/pass_manager.h"
#include "passes/pass/pass_pipeline.h"
#include "passes/pass/reproducer.h"
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
  parser.Add({"list-passes", "", "print every pass with its description and options"});
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

std::string ListPasses(const passes::PassRegistry& registry) {
  std::string text = "Passes:\n";
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

}  // namespace

int TileOptMain(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err,
                const TileOptTargets& targets) {
  cli::ArgParser parser = MakeParser();
  if (absl::Status status = parser.Parse(argc, argv); !status.ok()) {
    err << "tile-opt: error: " << status.message() << "\n";
    return 2;
  }
  if (parser.Has("help")) {
    out << parser.Help();
    return 0;
  }
  if (parser.Has("list-targets")) {
    out << "Targets (--target=NAME):\n" << targets.description;
    return 0;
  }
  std::optional<PipelineTarget> target;
  if (parser.Has("target")) {
    absl::StatusOr<PipelineTarget> resolved = targets.resolve(parser.Get("target"));
    if (!resolved.ok()) {
      err << "tile-opt: error: --target: " << resolved.status().message() << "\n";
      return 2;
    }
    target = *std::move(resolved);
  }
  const passes::PassRegistry& registry =
      target ? target->passes : passes::BuiltinPassRegistry();
  if (parser.Has("list-passes")) {
    out << ListPasses(registry);
    return 0;
  }
  if (parser.Has("print-pipeline")) {
    if (!parser.Has("pass-pipeline") && !target) {
      err << "tile-opt: error: --print-pipeline needs --target or --pass-pipeline\n";
      return 2;
    }
    std::string text = parser.Has("pass-pipeline") ? parser.Get("pass-pipeline")
                                                   : target->default_pipeline;
    absl::StatusOr<passes::Pipeline> pipeline = passes::ParsePipeline(text);
    if (!pipeline.ok()) {
      err << "tile-opt: error: --pass-pipeline: " << pipeline.status().message() << "\n";
      return 2;
    }
    out << passes::PrintPipeline(*pipeline) << "\n";
    return 0;
  }
  if (parser.positional().size() != 1) {
    err << "tile-opt: error: expected exactly one INPUT (a file, or - for stdin); see --help\n";
    return 2;
  }
  const std::string input = parser.positional().front();

  std::optional<ModuleFormat> input_format;
  if (parser.Has("input-format")) {
    input_format = io::ParseModuleFormat(parser.Get("input-format"));
    if (!input_format) {
      err << "tile-opt: error: unknown --input-format '" << parser.Get("input-format")
          << "'; expected tile, tilepb or json\n";
      return 2;
    }
  } else if (input == "-") {
    err << "tile-opt: error: reading stdin needs --input-format=tile|tilepb|json\n";
    return 2;
  } else {
    input_format = io::ModuleFormatFromPath(input);
    if (!input_format) {
      err << "tile-opt: error: " << input
          << ": unknown extension; expected .tile, .tilepb or .json (or pass --input-format)\n";
      return 2;
    }
  }
  std::optional<ModuleFormat> emit = io::ParseModuleFormat(parser.Get("emit"));
  if (!emit) {
    err << "tile-opt: error: unknown --emit '" << parser.Get("emit")
        << "'; expected text, proto or json\n";
    return 2;
  }
  // Checked before reading anything: a version this build cannot write is a usage error.
  std::optional<int64_t> ir_version;
  if (parser.Has("ir-version")) {
    const std::string flag = parser.Get("ir-version");
    int64_t version = 0;
    if (!absl::SimpleAtoi(flag, &version)) {
      err << "tile-opt: error: --ir-version: '" << flag << "' is not an integer\n";
      return 2;
    }
    if (absl::Status status = CheckWritableIrVersion(version); !status.ok()) {
      err << "tile-opt: error: --ir-version=" << flag << ": " << status.message() << "\n";
      return 2;
    }
    ir_version = version;
  }

  std::string contents;
  std::string source_name = input;
  if (input == "-") {
    source_name = "<stdin>";
    absl::StatusOr<std::string> read = io::ReadBoundedStream(in, io::kMaxModuleBytes, source_name);
    if (!read.ok()) {
      err << "tile-opt: error: " << read.status().message() << "\n";
      return 1;
    }
    contents = *std::move(read);
  } else {
    absl::StatusOr<std::string> read = io::ReadFile(input);
    if (!read.ok()) {
      err << "tile-opt: error: " << read.status().message() << "\n";
      return 1;
    }
    contents = *std::move(read);
  }

  std::string pipeline = parser.Get("pass-pipeline");
  if (!parser.Has("pass-pipeline") && target) pipeline = target->default_pipeline;
  if (parser.Has("run-reproducer")) {
    absl::StatusOr<std::string> replay = passes::ReadReproducerPipeline(contents);
    if (!replay.ok()) {
      err << "tile-opt: error: " << source_name << ": " << replay.status().message() << "\n";
      return 1;
    }
    pipeline = *replay;
    const std::string replay_target = passes::ReadReproducerTarget(contents);
    if (!replay_target.empty() && !target) {
      absl::StatusOr<PipelineTarget> resolved = targets.resolve(replay_target);
      if (!resolved.ok()) {
        err << "tile-opt: error: " << source_name << ": the reproducer's target: "
            << resolved.status().message() << "\n";
        return 1;
      }
      target = *std::move(resolved);
    }
  }

  passes::PassManagerOptions pm_options;
  pm_options.verify_each = !parser.Has("no-verify");
  pm_options.print_ir_before = parser.Get("print-ir-before");
  pm_options.print_ir_after_all = parser.Has("print-ir-after-all");
  pm_options.print_ir_after_change = parser.Has("print-ir-after-change");
  pm_options.timing = parser.Has("timing");
  pm_options.reproducer_path = parser.Get("reproducer");
  pm_options.dump = &err;
  std::vector<std::string> remarks;
  if (parser.Has("remarks")) pm_options.remarks = &remarks;
  if (target) pm_options.target = target->info;
  absl::StatusOr<passes::PassManager> manager = passes::PassManager::Create(
      target ? target->passes : passes::BuiltinPassRegistry(), pipeline, pm_options);
  if (!manager.ok()) {
    err << "tile-opt: error: --pass-pipeline: " << manager.status().message() << "\n";
    return 2;
  }

  std::vector<Chunk> chunks;
  if (parser.Has("split-input-file") && *input_format == ModuleFormat::kText) {
    chunks = SplitInput(contents);
  } else {
    chunks.push_back({std::move(contents), 1});
  }

  PrintOptions print_options;
  print_options.print_locs = parser.Has("print-locs");
  std::string output;
  bool failed = false;
  for (size_t i = 0; i < chunks.size(); ++i) {
    if (i > 0) absl::StrAppend(&output, kSplitMarker, "\n");
    const std::string text =
        chunks.size() > 1 ? WithLineOffset(chunks[i]) : std::move(chunks[i].contents);
    absl::StatusOr<Module> module = io::ReadModule(text, *input_format, source_name);
    if (!module.ok()) {
      err << "tile-opt: error: " << module.status().message() << "\n";
      failed = true;
      continue;
    }
    if (pm_options.verify_each) {
      if (absl::Status status = Verify(*module); !status.ok()) {
        err << "tile-opt: error: " << source_name << ": invalid input IR:\n"
            << status.message() << "\n";
        failed = true;
        continue;
      }
    }
    absl::Status ran = manager->Run(*module);
    for (const std::string& remark : remarks) err << "remark: " << remark << "\n";
    remarks.clear();
    if (absl::Status status = ran; !status.ok()) {
      err << "tile-opt: error: " << source_name << ": " << status.message() << "\n";
      failed = true;
      continue;
    }
    // After the pipeline: a pass may have introduced a newer feature (a swizzle's '^').
    if (ir_version) {
      if (absl::Status status = CheckWritableAsIrVersion(*module, *ir_version); !status.ok()) {
        err << "tile-opt: error: " << source_name << ": --ir-version=" << *ir_version << ": "
            << status.message() << "\n";
        failed = true;
        continue;
      }
    }
    absl::StrAppend(&output, io::WriteModule(*module, *emit, print_options));
  }
  if (pm_options.timing) err << manager->TimingReport();
  if (failed) return 1;

  if (parser.Has("o")) {
    if (absl::Status status = io::WriteFile(parser.Get("o"), output); !status.ok()) {
      err << "tile-opt: error: " << status.message() << "\n";
      return 1;
    }
  } else {
    out << output;
    out.flush();
    if (!out) {
      err << "tile-opt: error: writing the output failed\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace tile_ir::tools
