#include "common/did_you_mean.h"

#include <algorithm>
#include <vector>

namespace gpusweep {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rolling rows: the transposition case looks two rows back.
  const std::size_t n = b.size();
  std::vector<std::size_t> before_prev(n + 1), prev(n + 1), cur(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], before_prev[j - 2] + 1);
    }
    std::swap(before_prev, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::optional<std::string> ClosestMatch(std::string_view word,
                                        std::span<const std::string_view> candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = EditDistance(word, candidate);
    const std::size_t limit = std::max<std::size_t>(2, candidate.size() / 3);
    if (distance > limit || distance >= word.size()) continue;
    if (!best || distance < best_distance) {
      best = std::string(candidate);
      best_distance = distance;
    }
  }
  return best;
}

std::string JoinNames(std::span<const std::string_view> names) {
  std::string joined;
  for (std::string_view name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

}  // namespace gpusweep
