// cli_docs.h — the man page and the shell completions, written from the CLI11 app that
// parses the arguments, so they say what --help says and cannot drift from it (the
// build runs the hidden `gpusweep help-man` and `help-completion` to make them).
#pragma once

#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace gpusweep {

// gpusweep.1 (roff, man(7) macros): every visible command with its arguments and
// options, in the words of their --help.
std::string ManPage(const CLI::App& app, std::string_view version);
// A bash completion script (for /usr/share/bash-completion/completions/gpusweep):
// commands, each command's options, the choices of options that have them, files.
std::string BashCompletion(const CLI::App& app);
// A zsh completion function (_gpusweep, for a directory on $fpath), with descriptions.
std::string ZshCompletion(const CLI::App& app);

}  // namespace gpusweep
