#include "web/server.h"

#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <sys/random.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <type_traits>

#include <fmt/format.h>
#include <httplib.h>

#include "web/experiment_catalog.h"
#include "web/page.h"

namespace gpusweep::web {
namespace {

// With "; charset=utf-8" on purpose: Debian's cpp-httplib is built with brotli, and
// compresses a bare "application/json" at brotli's best (slowest) quality whenever the
// browser accepts it — 48 s for the 4 MB points answer of a 10,000-trial sweep, where
// sending it uncompressed over loopback takes milliseconds. httplib compresses only
// exact type names, so this one travels as is (bench/README.md, web/run.sh).
constexpr const char* kJsonType = "application/json; charset=utf-8";

// The LiveExperiment of each experiment directory, opened on first request and kept.
class ExperimentCache {
 public:
  ExperimentCache(ExperimentCatalog catalog, DecisionFormatter decisions)
      : catalog_(std::move(catalog)), decisions_(std::move(decisions)) {}

  const ExperimentCatalog& catalog() const { return catalog_; }

  Expected<LiveExperiment*> Get(const std::string& id) {
    std::optional<CatalogEntry> entry = catalog_.Find(id);
    if (!entry) return Fail(ErrorCode::kNotFound, fmt::format("no experiment '{}'", id));
    std::lock_guard lock(mutex_);
    auto& slot = opened_[entry->dir];
    if (!slot) {
      GS_ASSIGN_OR_RETURN(slot, LiveExperiment::Open(entry->dir, decisions_));
    }
    return slot.get();
  }

 private:
  ExperimentCatalog catalog_;
  DecisionFormatter decisions_;
  std::mutex mutex_;
  std::map<std::filesystem::path, std::unique_ptr<LiveExperiment>> opened_;
};

// What the stop function Serve installs reaches. It may be called before the server
// runs, or after Serve returned (the CLI's signal waiter is woken at exit), so it holds
// this, which outlives Serve, rather than the server itself.
struct StopSwitch {
  std::mutex mutex;
  httplib::Server* server = nullptr;  // null once Serve has returned
  bool requested = false;
};

int HttpStatusFor(ErrorCode code) {
  return code == ErrorCode::kNotFound ? 404 : code == ErrorCode::kInvalidArgument ? 400 : 500;
}

// `body` is JSON: a Json, or text already in JSON form.
template <typename Body>
void Answer(httplib::Response& res, Expected<Body> body) {
  res.set_header("Cache-Control", "no-store");
  if (!body) {
    res.status = HttpStatusFor(body.error().code);
    res.set_content(Json{{"error", body.error().message}}.dump(), kJsonType);
  } else if constexpr (std::is_same_v<Body, std::string>) {
    res.set_content(std::move(*body), kJsonType);
  } else {
    res.set_content(body->dump(-1, ' ', false, Json::error_handler_t::replace), kJsonType);
  }
}

// A query cursor: absent = 0; anything but a non-negative integer is refused.
Expected<std::int64_t> CursorParam(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return 0;
  const std::string text = req.get_param_value(name);
  std::int64_t value = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0)
    return Fail(ErrorCode::kInvalidArgument, fmt::format("{} must be a whole number >= 0", name));
  return value;
}

// The held sample's generation a client follows (web/charted_trials.h), if it gave one.
Expected<std::optional<std::int64_t>> GenerationParam(const httplib::Request& req) {
  if (!req.has_param("generation")) return std::nullopt;
  GS_ASSIGN_OR_RETURN(const std::int64_t generation, CursorParam(req, "generation"));
  return generation;
}

bool ConstantTimeEqual(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string CookieToken(const httplib::Request& req) {
  const std::string cookies = req.get_header_value("Cookie");
  constexpr std::string_view kName = "gpusweep_token=";
  std::size_t at = cookies.find(kName);
  if (at == std::string::npos) return "";
  at += kName.size();
  return cookies.substr(at, cookies.find(';', at) - at);
}

// The host name of a Host header, "name[:port]" or "[v6-address][:port]", lowercased;
// nullopt when the header is not of that shape (a port that is not 1-5 digits, text after
// it, an unclosed bracket). Parsed whole, so "127.0.0.1.evil.com" is that name, never
// a 127.0.0.1 followed by something.
std::optional<std::string> HostHeaderName(std::string_view header) {
  std::size_t name_end = std::min(header.find(':'), header.size());
  if (header.starts_with('[')) {
    const std::size_t bracket = header.find(']');
    if (bracket == std::string_view::npos) return std::nullopt;
    name_end = bracket + 1;
  }
  if (name_end == 0) return std::nullopt;
  std::string_view port = header.substr(name_end);
  if (!port.empty()) {
    if (!port.starts_with(':') || port.size() < 2 || port.size() > 6) return std::nullopt;
    for (char c : port.substr(1))
      if (c < '0' || c > '9') return std::nullopt;
  }
  std::string name(header.substr(0, name_end));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// Whether a request without a token names this server by a loopback name. A page that
// rebinds its own DNS name to 127.0.0.1 makes the browser send that name, so only
// exact loopback names pass: localhost, 127.0.0.1, [::1], and the address bound when it
// is a loopback literal (`--host 127.0.0.2` is browsed as http://127.0.0.2:PORT/).
// Other 127.x.y.z are refused: an address literal cannot come from rebinding, but a
// server bound to one address has no reason to answer to another.
bool NamesThisLoopbackServer(const std::string& host_header, const std::string& bound_host) {
  const std::optional<std::string> name = HostHeaderName(host_header);
  if (!name) return false;
  return *name == "localhost" || *name == "127.0.0.1" || *name == "[::1]" ||
         (*name == bound_host && IsLoopbackHost(bound_host));
}

// Token or loopback Host check; true when the request may proceed.
bool Admit(const httplib::Request& req, httplib::Response& res, const ServeOptions& options) {
  const std::string& token = options.token;
  if (token.empty()) {
    if (NamesThisLoopbackServer(req.get_header_value("Host"), options.host)) return true;
    res.status = 403;
    res.set_content("Forbidden: this server answers only to localhost names\n", "text/plain");
    return false;
  }
  std::string given = req.get_header_value("Authorization");
  if (given.starts_with("Bearer ")) given.erase(0, 7);
  else if (req.has_param("token")) given = req.get_param_value("token");
  else given = CookieToken(req);
  if (ConstantTimeEqual(given, token)) {
    if (req.has_param("token"))
      res.set_header("Set-Cookie",
                     "gpusweep_token=" + token + "; HttpOnly; SameSite=Strict; Path=/");
    return true;
  }
  res.status = 401;
  res.set_content("Unauthorized: add ?token=<the token gpusweep serve printed>\n", "text/plain");
  return false;
}

Json ExperimentList(ExperimentCache& cache) {
  Json list = Json::array();
  for (const CatalogEntry& entry : cache.catalog().List()) {
    Expected<Json> summary = cache.Get(entry.id).and_then(
        [](LiveExperiment* e) { return e->Summary(); });
    Json item = summary ? *summary : Json{{"error", summary.error().message}};
    item["id"] = entry.id;
    list.push_back(std::move(item));
  }
  return list;
}

// GET routes of one experiment: /api/e/<id>/<what>.
void AddExperimentRoutes(httplib::Server& server, ExperimentCache& cache) {
  auto with = [&cache](auto&& body) {
    return [&cache, body](const httplib::Request& req, httplib::Response& res) {
      Expected<LiveExperiment*> experiment = cache.Get(req.matches[1]);
      Answer(res, experiment.and_then([&](LiveExperiment* e) { return body(*e, req); }));
    };
  };
  server.Get(R"(/api/e/([A-Za-z0-9._~-]+)/summary)",
             with([](LiveExperiment& e, const httplib::Request&) { return e.Summary(); }));
  server.Get(R"(/api/e/([A-Za-z0-9._~-]+)/trials)",
             with([](LiveExperiment& e, const httplib::Request& req) -> Expected<std::string> {
               GS_ASSIGN_OR_RETURN(const std::int64_t since, CursorParam(req, "since"));
               GS_ASSIGN_OR_RETURN(const auto generation, GenerationParam(req));
               return e.TrialsSince(since, generation);
             }));
  server.Get(R"(/api/e/([A-Za-z0-9._~-]+)/points)",
             with([](LiveExperiment& e, const httplib::Request& req) -> Expected<std::string> {
               GS_ASSIGN_OR_RETURN(const std::int64_t after, CursorParam(req, "after"));
               GS_ASSIGN_OR_RETURN(const auto generation, GenerationParam(req));
               return e.PointsAfter(after, generation);
             }));
  server.Get(R"(/api/e/([A-Za-z0-9._~-]+)/importance)",
             with([](LiveExperiment& e, const httplib::Request&) { return e.Importance(); }));
  server.Get(R"(/api/e/([A-Za-z0-9._~-]+)/trial/(\d{1,9}))",
             with([](LiveExperiment& e, const httplib::Request& req) {
               return e.TrialDetail(std::stoi(req.matches[2]));
             }));
}

void AddRoutes(httplib::Server& server, ExperimentCache& cache) {
  auto content = [](std::string_view body, const char* type) {
    return [body, type](const httplib::Request&, httplib::Response& res) {
      res.set_content(body.data(), body.size(), type);
    };
  };
  // The bundle's URL carries its hash (ServedPage), so browsers may keep it for good: a
  // reload then neither fetches nor recompiles 650 KiB of script.
  auto asset = [](std::string_view body, const char* type) {
    return [body, type](const httplib::Request&, httplib::Response& res) {
      res.set_header("Cache-Control", "public, max-age=31536000, immutable");
      res.set_content(body.data(), body.size(), type);
    };
  };
  static const std::string page = ServedPage();
  server.Get("/", content(page, "text/html; charset=utf-8"));
  server.Get("/app.js", asset(kAppJs, "application/javascript; charset=utf-8"));
  server.Get("/app.css", asset(kAppCss, "text/css; charset=utf-8"));
  server.Get("/api/experiments", [&cache](const httplib::Request&, httplib::Response& res) {
    Answer(res, Expected<Json>(ExperimentList(cache)));
  });
  AddExperimentRoutes(server, cache);
  // Read-only: a handler for every other method, so none falls through to anything.
  auto refuse = [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_header("Allow", "GET");
    res.set_content("Method Not Allowed: the dashboard is read-only\n", "text/plain");
  };
  server.Post(".*", refuse);
  server.Put(".*", refuse);
  server.Patch(".*", refuse);
  server.Delete(".*", refuse);
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  // An address literal, parsed: "127.evil.com" starts like one but is a name that may
  // resolve anywhere.
  in_addr v4{};
  in6_addr v6{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return host == "localhost";
}

Status Serve(const ServeOptions& options, const std::function<void(int port)>& on_listening,
             const std::function<void(std::function<void()> stop)>& install_stop) {
  // Answers of several MB (a 10,000-trial sweep's trials and points) are built on
  // httplib's worker threads. By default glibc raises its mmap threshold to the largest
  // block freed and gives each thread an arena, so those blocks stay in the process
  // (RSS 150 MB after a few page loads, bench/README.md). A fixed threshold hands them
  // back to the kernel when freed. One arena: with two, the warm-up's journal read and
  // the forest's training could land in different arenas, neither reusing what the
  // other freed, and the peak was 100 MiB instead of 81 in about one start of four
  // (bench/web); the threads here allocate little enough that sharing one costs nothing
  // measurable.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  mallopt(M_ARENA_MAX, 1);
  GS_ASSIGN_OR_RETURN(ExperimentCatalog catalog, ExperimentCatalog::Create(options.roots));
  ExperimentCache cache(std::move(catalog), options.decisions);
  httplib::Server server;
  server.set_pre_routing_handler([&options](const httplib::Request& req, httplib::Response& res) {
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:");
    return Admit(req, res, options) ? httplib::Server::HandlerResponse::Unhandled
                                          : httplib::Server::HandlerResponse::Handled;
  });
  // httplib's default options set SO_REUSEPORT, with which a second `gpusweep serve`
  // on a port in use binds as well and the kernel deals connections out between the two.
  // SO_REUSEADDR alone still lets a restarted server bind over its predecessor's
  // TIME_WAIT connections, and makes bind fail (EADDRINUSE) while another listens.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  AddRoutes(server, cache);
  const int port = options.port == 0 ? server.bind_to_any_port(options.host)
                                     : (server.bind_to_port(options.host, options.port)
                                            ? options.port
                                            : -1);
  if (port < 0)
    return Fail(ErrorCode::kIo,
                fmt::format("cannot listen on {}:{} (in use, or not an address of this "
                            "machine); choose another with --port or --host",
                            options.host, options.port));
  // Reads every experiment's journal and computes its importance before the first page
  // asks, so opening a 10,000-trial sweep finds both ready (the first read takes
  // seconds). Stops between experiments when the server stops; joined on return.
  std::jthread warm_up([&cache](std::stop_token stop) {
    for (const CatalogEntry& entry : cache.catalog().List()) {
      if (stop.stop_requested()) return;
      Expected<LiveExperiment*> experiment = cache.Get(entry.id);
      if (experiment && (*experiment)->Summary()) (void)(*experiment)->Importance();
    }
  });
  // httplib's stop() does nothing until listen_after_bind() has started, so a stop that
  // comes earlier (Ctrl-C as the URL is printed) is remembered and delivered once the
  // server runs; it was lost, and serving went on.
  auto stop_switch = std::make_shared<StopSwitch>();
  stop_switch->server = &server;
  install_stop([stop_switch] {
    std::lock_guard lock(stop_switch->mutex);
    stop_switch->requested = true;
    if (stop_switch->server) stop_switch->server->stop();
  });
  std::jthread late_stop([&server, stop_switch](std::stop_token returning) {
    while (!returning.stop_requested() && !server.is_running())
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::lock_guard lock(stop_switch->mutex);
    if (stop_switch->requested) server.stop();
  });
  on_listening(port);
  const bool served = server.listen_after_bind();
  {
    std::lock_guard lock(stop_switch->mutex);
    stop_switch->server = nullptr;
  }
  if (!served)
    return Fail(ErrorCode::kIo, fmt::format("serving on {}:{} failed", options.host, port));
  return {};
}

}  // namespace gpusweep::web
