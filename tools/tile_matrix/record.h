// The support matrix's records: per operator and target one status with the
// evidence behind it, the committed records file (JSON, one object per cell,
// sorted), merging records from several machines and the checks a record
// must pass before it is kept.
#ifndef TOOLS_TILE_MATRIX_RECORD_H_
#define TOOLS_TILE_MATRIX_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tile_ir::matrix {

// Ordered by strength of evidence among the successes; failed and
// unsupported are answers too, not levels.
enum class Status { kUnsupported, kFailed, kGenerated, kCompiled, kVerified };

absl::string_view StatusName(Status status);
std::optional<Status> ParseStatus(absl::string_view name);
// Generated < compiled < verified; false for failed and unsupported.
bool IsSuccess(Status status);

struct Record {
  // The cell: an operator of the suite at one target.
  std::string op;       // the suite's name, "gemm_bf16"
  std::string target;   // "cpu", "cuda:sm_90a", "hip:gfx90a", "metal"
  std::string backend;  // "cpu", "cuda", "hip", "metal"
  std::string dtype;    // the kernel's first buffer parameter's dtype, "bf16"
  Status status = Status::kFailed;
  // What the status rests on, in a line or a few: the check for verified,
  // why it stopped where it did for compiled and generated, the error for
  // failed, the missing capability for unsupported.
  std::string detail;
  // Evidence.
  std::string arch;      // "sm_90a", "gfx90a", the host CPU's LLVM name
  std::string hardware;  // what ran it (verified), "NVIDIA H200 (...)"
  std::string toolkit;   // compiler and driver versions, "NVRTC 13.0"
  std::string commit;    // the project's commit, "1effdb6+changes", or "unknown"
  std::string date;      // UTC, "2026-12-01T10:22:33Z"
  std::string machine;   // the host name of the machine that probed
  // The staleness context: hashes of the kernel's canonical text and of the
  // target's lowering (pipeline string, device library).
  std::string ir_hash;
  std::string lowering_hash;
  // The hash of what generating the operator's code gave (the source, or the refusal): a
  // change in a pass or an emitter that changes this operator's code stales the record,
  // which the lowering hash (pipeline string, device library) cannot see. Empty in records
  // made before it existed and for targets whose code follows the host (the CPU's: another
  // machine's CPU name and features would change it); judged only at the record's arch.
  std::string code_hash;
  // Numerics (verified, and failed checks).
  std::optional<double> max_abs_error;
  std::optional<double> max_rel_error;
  std::optional<double> atol;
  std::optional<double> rtol;
  std::string shapes;  // "M=1024,N=1024,K=1024"
  std::optional<uint64_t> seed;
  std::string log;  // an excerpt: compiler messages, the error, the check lines
};

// Cells sort by operator, then target.
bool CellLess(const Record& a, const Record& b);
bool SameCell(const Record& a, const Record& b);

// OK when the record carries what its status claims: every record its cell,
// dtype, status, arch, commit, date and hashes; verified also hardware,
// toolkit, shapes, tolerances and both error figures; compiled the compiler
// (toolkit); failed and unsupported a detail. The error names the cell and
// the missing fields.
absl::Status ValidateRecord(const Record& record);

// The records file's text: a JSON object with a format tag and the records,
// sorted by cell, one field per line so that diffs show what changed.
std::string WriteRecordsJson(std::vector<Record> records);
// Parses what WriteRecordsJson writes; errors name `file_name`, the line and
// column or the record and field, and the problem. Unknown fields, duplicate
// cells and invalid records are errors.
absl::StatusOr<std::vector<Record>> ParseRecordsJson(absl::string_view text,
                                                     absl::string_view file_name);

absl::StatusOr<std::vector<Record>> ReadRecordsFile(const std::string& path);
// A missing file is an empty matrix; any other read error is returned.
absl::StatusOr<std::vector<Record>> ReadRecordsFileOrEmpty(const std::string& path);
// Atomic: a temporary file beside `path`, then rename.
absl::Status WriteRecordsFile(const std::string& path, const std::vector<Record>& records);

// What merging did with one incoming record.
enum class MergeAction {
  kAdded,      // a new cell
  kReplaced,   // newer than the record it replaced
  kKeptOlder,  // older than (or as old as) the record the matrix has
  // A weaker success (generated or compiled) for the same code as a stronger
  // one (compiled or verified): the machine that probed could not go as far,
  // and the stronger evidence still holds.
  kKeptStronger,
};

struct MergeEvent {
  MergeAction action;
  std::string cell;  // "gemm_f16 @ cuda:sm_90a"
  std::string what;  // "verified replaces compiled"
};

// Folds `incoming` into `matrix` (both by cell, any order; the result is
// sorted): a newer record replaces an older one for the same cell, except
// that a weaker success never replaces a stronger one with the same hashes.
std::vector<MergeEvent> MergeRecords(std::vector<Record>& matrix,
                                     const std::vector<Record>& incoming);

std::string CellName(const Record& record);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_RECORD_H_
