// file_kind.h — naming what a path is when it should have been a regular file.
#pragma once

#include <sys/stat.h>

#include <string_view>

namespace gpusweep {

// "a FIFO", "a directory", ... for `mode` (st_mode of fstat/stat), for errors that
// refuse a file which is not a regular one.
inline std::string_view FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace gpusweep
