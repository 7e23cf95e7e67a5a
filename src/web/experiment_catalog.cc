#include "web/experiment_catalog.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "view/experiment_view.h"

namespace gpusweep::web {
namespace {

// Ids appear in URLs: keep them to characters that need no encoding.
std::string UrlSafe(const std::string& name) {
  std::string id;
  for (char c : name) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    id += plain ? c : '_';
  }
  return id;
}

// The experiment directories directly under (or at) `root`, canonical and confined.
std::vector<std::filesystem::path> ExperimentsUnder(const std::filesystem::path& root) {
  if (HoldsExperiment(root)) return {root};
  std::vector<std::filesystem::path> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    std::filesystem::path dir = std::filesystem::canonical(entry.path(), ec);
    if (ec || !IsWithin(dir, root) || !HoldsExperiment(dir)) continue;
    found.push_back(dir);
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

bool IsWithin(const std::filesystem::path& path, const std::filesystem::path& root) {
  auto [root_end, path_it] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

Expected<ExperimentCatalog> ExperimentCatalog::Create(
    const std::vector<std::filesystem::path>& roots) {
  ExperimentCatalog catalog;
  for (const std::filesystem::path& root : roots) {
    std::error_code ec;
    std::filesystem::path canonical = std::filesystem::canonical(root, ec);
    if (ec || !std::filesystem::is_directory(canonical, ec))
      return Fail(ErrorCode::kNotFound,
                  fmt::format("{} is not a directory; pass an experiment directory or one "
                              "holding experiments (e.g. runs/)",
                              root.string()));
    catalog.roots_.push_back(std::move(canonical));
  }
  return catalog;
}

std::vector<CatalogEntry> ExperimentCatalog::List() const {
  std::vector<CatalogEntry> entries;
  std::map<std::string, int> uses;
  for (const std::filesystem::path& root : roots_) {
    for (std::filesystem::path& dir : ExperimentsUnder(root)) {
      std::string id = UrlSafe(dir.filename().string());
      if (int n = ++uses[id]; n > 1) id += fmt::format("~{}", n);
      entries.push_back({std::move(id), std::move(dir)});
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const CatalogEntry& a, const CatalogEntry& b) { return a.id < b.id; });
  return entries;
}

std::optional<CatalogEntry> ExperimentCatalog::Find(const std::string& id) const {
  for (CatalogEntry& entry : List())
    if (entry.id == id) return std::move(entry);
  return std::nullopt;
}

}  // namespace gpusweep::web
