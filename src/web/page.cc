#include "web/page.h"

#include <functional>
#include <string_view>

#include <fmt/format.h>

namespace gpusweep::web {
namespace {

constexpr std::string_view kHeadMarker = "<!--GPUSWEEP-HEAD-->";

std::string WithHead(std::string_view head) {
  std::string page(kIndexHtml);
  const std::size_t at = page.find(kHeadMarker);
  if (at != std::string::npos) page.replace(at, kHeadMarker.size(), head);
  return page;
}

std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

std::string JsonForScript(const Json& data) {
  // error_handler replace: a stray invalid UTF-8 byte in a log must not abort a report.
  return ReplaceAll(data.dump(-1, ' ', false, Json::error_handler_t::replace), "<", "\\u003c");
}

std::string ScriptForInline(std::string_view script) {
  return ReplaceAll(std::string(script), "</", "<\\/");
}

std::string ServedPage() {
  // The bundle's hash in its URL: the server lets browsers keep it for good (and V8 its
  // compiled code), and a new binary's bundle has a new URL.
  const std::size_t version = std::hash<std::string_view>{}(kAppJs) ^
                              (std::hash<std::string_view>{}(kAppCss) << 1);
  return WithHead(fmt::format(
      "<link rel=\"stylesheet\" href=\"app.css?v={0:x}\">\n"
      "<script src=\"app.js?v={0:x}\" defer></script>",
      version));
}

std::string ReportPage(const Json& data) {
  return WithHead(fmt::format(
      "<style>{}</style>\n<script>window.GPUSWEEP_REPORT = {};</script>\n<script>{}</script>",
      ReplaceAll(std::string(kAppCss), "</", "<\\/"), JsonForScript(data),
      ScriptForInline(kAppJs)));
}

}  // namespace gpusweep::web
