// experiment_catalog.h — which experiments `gpusweep serve` shows, and the one place
// where a request's experiment id becomes a directory.
//
// Confinement: a request never supplies a path. It names an experiment by id, and the
// id is looked up in the list this catalog enumerates from the roots it was given, so
// "..", encoded slashes or absolute paths match nothing. An entry under a root that is
// a symlink leading outside that root is not listed.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/status.h"

namespace gpusweep::web {

struct CatalogEntry {
  std::string id;               // URL-safe: the directory's name ("~2", "~3" on clashes)
  std::filesystem::path dir;    // canonical path of the experiment directory
};

class ExperimentCatalog {
 public:
  // Each root is an experiment directory (it holds gpusweep.db) or a directory whose
  // subdirectories are experiments (e.g. ./runs). Error{kNotFound} naming a root that
  // does not exist or is not a directory.
  static Expected<ExperimentCatalog> Create(const std::vector<std::filesystem::path>& roots);

  // The experiments now present (re-read on each call, so new runs appear), sorted
  // by id.
  std::vector<CatalogEntry> List() const;
  // The entry whose id is exactly `id`; nullopt for any other string.
  std::optional<CatalogEntry> Find(const std::string& id) const;

 private:
  std::vector<std::filesystem::path> roots_;  // canonical
};

// Whether canonical `path` is `root` or lies below it (both canonical).
bool IsWithin(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace gpusweep::web
