#include "run/output_tail.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "common/unique_fd.h"

namespace gpusweep {
namespace {

std::string ReadTail(const std::filesystem::path& path, std::size_t window) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  struct stat info {};
  if (!fd.valid() || ::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) return "";
  const off_t size = info.st_size;
  const off_t start = size > static_cast<off_t>(window) ? size - static_cast<off_t>(window) : 0;
  std::string data(static_cast<std::size_t>(size - start), '\0');
  const ssize_t n = ::pread(fd.get(), data.data(), data.size(), start);
  data.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return data;
}

// Length of the UTF-8 sequence starting at `text[i]` if it is valid, else 0.
std::size_t Utf8Length(std::string_view text, std::size_t i) {
  const auto byte = static_cast<unsigned char>(text[i]);
  const std::size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3
                             : (byte >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  return length;
}

std::string Sanitized(std::string_view line, std::size_t max_chars) {
  std::string out;
  for (std::size_t i = 0; i < line.size();) {
    const std::size_t length = Utf8Length(line, i);
    if (out.size() + std::max<std::size_t>(length, 1) > max_chars) return out + "…";
    const auto byte = static_cast<unsigned char>(line[i]);
    if (length == 0 || (length == 1 && (byte < 0x20 || byte == 0x7F))) {
      out += byte == '\t' ? ' ' : '?';
      i += std::max<std::size_t>(length, 1);
      continue;
    }
    out.append(line.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace

std::string LastOutputLine(const std::filesystem::path& path, std::size_t window,
                           std::size_t max_chars) {
  const std::string tail = ReadTail(path, window);
  constexpr std::string_view kBlank = " \t\n\r\f\v";
  std::size_t end = tail.size();
  while (end > 0) {
    const std::size_t begin_at = tail.find_last_of("\n\r", end - 1);
    const std::size_t begin = begin_at == std::string::npos ? 0 : begin_at + 1;
    std::string_view line(tail.data() + begin, end - begin);
    const std::size_t first = line.find_first_not_of(kBlank);
    if (first != std::string_view::npos) {
      line = line.substr(first, line.find_last_not_of(kBlank) - first + 1);
      return Sanitized(line, max_chars);
    }
    if (begin_at == std::string::npos) break;
    end = begin_at;
  }
  return "";
}

}  // namespace gpusweep
