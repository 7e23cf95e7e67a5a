// render.h — Mustache rendering of trial commands and template files.
//
// Contract: rendering is strict. Every tag must name something in the context, even
// inside sections that would not render for this trial (a template is checked
// statically against the context before it is rendered), so a typo fails the trial
// before it starts instead of producing a silently wrong command or config file.
//
// Mustache subset (rendered by kainjow mustache, https://github.com/kainjow/Mustache):
//   {{name}} {{{name}}} {{&name}}  a value. No HTML escaping: these are code and config
//                                  files. Strings render raw (no quotes); numbers, booleans
//                                  and null as JSON prints them (0.001, 1e-05, true, null);
//                                  lists and maps as compact JSON ([{"type":"relu"}]).
//   {{net.bn}}                     dotted access into maps.
//   {{#name}}...{{/name}}          a list iterates (its items become the innermost scope,
//                                  so {{#act}}{{type}}{{/act}} reads each item's "type" and
//                                  {{.}} is the item); false, null and [] skip the section;
//                                  anything else (including 0 and "") renders it once with
//                                  the value as innermost scope.
//   {{^name}}...{{/name}}          renders only when name is false, null or [].
//   {{! comment }}  {{=<% %>=}}    comments; changing the delimiters.
// Partials ({{>name}}) are not supported.
#pragma once

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <span>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"
#include "gpusweep/status.h"

namespace gpusweep {

// Built-in names available to every template besides the params.
struct TrialContextInfo {
  int number = 0;              // trial number
  int repeat = 0;              // grid repeat (0 for random)
  std::string trial_dir;       // absolute path of <experiment>/trials/<id>
  std::string config_dir;      // absolute directory of the config file
  std::string experiment_dir;  // absolute path of the experiment directory
  // The job's budget (resource, e.g. epochs) when a scheduler sets one; {{budget}}.
  std::optional<double> budget;
};

// Top-level names MakeTemplateContext adds; a search-space parameter must not use them
// (the config loader should reject them; here the built-ins would win).
inline constexpr std::array<std::string_view, 3> kBuiltinTemplateNames{
    "trial", "config_dir", "experiment_dir"};

// The context of a trial: `params` (an object; dotted names nested, NestParams) plus
//   "trial": {"number": int, "id": TrialDirName(number), "repeat": int, "dir": trial_dir},
//   "config_dir": string, "experiment_dir": string, and with a budget
//   "budget": number (an integer when it is whole, so --epochs {{budget}} gives 9).
// A parameter named "budget" is shadowed by the scheduler's budget.
Json MakeTemplateContext(const Params& params, const TrialContextInfo& info);

// A budget as JSON: an integer when whole (9.0 -> 9), else the number.
Json BudgetJson(double budget);

// Renders `text` with `context` (a JSON object). `what` names the text in messages,
// e.g. "template setup.py.mustache". Error{kInvalidConfig}, message starting
// "<what>:<line>:<column>: " (1-based, of the tag), when
//   - a tag names something missing from the context: "unknown name 'lr2' in {{lr2}};
//     available: lr, channels, ...; did you mean 'lr'?" (section-local names count
//     inside sections over lists of maps: the name must resolve for every item);
//   - the template is malformed: unclosed tag or section, mismatched {{/name}}, empty
//     tag, bad set-delimiter tag, a partial.
//
// `optional`: the full dotted names of conditional leaves (param_conditions.h), which a
// trial may lack: a section over one that is absent is skipped (not checked), as
// {{#C}}--C {{C}}{{/C}} needs. CheckConditionalUses (plan time) makes sure no variable
// reads one outside such a section.
Expected<std::string> RenderTemplate(std::string_view text, const Json& context,
                                     std::string_view what,
                                     std::span<const std::string> optional = {});

// Renders each element of `argv` (what = labels[i], or "command[<i>]" where `labels`
// has no entry, e.g. "sweep.yaml:2:31: command[2]"); no quoting, one element stays one
// argument whatever it contains. Errors as RenderTemplate.
Expected<std::vector<std::string>> RenderArgv(const std::vector<std::string>& argv,
                                              const Json& context,
                                              std::span<const std::string> labels = {},
                                              std::span<const std::string> optional = {});

// Renders a shell command line (what = "command"): every substituted value is
// POSIX single-quoted (a b -> 'a b', it's -> 'it'"'"'s', 0.1 -> '0.1'), so values never
// split into words or run as code. Errors as RenderTemplate.
Expected<std::string> RenderShellCommand(std::string_view command, const Json& context,
                                         std::string_view what = "command",
                                         std::span<const std::string> optional = {});

// The names of `space`'s conditional leaves, for the renderers' `optional`.
std::vector<std::string> ConditionalNames(const SearchSpace& space);

// Plan-time check of a text (a command or template) against a conditional space: a
// tag that reads a conditional leaf P ({{P}}, {{P.x}}, or {{x}} inside {{#P}}) must be
// inside a section {{#Q}}...{{/Q}} where Q is P or a leaf active only where P is (its
// conditions include P's); a section or inverted section over P itself is always
// allowed (it is the test). Error{kInvalidConfig} "<what>:<line>:<col>: {{C}} reads 'C',
// which only some trials have (when classifier is svm); ...", with the section to write.
Status CheckConditionalUses(std::string_view text, const SearchSpace& space,
                            std::string_view what);

// POSIX single-quoting of one word: wraps in '...' and writes each ' as '"'"'.
std::string ShellQuote(std::string_view word);

// trial_dir / dst after lexical normalisation. Error{kInvalidConfig} when dst is empty,
// absolute, names trial_dir itself, or escapes it ("../x", "a/../../x"). Symlinks are not
// followed: the trial directory is created by gpusweep and holds no links yet.
Expected<std::filesystem::path> ConfinedPath(const std::filesystem::path& trial_dir,
                                             std::string_view dst);

}  // namespace gpusweep
