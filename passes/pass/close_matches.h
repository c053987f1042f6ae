// "Did you mean" suggestions for misspelled pass and option names.
#ifndef PASSES_PASS_CLOSE_MATCHES_H_
#define PASSES_PASS_CLOSE_MATCHES_H_

#include <string>
#include <string_view>
#include <vector>

namespace tile_ir::passes {

// The candidates closest to `word` by edit distance (insertions, deletions,
// substitutions and swaps of adjacent letters), best first and then by name.
// Only candidates close enough to be a plausible typo are returned: at most a
// third of the longer word's length, and never more than 3 edits.
std::vector<std::string> CloseMatches(std::string_view word,
                                      const std::vector<std::string>& candidates);

// "; did you mean 'a'?", "; did you mean 'a' or 'b'?", or "" when `matches` is empty.
std::string DidYouMean(const std::vector<std::string>& matches);

}  // namespace tile_ir::passes

#endif  // PASSES_PASS_CLOSE_MATCHES_H_
