// The level walk shared by every backend, and the staleness hashes.
#include "tools/tile_matrix/prober.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "frontends/cpp/builder.h"
#include "tile_ir/printer.h"

namespace tile_ir::matrix {
namespace {

void SetFailure(Record& record, absl::string_view stage, const absl::Status& error) {
  record.status = Status::kFailed;
  record.detail = absl::StrCat(stage, ": ", error.message());
  // The first lines say what failed; the log keeps the end of a long message.
  std::vector<std::string> lines = absl::StrSplit(record.detail, '\n');
  if (lines.size() > 3) {
    record.log = Excerpt(record.detail);
    record.detail = absl::StrCat(lines[0], "\n", lines[1], "\n", lines[2], "\n...");
  }
}

}  // namespace

std::string HashText(absl::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof(buffer), "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

absl::StatusOr<std::string> OpIrText(const ops::OpCase& op) { return ops::OpText(op); }

std::string OpDtype(const ops::OpCase& op) {
  absl::StatusOr<Kernel> kernel = op.build();
  if (!kernel.ok()) return "?";
  for (const Param& param : (*kernel)->params) {
    if (param.is_buffer()) return param.buffer->dtype.ToString();
  }
  return "?";
}

std::string Excerpt(absl::string_view text, int max_lines, size_t max_chars) {
  // NVRTC's log carries its terminating NUL; records are text.
  std::string clean = absl::StrReplaceAll(text, {{absl::string_view("\0", 1), ""}});
  text = clean;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  bool cut = lines.size() > static_cast<size_t>(max_lines);
  if (cut) lines.erase(lines.begin(), lines.end() - max_lines);
  std::string tail = absl::StrJoin(lines, "\n");
  if (tail.size() > max_chars) {
    tail = tail.substr(tail.size() - max_chars);
    cut = true;
  }
  return cut ? absl::StrCat("...\n", tail) : tail;
}

absl::StatusOr<Module> ProbeModule(const ops::OpCase& op, const passes::TargetInfo* target) {
  absl::StatusOr<Kernel> kernel = op.build();
  if (!kernel.ok()) return kernel.status();
  return ops::SpecializeAtDefaultShapes(dsl::MakeModule({*kernel}), target);
}

std::string CodeHash(const absl::StatusOr<std::string>& source) {
  if (source.ok()) return HashText(*source);
  return HashText(absl::StrCat(absl::StatusCodeToString(source.status().code()), ": ",
                               source.status().message()));
}

namespace {

// A record of `op` on `target` before any level is tried: what it is about and where it is made.
Record NewRecord(BackendProber& prober, const TargetSpec& target, const MachineFacts& facts,
                 const ops::OpCase& op, const ProbeContext& context) {
  Record record;
  record.op = op.name;
  record.target = target.target;
  record.backend = prober.backend();
  record.dtype = OpDtype(op);
  record.arch = facts.arch.empty() ? target.arch : facts.arch;
  record.commit = context.commit;
  record.date = context.date;
  record.machine = context.machine;
  record.lowering_hash = HashText(target.lowering);
  record.toolkit = facts.toolkit;
  return record;
}

// The generate level: the code hash, and generated, unsupported or failed. Whether the probe
// goes on to compile.
bool RecordGenerated(const absl::StatusOr<std::string>& source, const TargetSpec& target,
                     const MachineFacts& facts, Record& record) {
  if (!target.code_follows_host) record.code_hash = CodeHash(source);
  if (!source.ok()) {
    // The target refused: an operation it has no form for (Unimplemented) or
    // more of a resource than it has (ResourceExhausted: shared memory).
    if (source.status().code() == absl::StatusCode::kUnimplemented ||
        source.status().code() == absl::StatusCode::kResourceExhausted) {
      record.status = Status::kUnsupported;
      record.detail = std::string(source.status().message());
    } else {
      SetFailure(record, "generating code", source.status());
    }
    return false;
  }
  record.status = Status::kGenerated;
  if (facts.compiler.empty()) {
    record.detail =
        absl::StrCat(source->size(), " bytes of source; not compiled: ", facts.no_compiler);
    return false;
  }
  return true;
}

// The compile level: compiled (with the compiler's log and version) or failed. Whether the probe
// goes on to run.
bool RecordCompiled(BackendProber& prober, const Module& module, const std::string& source,
                    const TargetSpec& target, const MachineFacts& facts, Record& record) {
  absl::StatusOr<CompileOutput> compiled = prober.Compile(module, source, target);
  if (!compiled.ok()) {
    SetFailure(record, absl::StrCat("compiling with ", facts.compiler), compiled.status());
    return false;
  }
  record.status = Status::kCompiled;
  record.log = Excerpt(compiled->log);
  if (!compiled->compiler_version.empty()) record.toolkit = compiled->compiler_version;
  if (facts.hardware.empty()) {
    record.detail = absl::StrCat("compiled by ", facts.compiler, "; not run: ", facts.no_hardware);
    return false;
  }
  return true;
}

// The run level: verified or failed against the float64 reference, with the run's figures.
void RecordRun(BackendProber& prober, const ops::OpCase& op, const TargetSpec& target,
               const MachineFacts& facts, const ProbeContext& context, Record& record) {
  absl::StatusOr<RunFigures> run = prober.Run(op, target, context.seed);
  if (!run.ok()) {
    SetFailure(record, absl::StrCat("running on ", facts.hardware), run.status());
    return;
  }
  record.hardware = facts.hardware;
  record.shapes = run->shapes;
  record.seed = context.seed;
  record.atol = op.AtolAt(op.default_shapes);
  record.rtol = op.rtol;
  record.max_abs_error = run->max_abs_error;
  record.max_rel_error = run->max_rel_error;
  record.log = Excerpt(run->report);
  if (!run->passed) {
    record.status = Status::kFailed;
    record.detail = absl::StrCat("outside the tolerance on ", facts.hardware, " at ", run->shapes,
                                 " (seed ", context.seed, ")");
    return;
  }
  record.status = Status::kVerified;
  record.detail = absl::StrCat("within atol ", *record.atol, ", rtol ", op.rtol, " of the float64 ",
                               "reference at ", run->shapes, " (seed ", context.seed, ")");
}

}  // namespace

Record ProbeOperator(BackendProber& prober, const TargetSpec& target, const MachineFacts& facts,
                     const ops::OpCase& op, const ProbeContext& context) {
  Record record = NewRecord(prober, target, facts, op, context);
  absl::StatusOr<Kernel> kernel = op.build();
  if (!kernel.ok()) {
    record.ir_hash = "none";
    SetFailure(record, "building the kernel", kernel.status());
    return record;
  }
  record.ir_hash = HashText(Print(dsl::MakeModule({*kernel})));
  absl::StatusOr<Module> probed = ProbeModule(op, prober.Info(target).get());
  if (!probed.ok()) {
    SetFailure(record, "specializing the kernel", probed.status());
    return record;
  }
  absl::StatusOr<std::string> source = prober.Generate(*probed, target);
  if (!RecordGenerated(source, target, facts, record)) return record;
  if (!RecordCompiled(prober, *probed, *source, target, facts, record)) return record;
  RecordRun(prober, op, target, facts, context, record);
  return record;
}

}  // namespace tile_ir::matrix
