// The matrix for people: a Markdown table (docs/SUPPORT_MATRIX.md, committed
// and checked against the records by a test) and a self-contained HTML page
// that shows the evidence behind each cell. Both are functions of the
// records and the current code only, so rendering twice gives the same bytes.
#ifndef TOOLS_TILE_MATRIX_RENDER_H_
#define TOOLS_TILE_MATRIX_RENDER_H_

#include <string>
#include <utility>
#include <vector>

#include "tools/tile_matrix/current_code.h"
#include "tools/tile_matrix/record.h"

namespace tile_ir::matrix {

// `records_path` is named in the page as where the records live.
std::string RenderMarkdown(const std::vector<Record>& records, const CurrentCode& code,
                           const std::string& records_path);
std::string RenderHtml(const std::vector<Record>& records, const CurrentCode& code,
                       const std::string& records_path);

// "verified, max abs err 1.2e-06" and the like: a cell in one phrase.
std::string CellSummary(const Record& record);
// The record's evidence as (name, value) pairs, empty ones left out, the log last.
std::vector<std::pair<std::string, std::string>> EvidenceFields(const Record& record);
// Every field of the record as indented "name: value" lines (query's answer).
std::string FormatEvidence(const Record& record);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_RENDER_H_
