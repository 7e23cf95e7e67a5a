// server.h — `gpusweep serve`: the dashboard over HTTP, read-only.
//
// Contract: every endpoint is a GET that reads journals (read-only SQLite connections,
// WAL readers that never block a run) and experiment files; no request writes anything.
// Requests name experiments by catalog id and trials by number, never by path (see
// experiment_catalog.h). With a token, every request must carry it (Authorization:
// Bearer, the gpusweep_token cookie, or ?token= which also sets the cookie); without
// one, only exact loopback Host names are answered (localhost, 127.0.0.1, [::1], the
// bound loopback address; port optional), so a web page elsewhere cannot reach the
// server through DNS rebinding.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gpusweep/status.h"
#include "web/live_experiment.h"

namespace gpusweep::web {

struct ServeOptions {
  std::vector<std::filesystem::path> roots;  // experiment dirs or dirs holding them
  std::string host = "127.0.0.1";
  int port = 8080;              // 0: any free port
  std::string token;            // "" = none (loopback binds only, see ServeCommand)
  DecisionFormatter decisions;  // the scheduler decision lines of a trial page
};

// Binds, calls `on_listening(port)` once the socket accepts connections, then serves
// until `stop` is called (SIGINT/SIGTERM in the CLI); `stop` may be called at any time
// after it is installed, before serving starts (it then ends serving as soon as it
// starts) or after Serve returned (it then does nothing). Error{kIo} when it cannot bind
// (port in use: says which and suggests --port). Error{kNotFound} for a missing root.
Status Serve(const ServeOptions& options, const std::function<void(int port)>& on_listening,
             const std::function<void(std::function<void()> stop)>& install_stop);

// Whether the bind address `host` is loopback: an IPv4 literal in 127.0.0.0/8, "::1",
// or "localhost". A name that merely starts with "127." is not (it resolves anywhere).
bool IsLoopbackHost(const std::string& host);

}  // namespace gpusweep::web
