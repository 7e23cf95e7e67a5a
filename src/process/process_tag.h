// process_tag.h — module-internal: finding a trial's processes by the tag in their
// environment, for machines where gpusweep cannot make a cgroup per trial.
//
// Every trial is started with GPUSWEEP_PROCESS_TAG=<scope>:<run>:<serial> in its
// environment; children inherit it, whether they stay in the trial's process group or
// not (setsid, double fork). /proc/<pid>/environ shows the environment a process was
// exec'd with, readable by its owner and root. A process that execs with a cleared
// environment drops the tag: only a cgroup finds it then.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpusweep {

inline constexpr std::string_view kProcessTagVariable = "GPUSWEEP_PROCESS_TAG";

// The value of the tag in /proc/<pid>/environ ("" when absent, unreadable or a zombie).
std::string ProcessTag(int pid);

// Live pids (not gpusweep itself) whose tag starts with `prefix` but not with
// `exclude_prefix` (when not empty). Sorted ascending.
std::vector<int> ProcessesTagged(std::string_view prefix, std::string_view exclude_prefix = {});

// The direct children of this process (all its threads), from /proc/self/task/*/children;
// empty where the kernel lacks that file.
std::vector<int> OwnChildren();

// SIGTERM every process tagged `prefix` (minus `exclude_prefix`), and any seen tagged
// while waiting up to grace_seconds for them to go; SIGKILL the rest. Returns how many
// distinct processes it found. Blocks.
int StopTagged(std::string_view prefix, std::string_view exclude_prefix, double grace_seconds);

}  // namespace gpusweep
