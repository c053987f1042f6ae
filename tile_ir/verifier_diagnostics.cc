// Diagnostic collection and the user-facing diagnostic text.
#include "tile_ir/verifier_diagnostics.h"

#include "absl/strings/str_cat.h"

namespace tile_ir {

std::string Diagnostic::ToString() const {
  std::string text;
  if (loc.known()) absl::StrAppend(&text, loc.ToString(), ": ");
  absl::StrAppend(&text, "error: ");
  if (!kernel.empty()) absl::StrAppend(&text, "in kernel '", kernel, "': ");
  absl::StrAppend(&text, message);
  return text;
}

namespace verifier {

void DiagnosticSink::Report(const Site& site, absl::string_view message) {
  if (static_cast<int>(diagnostics_.size()) >= kMaxDiagnostics) {
    ++dropped_;
    return;
  }
  diagnostics_.push_back({site.loc, kernel_, absl::StrCat("in ", site.where, ": ", message)});
}

void DiagnosticSink::ReportPlain(const SourceLoc& loc, std::string message) {
  if (static_cast<int>(diagnostics_.size()) >= kMaxDiagnostics) {
    ++dropped_;
    return;
  }
  diagnostics_.push_back({loc, kernel_, std::move(message)});
}

std::vector<Diagnostic> DiagnosticSink::Finish() && {
  if (dropped_ > 0) {
    diagnostics_.push_back({SourceLoc{}, "", absl::StrCat("... and ", dropped_, " more errors")});
  }
  return std::move(diagnostics_);
}

}  // namespace verifier
}  // namespace tile_ir
