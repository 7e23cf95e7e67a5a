#include "search/mustache_tags.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpusweep::search {
namespace {

constexpr std::string_view kSpace = " \t\n\r\f\v";  // std::isspace in the "C" locale

std::string_view Trim(std::string_view s) {
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

// Names are "." or dot-separated non-empty parts.
bool IsWellFormedName(std::string_view name) {
  if (name == ".") return true;
  return !name.empty() && name.front() != '.' && name.back() != '.' &&
         name.find("..") == std::string_view::npos;
}

// "=<open> <close>=" as kainjow accepts it: split at the first space, no '=' or
// whitespace inside a delimiter.
bool ParseSetDelimiter(std::string_view contents, std::string& open, std::string& close) {
  if (contents.size() < 5 || contents.back() != '=') return false;
  const std::string_view inner = Trim(contents.substr(1, contents.size() - 2));
  const auto space = inner.find(' ');
  if (space == std::string_view::npos) return false;
  const std::string_view first = inner.substr(0, space);
  const std::string_view second = inner.substr(inner.find_first_not_of(' ', space));
  const auto valid = [](std::string_view d) {
    return !d.empty() && d.find_first_of(" \t\n\r\f\v=") == std::string_view::npos;
  };
  if (!valid(first) || !valid(second)) return false;
  open = first;
  close = second;
  return true;
}

class Scanner {
 public:
  Scanner(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  Expected<std::vector<MustacheTag>> Run() {
    std::size_t pos = 0;
    while ((pos = text_.find(open_, pos)) != std::string_view::npos) {
      GS_ASSIGN_OR_RETURN(pos, ScanTag(pos));
    }
    if (!open_sections_.empty()) {
      const MustacheTag& t = tags_[open_sections_.back()];
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("{}: section {} is never closed (no {}/{}{})", Where(t.begin),
                              text_.substr(t.begin, t.end - t.begin), t.open, t.name,
                              t.close));
    }
    return std::move(tags_);
  }

 private:
  // Scans the tag starting at `begin`; returns the offset after it.
  Expected<std::size_t> ScanTag(std::size_t begin) {
    MustacheTag tag{TagKind::kVariable, "", begin, 0, open_, close_};
    std::size_t contents_begin = begin + open_.size();
    const bool triple = open_ == "{{" && close_ == "}}" && contents_begin < text_.size() &&
                        text_[contents_begin] == '{';
    if (triple) ++contents_begin;
    const std::string_view close = triple ? "}}}" : std::string_view(close_);
    const std::size_t close_at = text_.find(close, contents_begin);
    if (close_at == std::string_view::npos)
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("{}: unclosed tag: '{}' without a matching '{}'", Where(begin),
                              triple ? "{{{" : open_, close));
    tag.end = close_at + close.size();
    const std::string_view contents =
        Trim(text_.substr(contents_begin, close_at - contents_begin));
    const std::string_view tag_text = text_.substr(begin, tag.end - begin);

    if (!contents.empty() && contents.front() == '=') {
      if (!ParseSetDelimiter(contents, open_, close_))
        return Fail(ErrorCode::kInvalidConfig,
                    fmt::format("{}: invalid set-delimiter tag {} (write e.g. {}=<% %>={})",
                                Where(begin), tag_text, tag.open, tag.close));
      tag.kind = TagKind::kSetDelimiter;
    } else {
      GS_TRY(Classify(triple, contents, tag_text, tag));
    }
    GS_TRY(TrackSections(tag));
    tags_.push_back(std::move(tag));
    return tags_.back().end;
  }

  Status Classify(bool triple, std::string_view contents, std::string_view tag_text,
                  MustacheTag& tag) {
    char sigil = (triple || contents.empty()) ? '\0' : contents.front();
    switch (sigil) {
      case '#': tag.kind = TagKind::kSectionBegin; break;
      case '^': tag.kind = TagKind::kInvertedBegin; break;
      case '/': tag.kind = TagKind::kSectionEnd; break;
      case '!': tag.kind = TagKind::kComment; return {};
      case '&': tag.kind = TagKind::kVariable; break;
      case '>':
        return Fail(ErrorCode::kInvalidConfig,
                    fmt::format("{}: partials like {} are not supported", Where(tag.begin),
                                tag_text));
      default: sigil = '\0'; break;
    }
    tag.name = Trim(sigil ? contents.substr(1) : contents);
    if (!IsWellFormedName(tag.name))
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("{}: {} in {}", Where(tag.begin),
                              tag.name.empty() ? "empty name" : "malformed name", tag_text));
    return {};
  }

  Status TrackSections(const MustacheTag& tag) {
    if (tag.kind == TagKind::kSectionBegin || tag.kind == TagKind::kInvertedBegin) {
      open_sections_.push_back(tags_.size());
    } else if (tag.kind == TagKind::kSectionEnd) {
      const std::string_view tag_text = text_.substr(tag.begin, tag.end - tag.begin);
      if (open_sections_.empty())
        return Fail(ErrorCode::kInvalidConfig,
                    fmt::format("{}: {} closes no open section", Where(tag.begin), tag_text));
      const MustacheTag& opener = tags_[open_sections_.back()];
      if (opener.name != tag.name)
        return Fail(ErrorCode::kInvalidConfig,
                    fmt::format("{}: {} does not close section '{}' opened at {}",
                                Where(tag.begin), tag_text, opener.name,
                                Where(opener.begin)));
      open_sections_.pop_back();
    }
    return {};
  }

  std::string Where(std::size_t offset) const { return TextLocation(what_, text_, offset); }

  std::string_view text_, what_;
  std::string open_ = "{{", close_ = "}}";
  std::vector<MustacheTag> tags_;
  std::vector<std::size_t> open_sections_;  // indices into tags_
};

}  // namespace

std::string TextLocation(std::string_view what, std::string_view text, std::size_t offset) {
  const std::string_view before = text.substr(0, offset);
  const auto line = std::count(before.begin(), before.end(), '\n') + 1;
  const auto last_newline = before.rfind('\n');
  const std::size_t column =
      last_newline == std::string_view::npos ? offset + 1 : offset - last_newline;
  return fmt::format("{}:{}:{}", what, line, column);
}

Expected<std::vector<MustacheTag>> ScanMustacheTags(std::string_view text,
                                                    std::string_view what) {
  return Scanner(text, what).Run();
}

}  // namespace gpusweep::search
