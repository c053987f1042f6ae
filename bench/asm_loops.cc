// Loop extraction from assembly text, line by line.
#include "bench/asm_loops.h"

#include <vector>

namespace tile_ir::bench {
namespace {

constexpr std::string_view kBlanks = " \t";

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

std::string_view StripLeading(std::string_view s) {
  size_t start = s.find_first_not_of(kBlanks);
  return start == std::string_view::npos ? std::string_view() : s.substr(start);
}

// The instruction's mnemonic, or empty for labels, directives and comments.
std::string_view Mnemonic(std::string_view line) {
  std::string_view stripped = StripLeading(line);
  std::string_view word = stripped.substr(0, stripped.find_first_of(kBlanks));
  if (word.empty() || word[0] == '.' || word[0] == '#' || word.ends_with(":")) return {};
  return word;
}

bool IsVectorFma(std::string_view line) {
  std::string_view op = Mnemonic(line);
  bool fma = op.starts_with("vfmadd") || op.starts_with("vfmsub") || op.starts_with("vfnmadd") ||
             op.starts_with("vfnmsub");
  return fma && (op.ends_with("ps") || op.ends_with("pd"));
}

// The label a line defines ("LBB0_3" for ".LBB0_3:"), or empty.
std::string_view LabelDefined(std::string_view line) {
  if (line.empty() || kBlanks.find(line[0]) != std::string_view::npos || !line.ends_with(":")) {
    return {};
  }
  return line.substr(0, line.size() - 1);
}

// The target of a conditional or unconditional jump, or empty.
std::string_view JumpTarget(std::string_view line) {
  std::string_view op = Mnemonic(line);
  if (!op.starts_with("j")) return {};
  std::string_view rest = StripLeading(StripLeading(line).substr(op.size()));
  return rest.substr(0, rest.find_first_of(" \t#"));
}

}  // namespace

int CountVectorFmas(std::string_view assembly, std::string_view reg) {
  std::string needle = "%" + std::string(reg);
  int count = 0;
  for (std::string_view line : Lines(assembly)) {
    if (IsVectorFma(line) && line.find(needle) != std::string_view::npos) ++count;
  }
  return count;
}

AsmLoop HottestFmaLoop(std::string_view assembly) {
  std::vector<std::string_view> lines = Lines(assembly);
  // fmas_before[i]: vector FMAs on lines [0, i).
  std::vector<int> fmas_before(lines.size() + 1, 0);
  for (size_t i = 0; i < lines.size(); ++i) {
    fmas_before[i + 1] = fmas_before[i] + (IsVectorFma(lines[i]) ? 1 : 0);
  }
  struct Range {
    size_t begin, end;  // the label's line and the branch's line
    int fmas;
  };
  std::vector<Range> loops;
  for (size_t begin = 0; begin < lines.size(); ++begin) {
    std::string_view label = LabelDefined(lines[begin]);
    if (label.empty()) continue;
    for (size_t end = begin + 1; end < lines.size(); ++end) {
      int fmas = fmas_before[end + 1] - fmas_before[begin];
      if (fmas > 0 && JumpTarget(lines[end]) == label) loops.push_back({begin, end, fmas});
    }
  }
  // An outer loop counts its inner loops' FMAs too: only loops that contain
  // no other loop with FMAs compete.
  auto innermost = [&](const Range& outer) {
    for (const Range& inner : loops) {
      bool inside = outer.begin <= inner.begin && inner.end <= outer.end;
      if (inside && (inner.begin != outer.begin || inner.end != outer.end)) return false;
    }
    return true;
  };
  const Range* best = nullptr;
  for (const Range& loop : loops) {
    if (!innermost(loop)) continue;
    if (best == nullptr || loop.fmas > best->fmas ||
        (loop.fmas == best->fmas && loop.end - loop.begin < best->end - best->begin)) {
      best = &loop;
    }
  }
  AsmLoop result;
  if (best == nullptr) return result;
  for (size_t i = best->begin; i <= best->end; ++i) {
    result.text.append(lines[i]);
    result.text.push_back('\n');
  }
  result.num_lines = static_cast<int>(best->end - best->begin + 1);
  result.fmas = best->fmas;
  return result;
}

std::string Excerpt(std::string_view text, int max_lines) {
  std::vector<std::string_view> lines = Lines(text);
  std::string out;
  for (size_t i = 0; i < lines.size() && static_cast<int>(i) < max_lines; ++i) {
    out.append(lines[i]);
    out.push_back('\n');
  }
  if (static_cast<int>(lines.size()) > max_lines) {
    out += "... (" + std::to_string(lines.size() - max_lines) + " more lines)\n";
  }
  return out;
}

}  // namespace tile_ir::bench
