// Python expressions as values (contract in python_value.h).
#include "config/python_value.h"

#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "config/foreign_param.h"

namespace gpusweep::config_detail {
namespace {

constexpr std::size_t kMaxListed = 64;

std::string Strip(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

bool Begins(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// "name(args)" -> args, for one of `names`.
std::optional<std::string> CallArgs(std::string_view text, std::initializer_list<std::string_view> names) {
  const std::string t = Strip(text);
  for (std::string_view name : names)
    if (Begins(t, name) && t.size() > name.size() && t[name.size()] == '(' && t.back() == ')')
      return t.substr(name.size() + 1, t.size() - name.size() - 2);
  return std::nullopt;
}

std::optional<std::vector<double>> NumberArgs(std::string_view args) {
  std::vector<double> out;
  std::string part;
  std::string text(args);
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    part = Strip(std::string_view(text).substr(start, comma - start));
    if (part.empty() || part.find('=') != std::string::npos) return std::nullopt;
    char* end = nullptr;
    const double x = std::strtod(part.c_str(), &end);
    if (end != part.c_str() + part.size() || !std::isfinite(x)) return std::nullopt;
    out.push_back(x);
    start = comma + 1;
  }
  return out;
}

// range(stop) / range(start, stop[, step]) as integers.
struct Range {
  long long start = 0, stop = 0, step = 1;
};
std::optional<Range> ParseRange(std::string_view text) {
  auto args = CallArgs(text, {"range"});
  if (!args) args = CallArgs(text, {"list"});
  if (args && Begins(Strip(*args), "range(")) args = CallArgs(*args, {"range"});
  if (!args) return std::nullopt;
  const auto n = NumberArgs(*args);
  if (!n || n->empty() || n->size() > 3) return std::nullopt;
  for (double x : *n)
    if (std::trunc(x) != x) return std::nullopt;
  Range r;
  if (n->size() == 1) r.stop = static_cast<long long>((*n)[0]);
  else {
    r.start = static_cast<long long>((*n)[0]);
    r.stop = static_cast<long long>((*n)[1]);
    if (n->size() == 3) r.step = static_cast<long long>((*n)[2]);
  }
  if (r.step == 0) return std::nullopt;
  return r;
}

std::vector<long long> Values(const Range& r) {
  std::vector<long long> out;
  for (long long i = r.start; (r.step > 0 ? i < r.stop : i > r.stop) && out.size() <= kMaxListed; i += r.step)
    out.push_back(i);
  return out;
}

std::string List(const std::vector<double>& values) {
  std::string text;
  for (double v : values) text += fmt::format("{}{:g}", text.empty() ? "" : ", ", v);
  return "[" + text + "]";
}

// "EXPR for VAR in ITER" (a comprehension's body): the values when EXPR is VAR, B ** VAR,
// VAR * K or K * VAR and ITER a range.
std::optional<std::vector<double>> Comprehension(std::string_view body) {
  const std::string b = Strip(body);
  const std::size_t f = b.find(" for "), in = b.find(" in ");
  if (f == std::string::npos || in == std::string::npos || in < f) return std::nullopt;
  const std::string expr = Strip(std::string_view(b).substr(0, f));
  const std::string var = Strip(std::string_view(b).substr(f + 5, in - f - 5));
  const auto range = ParseRange(std::string_view(b).substr(in + 4));
  if (!range || var.empty()) return std::nullopt;
  std::string compact;
  for (char c : expr)
    if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
  std::vector<double> out;
  for (long long i : Values(*range)) {
    const double x = static_cast<double>(i);
    if (compact == var) out.push_back(x);
    else if (compact.ends_with("**" + var)) {
      const auto base = NumberArgs(compact.substr(0, compact.size() - var.size() - 2));
      if (!base || base->size() != 1) return std::nullopt;
      out.push_back(std::pow((*base)[0], x));
    } else if (compact.starts_with(var + "*") || compact.ends_with("*" + var)) {
      const std::string k = compact.starts_with(var + "*") ? compact.substr(var.size() + 1)
                                                          : compact.substr(0, compact.size() - var.size() - 1);
      const auto factor = NumberArgs(k);
      if (!factor || factor->size() != 1) return std::nullopt;
      out.push_back(x * (*factor)[0]);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// np.logspace(a, b, n) / np.linspace(a, b, n) / np.arange(a, b[, s]).
std::optional<std::vector<double>> NumpyList(std::string_view text) {
  std::vector<double> out;
  if (auto args = CallArgs(text, {"np.logspace", "numpy.logspace", "np.linspace", "numpy.linspace"})) {
    const auto n = NumberArgs(*args);
    if (!n || n->size() != 3 || (*n)[2] < 1 || (*n)[2] > kMaxListed) return std::nullopt;
    const bool log = Strip(text).find("logspace") != std::string::npos;
    const int count = static_cast<int>((*n)[2]);
    for (int i = 0; i < count; ++i) {
      const double t = count == 1 ? (*n)[0] : (*n)[0] + i * ((*n)[1] - (*n)[0]) / (count - 1);
      out.push_back(log ? std::pow(10.0, t) : t);
    }
    return out;
  }
  if (auto args = CallArgs(text, {"np.arange", "numpy.arange"})) {
    const auto n = NumberArgs(*args);
    if (!n || n->empty() || n->size() > 3) return std::nullopt;
    const double start = n->size() == 1 ? 0 : (*n)[0], stop = n->size() == 1 ? (*n)[0] : (*n)[1];
    const double step = n->size() == 3 ? (*n)[2] : 1;
    if (step == 0) return std::nullopt;
    for (int i = 0; (step > 0 ? start + i * step < stop : start + i * step > stop); ++i) {
      if (static_cast<std::size_t>(i) >= kMaxListed) return std::nullopt;
      out.push_back(start + i * step);
    }
    return out;
  }
  return std::nullopt;
}

// "EXPR for NAME in ITER" with NAME one identifier: a comprehension, not prose.
bool IsComprehensionBody(const std::string& body) {
  const std::size_t f = body.find(" for "), in = body.find(" in ");
  if (f == std::string::npos || in == std::string::npos || in <= f + 5) return false;
  const std::string var = Strip(std::string_view(body).substr(f + 5, in - f - 5));
  if (var.empty()) return false;
  for (char c : var)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool LooksLikePythonCall(std::string_view text) {
  const std::string t = Strip(text);
  for (std::string_view prefix : {"np.", "numpy.", "math.", "scope.", "random.", "list(", "tuple(",
                                  "range(", "int(", "float(", "dict(", "sorted("})
    if (Begins(t, prefix) && t.back() == ')') return true;
  return false;
}

tl::unexpected<Error> Refuse(const Value& at, std::string_view text, std::string_view param,
                             std::string_view write) {
  return at.Invalid(fmt::format("'{}' is a Python expression; gpusweep does not evaluate it (it "
                                "would be the constant string)",
                                text),
                    fmt::format("write {}: {}", param, write));
}

Status CheckString(const Value& value, const std::string& text, std::string_view param) {
  const std::string t = Strip(text);
  if (Begins(t, "lambda ") || Begins(t, "lambda:"))
    return value.Invalid(fmt::format("'{}' is a Python function; gpusweep does not run it", t),
                         "make what varies a parameter, and compute the rest in the trial "
                         "(e.g. from {{other}} in the command)");
  if (auto range = ParseRange(t)) {
    const auto values = Values(*range);
    std::string write =
        range->step == 1 ? fmt::format("{{type: int, low: {}, high: {}}}", range->start, range->stop - 1)
                         : fmt::format("{{type: int, low: {}, high: {}, step: {}}}", range->start,
                                       range->stop - 1, range->step);
    if (range->step < 0 || values.empty() || values.size() > kMaxListed) {
      std::vector<double> listed(values.begin(), values.end());
      write = fmt::format("{{type: choice, values: {}}}", List(listed));
    }
    return Refuse(value, t, param, write + " (Python's range excludes its stop)");
  }
  if (t.size() > 2 && t.front() == '[' && t.back() == ']')
    if (auto values = Comprehension(std::string_view(t).substr(1, t.size() - 2)))
      return Refuse(value, t, param, fmt::format("{{type: choice, values: {}}}", List(*values)));
  if (auto values = NumpyList(t))
    return Refuse(value, t, param, fmt::format("{{type: choice, values: {}}}", List(*values)));
  if (auto inner = CallArgs(t, {"scope.int", "hyperopt.pyll.scope.int"})) {
    const auto ours = ForeignCallMapping(*inner);
    return Refuse(value, t, param,
                  ours ? fmt::format("{} (an integer q already gives integers)", *ours)
                       : std::string("the integers as {type: int, low: <low>, high: <high>}"));
  }
  if (LooksLikePythonCall(t) ||
      (t.size() > 2 && t.front() == '[' && IsComprehensionBody(t.substr(1, t.size() - 2))))
    return Refuse(value, t, param, "the values it gives, as a literal list or mapping");
  return {};
}

}  // namespace

Status CheckPythonValue(const Value& value, std::string_view param) {
  if (value.IsScalar()) return CheckString(value, value.node().Scalar(), param);
  if (value.IsMapping()) {  // `lambda spec: x` reads as the mapping {"lambda spec": x}
    for (const auto& item : value.node())
      if (item.first.IsScalar() && (Begins(item.first.Scalar(), "lambda") ||
                                    item.first.Scalar().find("(lambda") != std::string::npos))
        return value.Invalid(
            fmt::format("'{}: ...' is a Python function; gpusweep does not run it",
                        item.first.Scalar()),
            "make what varies a parameter, and compute the rest in the trial");
    return {};
  }
  if (!value.IsList()) return {};
  // `[2 ** i for i in range(9)]` reads as a list holding the body (split at its commas:
  // `range(4, 7)` gives two elements), so the elements are joined back.
  std::string body;
  for (const auto& element : value.node()) {
    if (!element.IsScalar()) return {};
    body += (body.empty() ? "" : ", ") + element.Scalar();
  }
  {
    if (IsComprehensionBody(body)) {
      const auto values = Comprehension(body);
      return Refuse(value, "[" + body + "]", param,
                    values ? fmt::format("{{type: choice, values: {}}}", List(*values))
                           : std::string("the values it gives, as a literal list"));
    }
  }
  return {};
}

}  // namespace gpusweep::config_detail
