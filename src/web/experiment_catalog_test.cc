#include "web/experiment_catalog.h"

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"
#include "web/web_test_util.h"

namespace gpusweep::web {
namespace {

using test_support::TempDir;
using testing::FakeExperiment;

TEST(ExperimentCatalogTest, ListsExperimentsUnderARootAndARootThatIsOne) {
  TempDir runs, other;
  FakeExperiment a(runs.path(), "alpha", 1), b(runs.path(), "beta", 1), c(other.path(), "gamma", 1);
  std::filesystem::create_directories(runs.path() / "not-an-experiment");
  auto catalog = ExperimentCatalog::Create({runs.path(), c.dir()});
  ASSERT_TRUE(catalog) << catalog.error().message;
  std::vector<std::string> ids;
  for (const CatalogEntry& e : catalog->List()) ids.push_back(e.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"alpha", "beta", "gamma"}));
  EXPECT_EQ(catalog->Find("beta")->dir, std::filesystem::canonical(b.dir()));
}

TEST(ExperimentCatalogTest, IdsThatAreNotListedFindNothing) {
  TempDir runs;
  FakeExperiment a(runs.path(), "alpha", 1);
  auto catalog = ExperimentCatalog::Create({runs.path()});
  ASSERT_TRUE(catalog);
  for (const char* id : {"..", ".", "../alpha", "alpha/..", "/etc", "alpha%2F..", "", "ALPHA"})
    EXPECT_FALSE(catalog->Find(id)) << id;
}

TEST(ExperimentCatalogTest, ASymlinkLeadingOutOfTheRootIsNotListed) {
  TempDir runs, outside;
  FakeExperiment secret(outside.path(), "secret", 1);
  FakeExperiment inside(runs.path(), "inside", 1);
  std::filesystem::create_directory_symlink(secret.dir(), runs.path() / "link-out");
  std::filesystem::create_directory_symlink(inside.dir(), runs.path() / "link-in");
  auto catalog = ExperimentCatalog::Create({runs.path()});
  ASSERT_TRUE(catalog);
  EXPECT_FALSE(catalog->Find("link-out"));
  EXPECT_FALSE(catalog->Find("secret"));
  ASSERT_TRUE(catalog->Find("inside"));  // a link within the root is the same experiment
}

TEST(ExperimentCatalogTest, AMissingRootIsAnErrorNamingIt) {
  auto catalog = ExperimentCatalog::Create({"/no/such/dir"});
  ASSERT_FALSE(catalog);
  EXPECT_NE(catalog.error().message.find("/no/such/dir"), std::string::npos);
}

}  // namespace
}  // namespace gpusweep::web
