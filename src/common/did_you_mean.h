// did_you_mean.h — "did you mean ...?" suggestions for misspelled keys and values.
//
// Contract: pure functions over strings; no allocation failures are reported.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace gpusweep {

// Optimal string alignment distance (Levenshtein plus adjacent transpositions, each
// edit costing 1; Damerau 1964, restricted form). "search_spce" -> "search_space" is 1,
// "nmae" -> "name" is 1. Case-sensitive.
std::size_t EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a plausible typo:
// distance <= max(2, candidate length / 3) and strictly less than the word's own
// length (so "ab" does not suggest "cd"). Ties go to the earliest candidate.
// nullopt when nothing is close.
std::optional<std::string> ClosestMatch(std::string_view word,
                                        std::span<const std::string_view> candidates);

// "a, b, c": candidates joined for "valid keys: ..." hints.
std::string JoinNames(std::span<const std::string_view> names);

}  // namespace gpusweep
