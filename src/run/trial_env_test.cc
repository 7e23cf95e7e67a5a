#include "run/trial_env.h"

#include <gtest/gtest.h>

namespace gpusweep {
namespace {

TEST(TrialEnvTest, MergeReplacesAndAppends) {
  std::vector<std::string> base{"PATH=/bin", "HOME=/root", "CUDA_VISIBLE_DEVICES=0,1"};
  auto merged = MergeEnv(base, {{"CUDA_VISIBLE_DEVICES", "1"}, {"GPUSWEEP_TRIAL_ID", "3"}});
  EXPECT_EQ(merged, (std::vector<std::string>{"PATH=/bin", "HOME=/root",
                                              "CUDA_VISIBLE_DEVICES=1", "GPUSWEEP_TRIAL_ID=3"}));
}

TEST(TrialEnvTest, LookupDoesNotMatchPrefixes) {
  std::vector<std::string> env{"PATHX=1", "PATH=/usr/bin", "EMPTY="};
  EXPECT_EQ(LookupEnv(env, "PATH"), "/usr/bin");
  EXPECT_EQ(LookupEnv(env, "EMPTY"), "");
  EXPECT_EQ(LookupEnv(env, "PAT"), std::nullopt);
}

TEST(TrialEnvTest, ProtocolVariablesAndPythonPath) {
  auto pairs = ProtocolEnv(7, "/exp/trials/0007", "/opt/gpusweep/python", {"PYTHONPATH=/mine"});
  auto env = MergeEnv({}, pairs);
  EXPECT_EQ(LookupEnv(env, "GPUSWEEP_TRIAL_ID"), "7");
  EXPECT_EQ(LookupEnv(env, "GPUSWEEP_TRIAL_DIR"), "/exp/trials/0007");
  EXPECT_EQ(LookupEnv(env, "GPUSWEEP_PARAMS"), "/exp/trials/0007/params.json");
  EXPECT_EQ(LookupEnv(env, "GPUSWEEP_METRICS"), "/exp/trials/0007/metrics.jsonl");
  EXPECT_EQ(LookupEnv(env, "PYTHONUNBUFFERED"), "1");
  EXPECT_EQ(LookupEnv(env, "PYTHONPATH"), "/opt/gpusweep/python:/mine");
  auto without = MergeEnv({}, ProtocolEnv(0, "/t", "/py", {}));
  EXPECT_EQ(LookupEnv(without, "PYTHONPATH"), "/py");
}

}  // namespace
}  // namespace gpusweep
