// Collects the verifier's diagnostics for one run: which kernel and statement
// each belongs to, and a cap so that badly broken IR yields a readable report.
#ifndef TILE_IR_VERIFIER_DIAGNOSTICS_H_
#define TILE_IR_VERIFIER_DIAGNOSTICS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tile_ir/source_loc.h"
#include "tile_ir/verifier.h"

namespace tile_ir::verifier {

// Where a problem is: the source location to report and the construct it is in,
// e.g. "gemm", "for loop over 'k'", "parameter 'A'".
struct Site {
  SourceLoc loc;
  std::string where;
};

class DiagnosticSink {
 public:
  // Past this many, diagnostics are only counted: the first ones are the useful ones.
  static constexpr int kMaxDiagnostics = 100;

  // The kernel that later diagnostics belong to; empty for module-level ones.
  void set_kernel(std::string name) { kernel_ = std::move(name); }

  // Records "in <site.where>: <message>" at site.loc.
  void Report(const Site& site, absl::string_view message);
  // Records a message that names its construct itself.
  void ReportPlain(const SourceLoc& loc, std::string message);

  // The diagnostics, ending in "... and N more errors" when some were dropped.
  std::vector<Diagnostic> Finish() &&;

 private:
  std::string kernel_;
  std::vector<Diagnostic> diagnostics_;
  int dropped_ = 0;
};

}  // namespace tile_ir::verifier

#endif  // TILE_IR_VERIFIER_DIAGNOSTICS_H_
