#include "gpusweep/render.h"

#include <cstdio>
#include <memory>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Json Params() {
  return Json::parse(R"({
    "lr": 0.001, "tiny": 1e-05, "channels": 64, "name": "a <b> & 'c'",
    "use_bn": false, "nothing": null, "tags": ["x", "y"], "empty": [],
    "net": {"bn": true, "width": 128},
    "activation": [{"type": "relu"}, {"type": "gelu", "approximate": "tanh"}]
  })");
}

std::string Ok(std::string_view text, const Json& context = Params()) {
  auto rendered = RenderTemplate(text, context, "t");
  EXPECT_TRUE(rendered.has_value()) << rendered.error().message;
  return rendered.value_or("<error>");
}

Error Err(std::string_view text, const Json& context = Params()) {
  auto rendered = RenderTemplate(text, context, "template setup.py.mustache");
  EXPECT_FALSE(rendered.has_value()) << "rendered: " << rendered.value_or("");
  return rendered ? Error{} : rendered.error();
}

TEST(RenderTemplateTest, ScalarsRenderRawOrAsJsonWithoutHtmlEscaping) {
  EXPECT_EQ(Ok("lr={{lr}} tiny={{tiny}} ch={{ channels }}"), "lr=0.001 tiny=1e-05 ch=64");
  EXPECT_EQ(Ok("{{name}}|{{{name}}}|{{&name}}"), "a <b> & 'c'|a <b> & 'c'|a <b> & 'c'");
  EXPECT_EQ(Ok("{{use_bn}} {{nothing}} {{net.bn}}"), "false null true");
}

TEST(RenderTemplateTest, SubstitutedValuesAreNotExpandedAgain) {
  EXPECT_EQ(Ok("{{code}}", Json{{"code", "{{lr}} {{#x}}"}}), "{{lr}} {{#x}}");
}

TEST(RenderTemplateTest, DottedAccessAndMapSections) {
  EXPECT_EQ(Ok("bn={{net.bn}} width={{net.width}}"), "bn=true width=128");
  EXPECT_EQ(Ok("{{#net}}{{width}}/{{channels}}{{/net}}"), "128/64");
}

TEST(RenderTemplateTest, StructuredValuesRenderAsCompactJson) {
  EXPECT_EQ(Ok("{{activation}}"),
            R"([{"type":"relu"},{"type":"gelu","approximate":"tanh"}])");
  EXPECT_EQ(Ok("{{{net}}} {{tags}} {{empty}}"), R"({"bn":true,"width":128} ["x","y"] [])");
  EXPECT_EQ(Ok("{{#activation}}{{.}};{{/activation}}"),
            R"({"type":"relu"};{"type":"gelu","approximate":"tanh"};)");
}

TEST(RenderTemplateTest, SectionsIterateListsAndTestTruthiness) {
  EXPECT_EQ(Ok("{{#activation}}<{{type}}@{{lr}}>{{/activation}}"), "<relu@0.001><gelu@0.001>");
  EXPECT_EQ(Ok("{{#tags}}[{{.}}]{{/tags}}"), "[x][y]");
  EXPECT_EQ(Ok("{{#use_bn}}bn{{/use_bn}}{{^use_bn}}no-bn{{/use_bn}}"), "no-bn");
  EXPECT_EQ(Ok("{{#empty}}e{{/empty}}{{^empty}}none{{/empty}}{{#nothing}}n{{/nothing}}"),
            "none");
  EXPECT_EQ(Ok("{{#channels}}has {{.}}{{/channels}}"), "has 64");
}

TEST(RenderTemplateTest, StandaloneSectionLinesVanishAsInMustache) {
  EXPECT_EQ(Ok("layers:\n{{#tags}}\n  - {{.}}\n{{/tags}}\nend\n"), "layers:\n  - x\n  - y\nend\n");
}

TEST(RenderTemplateTest, SetDelimiterTagsAreHonoured) {
  EXPECT_EQ(Ok("{{=<% %>=}}lr=<% lr %> {{literal}} <%#tags%><%.%><%/tags%>"),
            "lr=0.001 {{literal}} xy");
}

TEST(RenderTemplateTest, UnknownNameNamesItAndSuggests) {
  const Error e = Err("import torch\nmodel(lr={{lr2}})\n");
  EXPECT_EQ(e.code, ErrorCode::kInvalidConfig);
  EXPECT_THAT(e.message, HasSubstr("template setup.py.mustache:2:10: unknown name 'lr2' in {{lr2}}"));
  EXPECT_THAT(e.message, HasSubstr("available: lr, tiny, channels"));
  EXPECT_THAT(e.message, HasSubstr("did you mean 'lr'?"));
  EXPECT_THAT(Err("{{net.bnn}}").message, HasSubstr("did you mean 'net.bn'?"));
  EXPECT_THAT(Err("{{zzzzzzzz}}").message, Not(HasSubstr("did you mean")));
}

TEST(RenderTemplateTest, UnknownNamesInsideSkippedSectionsAreErrors) {
  EXPECT_THAT(Err("{{#use_bn}}momentum={{momentum}}{{/use_bn}}").message,
              HasSubstr("unknown name 'momentum'"));
  EXPECT_THAT(Err("{{#empty}}{{x}}{{/empty}}").message, HasSubstr("unknown name 'x'"));
  EXPECT_THAT(Err("{{^lr}}{{typo}}{{/lr}}").message, HasSubstr("unknown name 'typo'"));
  EXPECT_THAT(Err("{{#missing}}{{/missing}}").message, HasSubstr("unknown name 'missing'"));
  EXPECT_THAT(Err("{{^missing}}{{/missing}}").message, HasSubstr("unknown name 'missing'"));
}

TEST(RenderTemplateTest, ListItemNamesMustExistInEveryItem) {
  // "approximate" exists only in the second item, and nowhere outside.
  const Error e = Err("{{#activation}}{{approximate}}{{/activation}}");
  EXPECT_THAT(e.message, HasSubstr("unknown name 'approximate'"));
  EXPECT_THAT(e.message, HasSubstr("available: type, approximate, lr"));
  // Section-local names are unknown outside the section.
  EXPECT_THAT(Err("{{#activation}}{{/activation}}{{type}}").message,
              HasSubstr("unknown name 'type'"));
}

TEST(RenderTemplateTest, SyntaxErrorsAreInvalidConfigWithPosition) {
  EXPECT_THAT(Err("a\n{{lr").message, HasSubstr("template setup.py.mustache:2:1: unclosed tag"));
  EXPECT_THAT(Err("{{#tags}}x").message, HasSubstr(":1:1: section {{#tags}} is never closed"));
  EXPECT_THAT(Err("{{#tags}}{{/net}}").message, HasSubstr("does not close section 'tags'"));
  EXPECT_THAT(Err("{{/tags}}").message, HasSubstr("closes no open section"));
  EXPECT_THAT(Err("{{> header}}").message, HasSubstr("partials"));
  EXPECT_THAT(Err("{{}}").message, HasSubstr("empty name"));
  EXPECT_THAT(Err("{{net..bn}}").message, HasSubstr("malformed name"));
  EXPECT_THAT(Err("{{=<%%>=}}").message, HasSubstr("invalid set-delimiter"));
  EXPECT_EQ(Err("{{lr").code, ErrorCode::kInvalidConfig);
}

TEST(MakeTemplateContextTest, BudgetIsAnIntegerWhenWhole) {
  TrialContextInfo info{7, 0, "/t", "/c", "/e", 9.0};
  EXPECT_EQ(MakeTemplateContext(Json::object(), info)["budget"], Json(9));
  EXPECT_TRUE(MakeTemplateContext(Json::object(), info)["budget"].is_number_integer());
  info.budget = 2.5;
  EXPECT_EQ(MakeTemplateContext(Json::object(), info)["budget"], Json(2.5));
}

TEST(MakeTemplateContextTest, AddsTrialAndDirectories) {
  const TrialContextInfo info{7, 1, "/x/trials/0007", "/cfg", "/x", std::nullopt};
  const Json context = MakeTemplateContext(Json{{"lr", 0.1}}, info);
  EXPECT_FALSE(context.contains("budget"));
  EXPECT_EQ(Ok("{{lr}} {{trial.number}} {{trial.id}} {{trial.repeat}} {{trial.dir}} "
               "{{config_dir}} {{experiment_dir}}",
               context),
            "0.1 7 0007 1 /x/trials/0007 /cfg /x");
  EXPECT_EQ(context.begin().key(), "lr");
}

TEST(RenderArgvTest, RendersEachElementWithoutQuoting) {
  auto argv = RenderArgv({"python", "train.py", "--name={{name}}", "{{activation}}"}, Params());
  ASSERT_TRUE(argv.has_value()) << argv.error().message;
  EXPECT_EQ(*argv, (std::vector<std::string>{"python", "train.py", "--name=a <b> & 'c'",
                                             R"([{"type":"relu"},{"type":"gelu","approximate":"tanh"}])"}));
  auto bad = RenderArgv({"python", "--lr={{lr2}}"}, Params());
  ASSERT_FALSE(bad.has_value());
  EXPECT_THAT(bad.error().message, HasSubstr("command[1]:1:6: unknown name 'lr2'"));
}

TEST(ShellQuoteTest, QuotesPosixStyle) {
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), R"('it'"'"'s')");
  EXPECT_EQ(ShellQuote(""), "''");
}

// Runs `command` through /bin/sh and returns its stdout.
std::string RunShell(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "<popen failed>";
  std::string out;
  char buffer[256];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe.get())) out.append(buffer, n);
  return out;
}

TEST(RenderShellCommandTest, EverySubstitutedValueSurvivesTheShellIntact) {
  const Json context = Json::parse(R"({"name": "it's a $(touch /tmp/gs-pwned) `x`; b",
                                       "lr": 0.001, "layers": [1, 2]})");
  auto command = RenderShellCommand("printf '%s\\n' {{name}} {{{lr}}} {{&layers}}", context);
  ASSERT_TRUE(command.has_value()) << command.error().message;
  EXPECT_EQ(*command, R"(printf '%s\n' 'it'"'"'s a $(touch /tmp/gs-pwned) `x`; b' '0.001' '[1,2]')");
  EXPECT_EQ(RunShell(*command), "it's a $(touch /tmp/gs-pwned) `x`; b\n0.001\n[1,2]\n");
  auto looped = RenderShellCommand("printf '<%s>' {{#layers}}--l={{.}} {{/layers}}", context);
  ASSERT_TRUE(looped.has_value()) << looped.error().message;
  EXPECT_EQ(RunShell(*looped), "<--l=1><--l=2>");
  auto bad = RenderShellCommand("run {{#x}}{{/x}}", context);
  ASSERT_FALSE(bad.has_value());
  EXPECT_THAT(bad.error().message, HasSubstr("command:1:5: unknown name 'x'"));
}

TEST(ConfinedPathTest, AcceptsRelativePathsInside) {
  auto p = ConfinedPath("/runs/e/trials/0003", "a/b.py");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  EXPECT_EQ(*p, std::filesystem::path("/runs/e/trials/0003/a/b.py"));
  auto q = ConfinedPath("/t", "./a/../c/./d.yaml");
  ASSERT_TRUE(q.has_value()) << q.error().message;
  EXPECT_EQ(*q, std::filesystem::path("/t/c/d.yaml"));
  EXPECT_TRUE(ConfinedPath("/t", "..hidden").has_value());
}

TEST(ConfinedPathTest, RejectsAbsoluteEscapingAndEmpty) {
  for (const char* dst : {"../x", "/etc/x", "a/../../x", "", ".", "a/..", "./../t/x"}) {
    auto p = ConfinedPath("/t", dst);
    ASSERT_FALSE(p.has_value()) << dst << " -> " << p->string();
    EXPECT_EQ(p.error().code, ErrorCode::kInvalidConfig);
    EXPECT_THAT(p.error().message, HasSubstr(std::string("'") + dst + "'"));
  }
}

}  // namespace
}  // namespace gpusweep
