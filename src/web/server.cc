#include "web/server.h"

#include <malloc.h>
#include <sys/random.h>

#include <charconv>
#include <map>
#include <memory>
#include <mutex>
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

std::string HostName(const std::string& host_header) {
  if (host_header.starts_with('[')) return host_header.substr(0, host_header.find(']') + 1);
  return host_header.substr(0, host_header.find(':'));
}

// Token or loopback Host check; true when the request may proceed.
bool Admit(const httplib::Request& req, httplib::Response& res, const std::string& token) {
  if (token.empty()) {
    const std::string host = HostName(req.get_header_value("Host"));
    if (host == "localhost" || host == "[::1]" || IsLoopbackHost(host)) return true;
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
             with([](LiveExperiment& e, const httplib::Request& req) {
               return CursorParam(req, "since").and_then(
                   [&](std::int64_t since) { return e.TrialsSince(since); });
             }));
  server.Get(R"(/api/e/([A-Za-z0-9._~-]+)/points)",
             with([](LiveExperiment& e, const httplib::Request& req) {
               return CursorParam(req, "after").and_then(
                   [&](std::int64_t after) { return e.PointsAfter(after); });
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
  return host == "localhost" || host == "::1" || host.starts_with("127.");
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
    return Admit(req, res, options.token) ? httplib::Server::HandlerResponse::Unhandled
                                          : httplib::Server::HandlerResponse::Handled;
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
  install_stop([&server] { server.stop(); });
  on_listening(port);
  if (!server.listen_after_bind())
    return Fail(ErrorCode::kIo, fmt::format("serving on {}:{} failed", options.host, port));
  return {};
}

}  // namespace gpusweep::web
