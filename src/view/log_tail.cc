// ReadLogTail (view/experiment_view.h): a trial's output, bounded.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/unique_fd.h"
#include "view/experiment_view.h"

namespace gpusweep {

std::string ReadLogTail(const std::filesystem::path& file, std::size_t max_bytes) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  const off_t start = st.st_size > static_cast<off_t>(max_bytes)
                          ? st.st_size - static_cast<off_t>(max_bytes)
                          : 0;
  std::string text(static_cast<std::size_t>(st.st_size - start), '\0');
  const ssize_t got = ::pread(fd.get(), text.data(), text.size(), start);
  text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  if (start > 0) {  // from the first line start, unless the window holds none
    const std::size_t newline = text.find('\n');
    if (newline != std::string::npos && newline + 1 < text.size()) text.erase(0, newline + 1);
  }
  return text;
}

}  // namespace gpusweep
