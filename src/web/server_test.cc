#include "web/server.h"

#include <sys/stat.h>

#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

#include "common/temp_dir_for_tests.h"
#include "web/web_test_util.h"

namespace gpusweep::web {
namespace {

using test_support::TempDir;
using testing::FakeExperiment;

// `Serve` on a free loopback port in a thread, stopped and joined at scope exit.
class RunningServer {
 public:
  // On a free port of `options.host` (127.0.0.1 unless set), or on `port` when given.
  explicit RunningServer(ServeOptions options, int port = 0) {
    if (options.host.empty()) options.host = "127.0.0.1";
    options.port = port;
    std::promise<int> ready;
    thread_ = std::thread([this, options, &ready] {
      Status served = Serve(
          options, [&](int port) { ready.set_value(port); },
          [&](std::function<void()> stop) { stop_ = std::move(stop); });
      if (!served) {
        error_ = served.error().message;
        ready.set_value(-1);
      }
    });
    port_ = ready.get_future().get();
  }
  ~RunningServer() {
    if (stop_) stop_();
    thread_.join();
  }
  httplib::Client Client() const {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(60, 0);
    return client;
  }
  int port() const { return port_; }
  const std::string& error() const { return error_; }

 private:
  std::thread thread_;
  std::function<void()> stop_;
  int port_ = -1;
  std::string error_;
};

Json GetJson(httplib::Client& client, const std::string& path, int expected_status = 200) {
  auto res = client.Get(path.c_str());
  EXPECT_TRUE(res) << path;
  if (!res) return {};
  EXPECT_EQ(res->status, expected_status) << path << ": " << res->body;
  return res->status == 200 ? Json::parse(res->body) : Json();
}

std::string FileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class ServerTest : public ::testing::Test {
 protected:
  ServerTest() : exp_(runs_.path(), "exp", 3) { options_.roots = {runs_.path()}; }
  TempDir runs_;
  FakeExperiment exp_;
  ServeOptions options_;
};

TEST_F(ServerTest, EndpointsAnswerTheJournalsContent) {
  RunningServer server(options_);
  ASSERT_GT(server.port(), 0) << server.error();
  auto client = server.Client();
  Json list = GetJson(client, "/api/experiments");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["id"], "exp");
  EXPECT_EQ(list[0]["counts"]["completed"], 3);
  Json trials = GetJson(client, "/api/e/exp/trials");
  ASSERT_EQ(trials["trials"].size(), 3u);
  EXPECT_EQ(trials["trials"][2]["objective"], 0.1 * 2);
  EXPECT_EQ(trials["trials"][1]["params"]["opt"], "adam");
  Json points = GetJson(client, "/api/e/exp/points?after=0");
  EXPECT_EQ(points["trial"].size(), 9u);
  Json detail = GetJson(client, "/api/e/exp/trial/2");
  EXPECT_EQ(detail["results"].size(), 3u);
  GetJson(client, "/api/e/exp/trial/99", 404);
  GetJson(client, "/api/e/exp/points?after=-1", 400);
  auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("app.js"), std::string::npos);
  auto script = client.Get("/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_GT(script->body.size(), 10000u);
}

TEST_F(ServerTest, RequestPathsNeverLeaveTheExperiments) {
  TempDir outside;
  FakeExperiment secret(outside.path(), "secret", 1);
  std::filesystem::create_directory_symlink(secret.dir(), runs_.path() / "link");
  RunningServer server(options_);
  auto client = server.Client();
  for (const char* path :
       {"/api/e/../summary", "/api/e/..%2F..%2Fsecret/summary", "/api/e/%2e%2e/summary",
        "/api/e/exp%2F..%2F..%2Fsecret/summary", "/api/e/link/summary", "/api/e/secret/summary",
        "/api/e/exp/../../secret/trials", "/../../etc/passwd", "/app.js/../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd", "/api/e/%2Fetc/summary", "/gpusweep.db",
        "/exp/gpusweep.db", "/api/e/exp/trial/..%2F0"}) {
    auto res = client.Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path << ": " << res->body;
    EXPECT_EQ(res->body.find(outside.path().string()), std::string::npos) << path;
    EXPECT_EQ(res->body.find("\"counts\""), std::string::npos) << path;
  }
  Json list = GetJson(client, "/api/experiments");
  EXPECT_EQ(list.size(), 1u);  // the symlink out is not listed
}

TEST_F(ServerTest, NothingWritesAndOtherMethodsAreRefused) {
  const auto db = exp_.dir() / kJournalFileName;
  const std::string before = FileBytes(db);
  RunningServer server(options_);
  auto client = server.Client();
  GetJson(client, "/api/e/exp/summary");
  EXPECT_EQ(client.Post("/api/e/exp/trials", "{}", "application/json")->status, 405);
  EXPECT_EQ(client.Put("/api/e/exp/trial/1", "{}", "application/json")->status, 405);
  EXPECT_EQ(client.Delete("/api/e/exp/trial/1")->status, 405);
  EXPECT_EQ(client.Patch("/api/e/exp/summary", "{}", "application/json")->status, 405);
  EXPECT_EQ(FileBytes(db), before);
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(exp_.dir()))
    files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  // The writer's WAL files are the journal's own; the server added nothing.
  for (const std::string& f : files)
    EXPECT_TRUE(f == "gpusweep.db" || f == "gpusweep.db-wal" || f == "gpusweep.db-shm" ||
                f == "experiment.json")
        << f;
}

TEST_F(ServerTest, ATokenIsRequiredOnEveryRequestWhenSet) {
  options_.token = "s3cret-token";
  RunningServer server(options_);
  auto client = server.Client();
  EXPECT_EQ(client.Get("/api/experiments")->status, 401);
  EXPECT_EQ(client.Get("/")->status, 401);
  EXPECT_EQ(client.Get("/app.js")->status, 401);
  EXPECT_EQ(client.Get("/api/experiments?token=wrong")->status, 401);
  EXPECT_EQ(client.Get("/api/experiments", {{"Authorization", "Bearer s3cret-token"}})->status, 200);
  auto with_query = client.Get("/?token=s3cret-token");
  EXPECT_EQ(with_query->status, 200);
  EXPECT_NE(with_query->get_header_value("Set-Cookie").find("HttpOnly"), std::string::npos);
  EXPECT_EQ(client.Get("/api/experiments", {{"Cookie", "gpusweep_token=s3cret-token"}})->status, 200);
  EXPECT_EQ(client.Get("/api/experiments", {{"Cookie", "gpusweep_token=s3cret-tokenX"}})->status, 401);
}

TEST_F(ServerTest, AStopBeforeServingStartsIsNotLost) {
  std::function<void()> stop;
  auto served = std::async(std::launch::async, [&] {
    return Serve(
        options_, [&](int) { stop(); },
        [&](std::function<void()> installed) { stop = std::move(installed); });
  });
  const bool returned = served.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  if (!returned) stop();  // once serving, a second stop ends it
  EXPECT_TRUE(returned) << "Serve went on serving after stop";
  EXPECT_TRUE(served.get());
  stop();  // and after Serve returned, as the CLI's signal waiter does at exit
}

TEST_F(ServerTest, ASecondServerOnAPortInUseFailsToStart) {
  RunningServer first(options_);
  ASSERT_GT(first.port(), 0) << first.error();
  RunningServer second(options_, first.port());
  EXPECT_EQ(second.port(), -1);
  EXPECT_NE(second.error().find("in use"), std::string::npos) << second.error();
  EXPECT_NE(second.error().find("--port"), std::string::npos) << second.error();
  // The first one still answers every request (none dealt to a second listener).
  auto client = first.Client();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(GetJson(client, "/api/experiments").size(), 1u);
}

int StatusForHost(httplib::Client& client, const std::string& host) {
  auto res = client.Get("/api/experiments", {{"Host", host}});
  return res ? res->status : -1;
}

TEST_F(ServerTest, WithoutATokenOnlyLoopbackHostNamesAreAnswered) {
  RunningServer server(options_);
  auto client = server.Client();
  const std::string port = std::to_string(server.port());
  const std::vector<std::string> loopback = {"localhost",   "localhost:" + port,
                                             "127.0.0.1",   "127.0.0.1:" + port,
                                             "[::1]",       "[::1]:" + port,
                                             "LocalHost:" + port};
  for (const std::string& host : loopback) EXPECT_EQ(StatusForHost(client, host), 200) << host;
  // A page elsewhere that rebinds its own name to 127.0.0.1 sends its own Host: only
  // exact loopback names pass, whatever they start with.
  const std::vector<std::string> others = {
      "evil.example:" + port, "evil.example.com", "localhost.evil.com", "127.0.0.1.evil.com",
      "127.0.0.1.evil.com:80", "127.0.0.1@evil.com", "127.0.0.1 evil", "127.0.0.2",
      "127.0.0.2:" + port, "127.0.0.1:80@evil.com", "127.0.0.1:" + port + "x",
      "127.0.0.1:123456", "127.0.0.1:", "[::1].evil.com", "[::1", "[::2]:" + port,
      "localhost:" + port + ":" + port, ":" + port, "127.1", "2130706433", "0x7f.1"};
  for (const std::string& host : others)
    EXPECT_EQ(StatusForHost(client, host), 403) << host;
}

TEST_F(ServerTest, AServerBoundToAnotherLoopbackAddressAnswersToIt) {
  options_.host = "127.0.0.2";
  RunningServer server(options_);
  ASSERT_GT(server.port(), 0) << server.error();
  httplib::Client client("127.0.0.2", server.port());
  EXPECT_EQ(StatusForHost(client, "127.0.0.2:" + std::to_string(server.port())), 200);
  EXPECT_EQ(StatusForHost(client, "127.0.0.3"), 403);
}

TEST(IsLoopbackHost, OnlyLoopbackAddressLiteralsAndLocalhost) {
  for (const char* host : {"127.0.0.1", "127.0.0.2", "127.255.0.9", "::1", "localhost"})
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  // A name that starts like a loopback address resolves wherever its owner wants.
  for (const char* host : {"127.evil.com", "127.0.0.1.evil.com", "0.0.0.0", "::", "10.0.0.1",
                           "localhost.evil.com", "", "::2"})
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
}

TEST_F(ServerTest, AJournalBeingWrittenIsServedRowByRowOnce) {
  RunningServer server(options_);
  auto client = server.Client();
  std::int64_t revision = 0, cursor = 0;
  std::set<int> seen_trials;
  std::size_t seen_points = 0;
  auto poll = [&] {
    Json t = GetJson(client, "/api/e/exp/trials?since=" + std::to_string(revision));
    for (const Json& trial : t["trials"]) seen_trials.insert(trial["number"].get<int>());
    revision = t["revision"].get<std::int64_t>();
    Json p = GetJson(client, "/api/e/exp/points?after=" + std::to_string(cursor));
    seen_points += p["trial"].size();
    cursor = p["cursor"].get<std::int64_t>();
  };
  std::thread writer([&] {
    for (int k = 3; k < 40; ++k) exp_.AddTrial(k, 3);
  });
  for (int i = 0; i < 100000 && seen_trials.size() < 40; ++i) poll();
  writer.join();
  poll();
  EXPECT_EQ(seen_points, 40u * 3);  // each point exactly once, none lost
}

}  // namespace
}  // namespace gpusweep::web
