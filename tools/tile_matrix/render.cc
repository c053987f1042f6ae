// Markdown and HTML renderings of the records.
#include "tools/tile_matrix/render.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace tile_ir::matrix {
namespace {

std::string Short(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2g", value);
  return buffer;
}

std::string FirstLine(const std::string& text) {
  return std::string(text.substr(0, text.find('\n')));
}

using Cells = std::map<std::pair<std::string, std::string>, const Record*>;

Cells ByCell(const std::vector<Record>& records) {
  Cells cells;
  for (const Record& record : records) cells[{record.op, record.target}] = &record;
  return cells;
}

std::string DtypeOf(const std::string& op, const Cells& cells, const CurrentCode& code) {
  auto known = code.dtype.find(op);
  if (known != code.dtype.end()) return known->second;
  for (const auto& [cell, record] : cells) {
    if (cell.first == op) return record->dtype;
  }
  return "?";
}

// "a, b" of the distinct non-empty values, in first-seen order.
std::string Distinct(const std::vector<std::string>& values) {
  std::vector<std::string> seen;
  for (const std::string& value : values) {
    if (!value.empty() && std::find(seen.begin(), seen.end(), value) == seen.end())
      seen.push_back(value);
  }
  return seen.empty() ? "-" : absl::StrJoin(seen, "; ");
}

struct TargetSummary {
  std::string target;
  std::map<std::string, int> counts;  // by status name
  std::vector<std::string> arch, hardware, toolkit, commit;
  std::string first_date, last_date;
};

std::vector<TargetSummary> SummarizeTargets(const std::vector<std::string>& targets,
                                            const std::vector<Record>& records) {
  std::vector<TargetSummary> summaries;
  for (const std::string& target : targets) {
    TargetSummary summary;
    summary.target = target;
    for (const Record& record : records) {
      if (record.target != target) continue;
      ++summary.counts[std::string(StatusName(record.status))];
      summary.arch.push_back(record.arch);
      summary.hardware.push_back(record.hardware);
      summary.toolkit.push_back(record.toolkit);
      summary.commit.push_back(record.commit);
      if (summary.first_date.empty() || record.date < summary.first_date)
        summary.first_date = record.date;
      if (record.date > summary.last_date) summary.last_date = record.date;
    }
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

std::string CountsText(const TargetSummary& summary) {
  std::vector<std::string> parts;
  for (Status status : {Status::kVerified, Status::kCompiled, Status::kGenerated, Status::kFailed,
                        Status::kUnsupported}) {
    auto it = summary.counts.find(std::string(StatusName(status)));
    if (it != summary.counts.end()) parts.push_back(absl::StrCat(it->second, " ", it->first));
  }
  return parts.empty() ? "no records" : absl::StrJoin(parts, ", ");
}

std::string DateRange(const TargetSummary& summary) {
  if (summary.first_date.empty()) return "-";
  std::string first = summary.first_date.substr(0, 10), last = summary.last_date.substr(0, 10);
  return first == last ? first : absl::StrCat(first, " to ", last);
}

std::string MarkdownEscape(const std::string& text) {
  return absl::StrReplaceAll(FirstLine(text), {{"|", "\\|"}, {"<", "&lt;"}, {">", "&gt;"}});
}

std::string HtmlEscape(const std::string& text) {
  return absl::StrReplaceAll(text,
                             {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

constexpr const char* kLegend =
    "**verified**: ran on real hardware and matched the float64 reference within the "
    "operator's tolerance (the figure is the max absolute error); **compiled**: the backend's "
    "real device compiler accepted the generated code, nothing ran it; **generated**: source "
    "emitted, no compiler for it on the machines that probed; **failed**: a level after "
    "lowering went wrong (the error is below); **unsupported**: the target's lowering refused "
    "the operator, naming the missing capability (below); *stale*: the kernel, the target's "
    "lowering or the code generated for the operator changed since the record was made, so "
    "its evidence is about older code.";

}  // namespace

std::string CellSummary(const Record& record) {
  std::string text(StatusName(record.status));
  if (record.status == Status::kVerified && record.max_abs_error) {
    absl::StrAppend(&text, ", max abs err ", Short(*record.max_abs_error));
  }
  return text;
}

std::vector<std::pair<std::string, std::string>> EvidenceFields(const Record& record) {
  std::vector<std::pair<std::string, std::string>> fields;
  auto add = [&](const std::string& name, const std::string& value) {
    if (!value.empty()) fields.emplace_back(name, value);
  };
  auto number = [&](const std::string& name, const std::optional<double>& value) {
    if (value) add(name, Short(*value));
  };
  add("status", std::string(StatusName(record.status)));
  add("detail", record.detail);
  add("backend", record.backend);
  add("arch", record.arch);
  add("dtype", record.dtype);
  add("hardware", record.hardware);
  add("toolkit", record.toolkit);
  number("max abs error", record.max_abs_error);
  number("max rel error", record.max_rel_error);
  if (record.atol || record.rtol) {
    add("tolerance", absl::StrCat("atol ", Short(record.atol.value_or(0)), ", rtol ",
                                  Short(record.rtol.value_or(0))));
  }
  add("shapes", record.shapes);
  if (record.seed) add("seed", std::to_string(*record.seed));
  add("commit", record.commit);
  add("date", record.date);
  add("machine", record.machine);
  add("context", absl::StrCat("ir ", record.ir_hash, ", lowering ", record.lowering_hash,
                              record.code_hash.empty() ? "" : ", code ", record.code_hash));
  add("log", record.log);
  return fields;
}

std::string FormatEvidence(const Record& record) {
  std::string out;
  for (const auto& [name, value] : EvidenceFields(record)) {
    absl::StrAppend(&out, "  ", name, ": ", absl::StrReplaceAll(value, {{"\n", "\n    "}}), "\n");
  }
  return out;
}

std::string RenderMarkdown(const std::vector<Record>& records, const CurrentCode& code,
                           const std::string& records_path) {
  Cells cells = ByCell(records);
  std::vector<std::string> targets = MatrixTargets(records, code);
  std::vector<std::string> ops = MatrixOps(records, code);
  std::string out = absl::StrCat(
      "# Support matrix\n\n"
      "What each operator of the suite (`ops/`) does on each target, with the evidence "
      "for it. Written by `bazel run //tools:tile-matrix -- render` from `",
      records_path,
      "`; do not edit by hand (a test checks that this file is what `render` writes). "
      "`tile-matrix query --op=NAME` prints the evidence behind a cell, and "
      "`docs/support_matrix/index.html` shows all of it.\n\n",
      kLegend, "\n\n");
  absl::StrAppend(&out, "| operator | dtype | ", absl::StrJoin(targets, " | "),
                  " |\n| --- | --- |");
  for (size_t i = 0; i < targets.size(); ++i) absl::StrAppend(&out, " --- |");
  absl::StrAppend(&out, "\n");
  std::vector<std::string> problems, stale;
  for (const std::string& op : ops) {
    absl::StrAppend(&out, "| ", op, " | ", DtypeOf(op, cells, code), " |");
    for (const std::string& target : targets) {
      auto it = cells.find({op, target});
      if (it == cells.end()) {
        absl::StrAppend(&out, " no record |");
        continue;
      }
      const Record& record = *it->second;
      std::string text(StatusName(record.status));
      if (record.status == Status::kVerified && record.max_abs_error)
        text = absl::StrCat("verified ", Short(*record.max_abs_error));
      if (record.status == Status::kFailed) text = "**failed**";
      std::string why = StaleReason(record, code);
      if (!why.empty()) {
        absl::StrAppend(&text, " *(stale)*");
        stale.push_back(absl::StrCat("- `", CellName(record), "`: ", why, " (", record.date, ")"));
      }
      absl::StrAppend(&out, " ", text, " |");
      if (record.status == Status::kFailed || record.status == Status::kUnsupported) {
        problems.push_back(absl::StrCat("- `", CellName(record), "` ", StatusName(record.status),
                                        ": ", MarkdownEscape(record.detail)));
      }
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out,
                  "\n## Evidence by target\n\n"
                  "| target | records | arch | hardware (verified) | toolkit | commits | dates |\n"
                  "| --- | --- | --- | --- | --- | --- | --- |\n");
  for (const TargetSummary& summary : SummarizeTargets(targets, records)) {
    absl::StrAppend(&out, "| ", summary.target, " | ", CountsText(summary), " | ",
                    MarkdownEscape(Distinct(summary.arch)), " | ",
                    MarkdownEscape(Distinct(summary.hardware)), " | ",
                    MarkdownEscape(Distinct(summary.toolkit)), " | ",
                    MarkdownEscape(Distinct(summary.commit)), " | ", DateRange(summary), " |\n");
  }
  absl::StrAppend(&out, "\n## Failed and unsupported\n\n",
                  problems.empty() ? "None.\n" : absl::StrCat(absl::StrJoin(problems, "\n"), "\n"));
  absl::StrAppend(&out, "\n## Stale records\n\n",
                  stale.empty() ? "None.\n" : absl::StrCat(absl::StrJoin(stale, "\n"), "\n"));
  return out;
}

std::string RenderHtml(const std::vector<Record>& records, const CurrentCode& code,
                       const std::string& records_path) {
  Cells cells = ByCell(records);
  std::vector<std::string> targets = MatrixTargets(records, code);
  std::vector<std::string> ops = MatrixOps(records, code);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>tile support matrix</title>\n<style>\n"
      "body { font-family: sans-serif; margin: 2em; }\n"
      "table { border-collapse: collapse; }\n"
      "th, td { border: 1px solid #bbb; padding: 4px 8px; vertical-align: top; text-align: left; "
      "}\n"
      "td.verified { background: #c8f0c8; } td.compiled { background: #d8e8ff; }\n"
      "td.generated { background: #eeeeee; } td.failed { background: #ffc8c8; }\n"
      "td.unsupported { background: #fff0b0; } td.none { color: #888; }\n"
      ".stale { font-style: italic; color: #a00; }\n"
      "details > summary { cursor: pointer; }\n"
      "dl { margin: 4px 0; font-size: 85%; } dt { font-weight: bold; }\n"
      "dd { margin: 0 0 4px 1em; max-width: 40em; overflow-wrap: anywhere; }\n"
      "pre { white-space: pre-wrap; max-width: 60em; font-size: 85%; }\n"
      "</style>\n</head>\n<body>\n<h1>tile support matrix</h1>\n";
  absl::StrAppend(
      &out, "<p>Written by <code>bazel run //tools:tile-matrix -- render</code> from <code>",
      HtmlEscape(records_path), "</code>. Open a cell for the evidence behind it.</p>\n<p>",
      HtmlEscape(absl::StrReplaceAll(kLegend, {{"**", ""}, {"*", ""}})), "</p>\n");
  absl::StrAppend(&out, "<table>\n<tr><th>operator</th><th>dtype</th>");
  for (const std::string& target : targets)
    absl::StrAppend(&out, "<th>", HtmlEscape(target), "</th>");
  absl::StrAppend(&out, "</tr>\n");
  for (const std::string& op : ops) {
    absl::StrAppend(&out, "<tr><td>", HtmlEscape(op), "</td><td>",
                    HtmlEscape(DtypeOf(op, cells, code)), "</td>");
    for (const std::string& target : targets) {
      auto it = cells.find({op, target});
      if (it == cells.end()) {
        absl::StrAppend(&out, "<td class=\"none\">no record</td>");
        continue;
      }
      const Record& record = *it->second;
      std::string why = StaleReason(record, code);
      absl::StrAppend(&out, "<td class=\"", StatusName(record.status), "\"><details><summary>",
                      HtmlEscape(CellSummary(record)),
                      why.empty() ? "" : " <span class=\"stale\">(stale)</span>",
                      "</summary>\n<dl>");
      if (!why.empty()) absl::StrAppend(&out, "<dt>stale</dt><dd>", HtmlEscape(why), "</dd>");
      for (const auto& [name, value] : EvidenceFields(record)) {
        if (name == "log") continue;  // a block of its own below
        absl::StrAppend(&out, "<dt>", HtmlEscape(name), "</dt><dd>", HtmlEscape(value), "</dd>");
      }
      absl::StrAppend(&out, "</dl>");
      if (!record.log.empty()) absl::StrAppend(&out, "<pre>", HtmlEscape(record.log), "</pre>");
      absl::StrAppend(&out, "</details></td>");
    }
    absl::StrAppend(&out, "</tr>\n");
  }
  absl::StrAppend(&out,
                  "</table>\n<h2>Evidence by target</h2>\n<table>\n"
                  "<tr><th>target</th><th>records</th><th>arch</th><th>hardware "
                  "(verified)</th><th>toolkit</th><th>commits</th><th>dates</th></tr>\n");
  for (const TargetSummary& summary : SummarizeTargets(targets, records)) {
    absl::StrAppend(
        &out, "<tr><td>", HtmlEscape(summary.target), "</td><td>", HtmlEscape(CountsText(summary)),
        "</td><td>", HtmlEscape(Distinct(summary.arch)), "</td><td>",
        HtmlEscape(Distinct(summary.hardware)), "</td><td>", HtmlEscape(Distinct(summary.toolkit)),
        "</td><td>", HtmlEscape(Distinct(summary.commit)), "</td><td>",
        HtmlEscape(DateRange(summary)), "</td></tr>\n");
  }
  absl::StrAppend(&out, "</table>\n</body>\n</html>\n");
  return out;
}

}  // namespace tile_ir::matrix
