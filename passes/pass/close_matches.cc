// Edit distance (optimal string alignment) and the suggestions built on it.
#include "passes/pass/close_matches.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tile_ir::passes {
namespace {

// Damerau-Levenshtein distance restricted to non-overlapping swaps, in
// O(|a| * |b|) time with three rows.
int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> before_previous(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before_previous[j - 2] + 1);
      }
    }
    std::swap(before_previous, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

std::vector<std::string> CloseMatches(std::string_view word,
                                      const std::vector<std::string>& candidates) {
  std::vector<std::pair<int, std::string>> scored;
  for (const std::string& candidate : candidates) {
    int limit = std::min<int>(3, std::max(word.size(), candidate.size()) / 3);
    int distance = EditDistance(word, candidate);
    if (distance <= std::max(limit, 1)) scored.emplace_back(distance, candidate);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> matches;
  for (auto& [distance, name] : scored) matches.push_back(std::move(name));
  return matches;
}

std::string DidYouMean(const std::vector<std::string>& matches) {
  if (matches.empty()) return "";
  std::string text = "; did you mean ";
  for (size_t i = 0; i < matches.size(); ++i) {
    if (i > 0) absl::StrAppend(&text, i + 1 == matches.size() ? " or " : ", ");
    absl::StrAppend(&text, "'", matches[i], "'");
  }
  return text + "?";
}

}  // namespace tile_ir::passes
