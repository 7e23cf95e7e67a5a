// page.h — the dashboard's HTML: the page `serve` answers at / and the self-contained
// file `report` writes. Both load the same bundle (web/, embedded at build time).
#pragma once

#include <string>
#include <string_view>

#include "gpusweep/json.h"

namespace gpusweep::web {

// The bundle built from web/ (generated web_assets.cc).
extern const std::string_view kAppJs;
extern const std::string_view kAppCss;
extern const std::string_view kIndexHtml;  // holds the <!--GPUSWEEP-HEAD--> marker

// index.html referring to /app.js and /app.css (for the server).
std::string ServedPage();

// One HTML file with the stylesheet, the script and `data` inline (no request leaves
// it, so it opens offline). `data` is {experiment, trials, points, details, importance}
// as the endpoints answer; the script reads it instead of fetching.
std::string ReportPage(const Json& data);

// `text` safe inside a <script> element: "</script" and "<!--" cannot close or open
// anything. JSON data: every '<' becomes \u003c (valid inside JSON strings, where
// alone it can occur). Script: "</" becomes "<\/" (equal inside strings and regexps).
std::string JsonForScript(const Json& data);
std::string ScriptForInline(std::string_view script);

}  // namespace gpusweep::web
