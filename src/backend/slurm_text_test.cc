#include "backend/slurm_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gpusweep {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;

TEST(SlurmTextTest, JobNamesCarryScopeTrialAndAttempt) {
  EXPECT_EQ(SlurmJobName("abc123", 7, 2), "gs-abc123-7.2");
  EXPECT_TRUE(SlurmJobName("abc123", 7, 2).starts_with(SlurmJobNamePrefix("abc123")));
}

TEST(SlurmTextTest, TimeLimitsAreWholeMinutesRoundedUp) {
  EXPECT_EQ(SlurmMinutes(1), "1");
  EXPECT_EQ(SlurmMinutes(60), "1");
  EXPECT_EQ(SlurmMinutes(61), "2");
  EXPECT_EQ(SlurmMinutes(7200), "120");
}

TEST(SlurmTextTest, SbatchArgumentsAskForGpusOrCpusAndKeepExtraArgsLast) {
  SlurmConfig slurm;
  slurm.partition = "gpu";
  slurm.account = "lab";
  slurm.qos = "short";
  slurm.cpus_per_trial = 4;
  slurm.extra_args = {"--constraint=a100"};
  SpawnRequest request;
  request.cwd = "/exp/trials/0003";
  request.log_path = "/exp/trials/0003/output.log";
  request.gpus = 2;
  const std::vector<std::string> args =
      SbatchArguments(slurm, 90.0, "gs-x-3.1", request, "/exp/trials/0003/gpusweep-job.sh");
  EXPECT_THAT(args, Contains("--parsable"));
  EXPECT_THAT(args, Contains("--job-name=gs-x-3.1"));
  EXPECT_THAT(args, Contains("--chdir=/exp/trials/0003"));
  EXPECT_THAT(args, Contains("--output=/exp/trials/0003/output.log"));
  EXPECT_THAT(args, Contains("--open-mode=append"));
  EXPECT_THAT(args, Contains("--no-requeue"));  // before extra_args: a --requeue there wins
  EXPECT_THAT(args, Contains("--partition=gpu"));
  EXPECT_THAT(args, Contains("--account=lab"));
  EXPECT_THAT(args, Contains("--qos=short"));
  EXPECT_THAT(args, Contains("--time=2"));
  EXPECT_THAT(args, Contains("--gres=gpu:2"));
  EXPECT_THAT(args, Contains("--cpus-per-task=4"));
  EXPECT_EQ(args[args.size() - 2], "--constraint=a100");
  EXPECT_EQ(args.back(), "/exp/trials/0003/gpusweep-job.sh");

  request.gpus = 0;
  const std::vector<std::string> cpu_only =
      SbatchArguments(SlurmConfig{}, std::nullopt, "n", request, "s");
  for (const std::string& arg : cpu_only) {
    EXPECT_FALSE(arg.starts_with("--gres")) << arg;
    EXPECT_FALSE(arg.starts_with("--time")) << arg;
    EXPECT_FALSE(arg.starts_with("--partition")) << arg;
  }
  EXPECT_THAT(cpu_only, Contains("--cpus-per-task=1"));
}

TEST(SlurmTextTest, PlacementNamesPartitionGresAndHowManyJobsAtOnce) {
  SlurmConfig slurm;
  slurm.partition = "gpu";
  EXPECT_EQ(DescribeSlurmPlacement(slurm, {1}, 4),
            "SLURM (partition gpu, gres gpu:1 per trial, at most 4 jobs at once)");
  EXPECT_EQ(DescribeSlurmPlacement(SlurmConfig{}, {2, 1, 4}, 1),
            "SLURM (the default partition, gres gpu:1..4 per trial, at most 1 job at once)");
  slurm.cpus_per_trial = 8;
  EXPECT_EQ(DescribeSlurmPlacement(slurm, {}, 16),
            "SLURM (partition gpu, 8 CPUs per trial, no GPUs, at most 16 jobs at once)");
}

TEST(SlurmTextTest, JobScriptQuotesTheCommandAndWritesTheExitRecord) {
  const std::string script = JobScript({"python3", "train.py", "--name=it's"}, "/exp/trials/0001");
  EXPECT_TRUE(script.starts_with("#!/bin/bash\n"));
  EXPECT_NE(script.find("'python3' 'train.py' '--name=it'\\''s'"), std::string::npos) << script;
  EXPECT_NE(script.find("trap 'gpusweep_signalled=1' TERM INT HUP"), std::string::npos);
  EXPECT_NE(script.find("'/exp/trials/0001/gpusweep-exit.'\"$SLURM_JOB_ID\""), std::string::npos)
      << script;
  EXPECT_EQ(ExitRecordPath("/exp/trials/0001", "42"), "/exp/trials/0001/gpusweep-exit.42");
}

TEST(SlurmTextTest, ExitRecordsMustBeWholeNumbersEndingInANewline) {
  EXPECT_EQ(ParseExitRecord("0\n"), 0);
  EXPECT_EQ(ParseExitRecord("143\n"), 143);
  EXPECT_EQ(ParseExitRecord("14"), std::nullopt);  // still being written
  EXPECT_EQ(ParseExitRecord(""), std::nullopt);
  EXPECT_EQ(ParseExitRecord("x\n"), std::nullopt);
}

TEST(SlurmTextTest, ParsesSqueueAndSacctRows) {
  const std::vector<SqueueRow> rows =
      ParseSqueue("12|RUNNING|None|0                   |0  |\n13|PENDING|BeginTime|0|2|\n"
                  "14|PENDING|Resources|0|\ngarbage\n");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].job_id, "12");
  EXPECT_EQ(rows[0].state, "RUNNING");
  EXPECT_EQ(rows[0].exit_code, "0");
  EXPECT_EQ(rows[0].restarts, 0);
  EXPECT_EQ(rows[1].restarts, 2);  // requeued twice
  EXPECT_EQ(rows[2].reason, "Resources");
  EXPECT_EQ(rows[2].restarts, 0);
  const std::vector<SqueueRow> sacct = ParseSacct("14|CANCELLED by 0|0:15\n15|COMPLETED|0:0\n");
  ASSERT_EQ(sacct.size(), 2u);
  EXPECT_EQ(sacct[0].state, "CANCELLED");
  EXPECT_EQ(sacct[0].exit_code, "0:15");
}

TEST(SlurmTextTest, CompletingIsNotFinalButEveryEndIs) {
  for (const char* state : {"PENDING", "RUNNING", "COMPLETING", "CONFIGURING", "SUSPENDED",
                            "REQUEUED"})
    EXPECT_FALSE(IsFinalState(state)) << state;
  for (const char* state : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                            "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"})
    EXPECT_TRUE(IsFinalState(state)) << state;
}

TEST(SlurmTextTest, ClassifiesEveryWayAJobEnds) {
  ProcessExit exit = ClassifyJobEnd("7", "COMPLETED", 0, "0", false);
  EXPECT_FALSE(exit.signaled);
  EXPECT_EQ(exit.exit_code, 0);
  EXPECT_EQ(exit.job_end, JobEnd::kNone);

  exit = ClassifyJobEnd("7", "FAILED", 3, "3", false);
  EXPECT_EQ(exit.exit_code, 3);
  exit = ClassifyJobEnd("7", "FAILED", std::nullopt, "2:0", false);  // no record: SLURM's
  EXPECT_EQ(exit.exit_code, 2);
  exit = ClassifyJobEnd("7", "COMPLETED", 143, "0", true);  // SIGTERM'ed by our scancel
  EXPECT_TRUE(exit.signaled);
  EXPECT_EQ(exit.signal, 15);
  EXPECT_EQ(exit.job_end, JobEnd::kNone);

  exit = ClassifyJobEnd("7", "TIMEOUT", 143, "0:15", false);
  EXPECT_EQ(exit.job_end, JobEnd::kTimeLimit);
  EXPECT_THAT(exit.job_detail, ::testing::HasSubstr("SLURM time limit reached (job 7, TIMEOUT)"));
  EXPECT_EQ(ClassifyJobEnd("7", "OUT_OF_MEMORY", std::nullopt, "0:125", false).job_end,
            JobEnd::kOutOfMemory);
  EXPECT_EQ(ClassifyJobEnd("7", "NODE_FAIL", std::nullopt, "0:0", false).job_end,
            JobEnd::kNodeFailure);
  EXPECT_EQ(ClassifyJobEnd("7", "PREEMPTED", std::nullopt, "0:0", false).job_end,
            JobEnd::kPreempted);
  EXPECT_EQ(ClassifyJobEnd("7", "CANCELLED", std::nullopt, "0:0", false).job_end,
            JobEnd::kCancelled);
  exit = ClassifyJobEnd("7", "CANCELLED", std::nullopt, "0:0", true);  // our SIGKILL
  EXPECT_EQ(exit.job_end, JobEnd::kNone);
  EXPECT_TRUE(exit.signaled);
  EXPECT_EQ(exit.signal, 9);
  EXPECT_EQ(ClassifyJobEnd("7", "", std::nullopt, "", false).job_end, JobEnd::kLost);
  exit = RequeuedJobEnd("7");
  EXPECT_EQ(exit.job_end, JobEnd::kPreempted);
  EXPECT_TRUE(RunsAgain(exit.job_end));
  EXPECT_EQ(exit.job_detail,
            "SLURM requeued job 7 (preempted, its node failed, or scontrol requeue); runs again as "
            "a new attempt");
  exit = ClassifyJobEnd("7", "", 0, "", false);  // forgotten, but its record tells
  EXPECT_EQ(exit.job_end, JobEnd::kNone);
  EXPECT_EQ(exit.exit_code, 0);

  EXPECT_TRUE(RunsAgain(JobEnd::kPreempted));
  EXPECT_TRUE(RunsAgain(JobEnd::kNodeFailure));
  EXPECT_TRUE(RunsAgain(JobEnd::kLost));
  EXPECT_FALSE(RunsAgain(JobEnd::kTimeLimit));
  EXPECT_FALSE(RunsAgain(JobEnd::kCancelled));
}

TEST(SlurmTextTest, PollingBacksOffWhileQuietAndResetsOnChange) {
  PollSchedule schedule(2, 30);
  schedule.Changed(100);
  EXPECT_FALSE(schedule.Due(101));
  EXPECT_TRUE(schedule.Due(102));
  std::vector<double> intervals;
  for (int i = 0; i < 8; ++i) {
    schedule.Quiet(200);
    intervals.push_back(schedule.interval());
  }
  EXPECT_THAT(intervals, ElementsAre(3, 4.5, 6.75, 10.125, 15.1875, 22.78125, 30, 30));
  schedule.Changed(300);
  EXPECT_EQ(schedule.interval(), 2);
  EXPECT_DOUBLE_EQ(schedule.SecondsUntilDue(301), 1);
}

}  // namespace
}  // namespace gpusweep
