#include "nas/racos.h"

#include <algorithm>
#include <cassert>
#include <numeric>

namespace gpusweep::nas {
namespace {

std::uint64_t Mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

RandomStream::RandomStream(std::uint64_t seed, std::uint64_t stream)
    : state_(Mix64(seed ^ Mix64(stream + 0x5851F42D4C957F2DULL))) {}

std::uint64_t RandomStream::Next() {
  state_ += 0x9E3779B97F4A7C15ULL;
  return Mix64(state_);
}

double RandomStream::Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

int RandomStream::Below(int n) {
  assert(n >= 1 && "an index drawn from an empty range");
  return static_cast<int>((static_cast<unsigned __int128>(Next()) * static_cast<unsigned>(n)) >> 64);
}

Racos::Racos(std::vector<int> sizes, RacosConfig config,
             std::function<std::vector<bool>(const std::vector<int>&)> relevant)
    : sizes_(std::move(sizes)), config_(config), relevant_(std::move(relevant)) {}

std::vector<int> Racos::Uniform(RandomStream& stream) const {
  std::vector<int> code(sizes_.size());
  for (std::size_t d = 0; d < sizes_.size(); ++d) code[d] = stream.Below(sizes_[d]);
  return code;
}

// SRACOS's sets, replayed over the history in order. The first sample_size +
// positive_num samples are split by score (ties: the earlier is better); afterwards a
// sample better than the worst positive takes its place and the demoted positive becomes
// a negative, and any other sample becomes a negative; a new negative replaces the
// oldest one, so the set moves on with the search.
Racos::Sets Racos::Classify(const std::vector<Scored>& history) const {
  Sets sets;
  const std::size_t startup = static_cast<std::size_t>(config_.sample_size + config_.positive_num);
  const std::size_t first = std::min(history.size(), startup);
  std::vector<int> order(first);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return history[a].score > history[b].score; });
  for (std::size_t i = 0; i < order.size(); ++i)
    (static_cast<int>(i) < config_.positive_num ? sets.positives : sets.negatives).push_back(order[i]);
  std::sort(sets.negatives.begin(), sets.negatives.end());  // oldest first
  auto add_negative = [&](int index) {
    sets.negatives.push_back(index);
    if (static_cast<int>(sets.negatives.size()) > config_.sample_size)
      sets.negatives.erase(sets.negatives.begin());
  };
  for (std::size_t i = first; i < history.size(); ++i) {
    const int index = static_cast<int>(i);
    auto worst = std::min_element(sets.positives.begin(), sets.positives.end(), [&](int a, int b) {
      return history[a].score < history[b].score || (history[a].score == history[b].score && a > b);
    });
    if (worst != sets.positives.end() && history[i].score > history[*worst].score) {
      const int demoted = *worst;
      *worst = index;
      add_negative(demoted);
    } else {
      add_negative(index);
    }
  }
  std::sort(sets.positives.begin(), sets.positives.end());
  return sets;
}

std::vector<int> Racos::Positives(const std::vector<Scored>& history) const {
  return Classify(history).positives;
}

std::vector<int> Racos::Negatives(const std::vector<Scored>& history) const {
  std::vector<int> negatives = Classify(history).negatives;
  std::sort(negatives.begin(), negatives.end());
  return negatives;
}

std::vector<int> Racos::Next(const std::vector<Scored>& history, RandomStream& stream) const {
  if (static_cast<int>(history.size()) < config_.sample_size + config_.positive_num)
    return Uniform(stream);
  if (stream.Unit() >= config_.rand_probability) return Uniform(stream);
  return InRegion(history, stream);
}

std::vector<int> Racos::InRegion(const std::vector<Scored>& history, RandomStream& stream) const {
  const Sets sets = Classify(history);
  const std::vector<int>& positives = sets.positives;
  const std::vector<int>& x = history[positives[stream.Below(static_cast<int>(positives.size()))]].code;
  const std::size_t dims = sizes_.size();
  std::vector<bool> fixed(dims, false);
  for (std::size_t d = 0; d < dims; ++d) fixed[d] = sizes_[d] <= 1;  // nothing to choose
  // Shrink away from every negative: fix one dimension it differs on.
  std::vector<int> inside = sets.negatives;
  while (!inside.empty()) {
    const int pick = stream.Below(static_cast<int>(inside.size()));
    const std::vector<int>& negative = history[inside[pick]].code;
    std::vector<std::size_t> differing;
    for (std::size_t d = 0; d < dims; ++d)
      if (!fixed[d] && negative[d] != x[d]) differing.push_back(d);
    if (!differing.empty()) {
      const std::size_t d = differing[stream.Below(static_cast<int>(differing.size()))];
      fixed[d] = true;
    }
    // Keep only negatives still inside: equal to x on every fixed dimension. A
    // negative equal to x wherever it is free cannot be excluded; it is dropped.
    std::vector<int> still;
    for (int n : inside) {
      if (n == inside[pick] && differing.empty()) continue;
      bool in = true;
      for (std::size_t d = 0; d < dims && in; ++d)
        if (fixed[d] && history[n].code[d] != x[d]) in = false;
      if (in) still.push_back(n);
    }
    inside = std::move(still);
  }
  // Leave at most uncertain_bit of the dimensions that matter for x free.
  const std::vector<bool> relevant = relevant_ ? relevant_(x) : std::vector<bool>(dims, true);
  std::vector<std::size_t> free;
  for (std::size_t d = 0; d < dims; ++d)
    if (!fixed[d] && relevant[d]) free.push_back(d);
  while (static_cast<int>(free.size()) > config_.uncertain_bit)
    free.erase(free.begin() + stream.Below(static_cast<int>(free.size())));
  std::vector<int> sample = x;
  for (std::size_t d : free) sample[d] = stream.Below(sizes_[d]);
  return sample;
}

}  // namespace gpusweep::nas
