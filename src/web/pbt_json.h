// pbt_json.h — a population-based training experiment's lineage as the dashboard draws
// it: the summary's "pbt" section (docs/config.md, "Population-based training").
//
// Contract: pure; reads only `trials` and `lineage` (view/pbt_lineage.h: which trial's
// checkpoint each segment continued, from the journal's job_started events). Trial k is
// member k % population, segment k / population (src/policy/pbt_policy.h), so the
// lineage's population numbers the members; with population 0 (no segment started)
// the answer has no members and no segments.
//
// {population, resource,
//  members: [{member, trials: [segment trials in order]}],
//  segments: [{trial, member, segment, state, from, to, params{flattened}, score|null,
//              parent|null, exploit}],  by trial number
//  exploits: [{trial, member, segment, donor, donor_member, at, time}]}
// - `from`/`to`: the resource range the segment trained (`from` is where its parent's
//   checkpoint ended, the parent's budget; 0 for segment 0), `score` its objective.
// - `exploit`: the segment continued another member's checkpoint (parent's member !=
//   its own); each such segment is also one `exploits` entry: `donor` the trial it
//   copied, `at` the resource it copied at, `time` when the segment started (Unix s).
#pragma once

#include <string>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/trial.h"
#include "view/pbt_lineage.h"

namespace gpusweep::web {

Json PbtJson(const std::vector<TrialRecord>& trials, const PbtLineage& lineage,
             const std::string& resource);

}  // namespace gpusweep::web
