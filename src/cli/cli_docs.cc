// cli_docs.cc — man page and completions from the CLI11 app (see cli_docs.h).
#include "cli/cli_docs.h"

#include <algorithm>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace gpusweep {
namespace {

// Commands a user types: hidden ones (an empty group, as CLI11 hides them in --help)
// are the build's own.
std::vector<const CLI::App*> VisibleCommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

std::vector<const CLI::Option*> Positionals(const CLI::App& app) {
  return app.get_options([](const CLI::Option* opt) { return !opt->nonpositional(); });
}

std::vector<const CLI::Option*> Named(const CLI::App& app) {
  return app.get_options([](const CLI::Option* opt) { return opt->nonpositional(); });
}

// Every spelling of a named option: "-o", "--output".
std::vector<std::string> Spellings(const CLI::Option& opt) {
  std::vector<std::string> names;
  for (const std::string& s : opt.get_snames()) names.push_back("-" + s);
  for (const std::string& l : opt.get_lnames()) names.push_back("--" + l);
  return names;
}

// As CLI11's own --help decides whether to show a value after the name.
bool TakesValue(const CLI::Option& opt) {
  return opt.get_type_size() != 0 && !opt.get_type_name().empty();
}

// "gpusweep: hyperparameter sweeps ..." -> "hyperparameter sweeps ...", for NAME.
std::string_view Tagline(const std::string& description) {
  std::string_view text = description;
  if (text.starts_with("gpusweep: ")) text.remove_prefix(10);
  return text;
}

// The choices of an option checked by CLI::IsMember, which --help shows as
// "TEXT:{csv,json,optuna}"; empty for any other option.
std::vector<std::string> Choices(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  const std::size_t open = type.find('{');
  const std::size_t close = type.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> choices;
  std::string rest = type.substr(open + 1, close - open - 1);
  for (std::size_t start = 0; start <= rest.size();) {
    const std::size_t comma = std::min(rest.find(',', start), rest.size());
    if (comma > start) choices.push_back(rest.substr(start, comma - start));
    start = comma + 1;
  }
  return choices;
}

std::string Join(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : std::string(separator)) + word;
  return out;
}

// Text safe in a roff line: backslashes and hyphens escaped, and a line that starts
// with '.' or '\'' not taken for a request.
std::string Roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string ManOptions(const CLI::App& command) {
  std::string out;
  for (const CLI::Option* opt : Positionals(command))
    out += fmt::format(".TP\n\\fI{}\\fR{}\n{}\n", Roff(opt->get_name(true)),
                       opt->get_required() ? "" : " (optional)", Roff(opt->get_description()));
  for (const CLI::Option* opt : Named(command)) {
    std::string names = Roff(Join(Spellings(*opt), ", "));
    if (TakesValue(*opt)) names = "\\fB" + names + "\\fR \\fI" + Roff(opt->get_type_name()) + "\\fR";
    else names = "\\fB" + names + "\\fR";
    out += fmt::format(".TP\n{}\n{}\n", names, Roff(opt->get_description()));
  }
  return out;
}

std::string ManUsage(const CLI::App& command) {
  std::string usage = "\\fBgpusweep " + Roff(command.get_name()) + "\\fR";
  for (const CLI::Option* opt : Positionals(command)) {
    const std::string name = "\\fI" + Roff(opt->get_name(true)) + "\\fR";
    usage += opt->get_required() ? " " + name : " [" + name + "]";
  }
  if (!Named(command).empty()) usage += " [\\fIOPTIONS\\fR]";
  return usage;
}

// A shell word list's text for bash's compgen -W: only the option names and
// choices gpusweep itself defines, none with quotes or spaces.
std::string Words(const std::vector<std::string>& words) { return Join(words, " "); }

// Inside a single-quoted zsh word.
std::string ZshQuoted(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out;
}

// Single-quoted for zsh, with the characters _arguments reads inside [...] escaped.
std::string ZshDescription(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else if (c == '[' || c == ']' || c == ':' || c == '\\') out += std::string("\\") + c;
    else out += c;
  }
  return out;
}

std::string ZshValue(const CLI::Option& opt) {
  const std::vector<std::string> choices = Choices(opt);
  if (!choices.empty()) return ":value:(" + Join(choices, " ") + ")";
  return ":value:_files";
}

}  // namespace

std::string ManPage(const CLI::App& app, std::string_view version) {
  std::string out = fmt::format(
      ".\\\" Generated by `gpusweep help-man` from the CLI's own --help; do not edit.\n"
      ".TH GPUSWEEP 1 \"\" \"gpusweep {}\" \"User Commands\"\n"
      ".SH NAME\ngpusweep \\- {}\n"
      ".SH SYNOPSIS\n\\fBgpusweep\\fR \\fICOMMAND\\fR [\\fIARGS\\fR] [\\fIOPTIONS\\fR]\n"
      ".SH DESCRIPTION\n"
      "gpusweep runs one trial per parameter setting of an experiment config (YAML), each "
      "in its own process on its own GPUs, records every result in a crash-safe journal "
      "and resumes where it stopped. See /usr/share/doc/gpusweep for the config reference.\n"
      ".SH OPTIONS\n",
      Roff(version), Roff(Tagline(app.get_description())));
  out += ManOptions(app);
  out += ".SH COMMANDS\n";
  for (const CLI::App* command : VisibleCommands(app)) {
    out += fmt::format(".SS {}\n{}\n.PP\n{}\n", Roff(command->get_name()), ManUsage(*command),
                       Roff(command->get_description()));
    out += ManOptions(*command);
  }
  out += ".SH EXIT STATUS\n0 on success; 2 for bad arguments or an invalid config; 130 after "
         "an interrupt; 1 otherwise (e.g. no trial completed).\n";
  return out;
}

std::string BashCompletion(const CLI::App& app) {
  std::vector<std::string> commands;
  std::string cases;
  for (const CLI::App* command : VisibleCommands(app)) {
    commands.push_back(command->get_name());
    std::vector<std::string> options;
    std::string value_cases;
    for (const CLI::Option* opt : Named(*command)) {
      const std::vector<std::string> spellings = Spellings(*opt);
      options.insert(options.end(), spellings.begin(), spellings.end());
      const std::vector<std::string> choices = Choices(*opt);
      if (!choices.empty())
        value_cases += fmt::format("        {}) COMPREPLY=($(compgen -W '{}' -- \"$cur\")); return ;;\n",
                                   Join(spellings, "|"), Words(choices));
    }
    cases += fmt::format("    {})\n      case $prev in\n{}      esac\n      opts='{}' ;;\n",
                         command->get_name(), value_cases, Words(options));
  }
  std::vector<std::string> top;
  for (const CLI::Option* opt : Named(app)) {
    const std::vector<std::string> spellings = Spellings(*opt);
    top.insert(top.end(), spellings.begin(), spellings.end());
  }
  return fmt::format(
      "# bash completion for gpusweep. Generated by `gpusweep help-completion bash` from "
      "the CLI's own --help; do not edit.\n"
      "_gpusweep() {{\n"
      "  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} opts\n"
      "  if (( COMP_CWORD == 1 )); then\n"
      "    COMPREPLY=($(compgen -W '{} {}' -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  case ${{COMP_WORDS[1]}} in\n{}"
      "    *) return ;;\n"
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
      "  else\n"
      "    compopt -o filenames 2>/dev/null\n"
      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "  fi\n"
      "}}\n"
      "complete -F _gpusweep gpusweep\n",
      Words(commands), Words(top), cases);
}

std::string ZshCompletion(const CLI::App& app) {
  std::string commands;
  std::string cases;
  for (const CLI::App* command : VisibleCommands(app)) {
    commands += fmt::format("    '{}:{}'\n", command->get_name(),
                            ZshQuoted(command->get_description()));
    std::string specs;
    for (const CLI::Option* opt : Named(*command)) {
      const std::vector<std::string> spellings = Spellings(*opt);
      const std::string exclusive =
          spellings.size() > 1 ? "'(" + Join(spellings, " ") + ")'" : std::string();
      const std::string names =
          spellings.size() > 1 ? "{" + Join(spellings, ",") + "}" : spellings.front();
      specs += fmt::format(" \\\n        {}{}'[{}]{}'", exclusive, names,
                           ZshDescription(opt->get_description()),
                           TakesValue(*opt) ? ZshValue(*opt) : "");
    }
    cases += fmt::format("    {})\n      _arguments -s{} \\\n        '*:file:_files' ;;\n",
                         command->get_name(), specs);
  }
  return fmt::format(
      "#compdef gpusweep\n"
      "# zsh completion for gpusweep. Generated by `gpusweep help-completion zsh` from the "
      "CLI's own --help; do not edit.\n"
      "_gpusweep() {{\n"
      "  local -a commands\n"
      "  commands=(\n{}  )\n"
      "  if (( CURRENT == 2 )); then\n"
      "    _describe -t commands 'gpusweep command' commands\n"
      "    return\n"
      "  fi\n"
      "  local command=$words[2]\n"
      "  shift words\n"
      "  (( CURRENT-- ))\n"
      "  case $command in\n{}"
      "  esac\n"
      "}}\n"
      "_gpusweep \"$@\"\n",
      commands, cases);
}

}  // namespace gpusweep
