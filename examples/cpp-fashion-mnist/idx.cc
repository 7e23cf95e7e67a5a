#include "idx.h"

#include <zlib.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace fmnist {
namespace {

struct GzCloser {
  void operator()(gzFile file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Reads exactly `size` bytes or throws, naming `path` and what was being read.
void ReadExactly(gzFile file, void* out, std::size_t size, const std::filesystem::path& path,
                 const char* what) {
  auto* bytes = static_cast<unsigned char*>(out);
  while (size > 0) {
    const unsigned chunk = size > (1u << 30) ? (1u << 30) : static_cast<unsigned>(size);
    const int got = gzread(file, bytes, chunk);
    if (got <= 0) throw std::runtime_error(path.string() + ": truncated or unreadable " + what);
    bytes += got;
    size -= static_cast<std::size_t>(got);
  }
}

}  // namespace

IdxArray ReadIdx(const std::filesystem::path& path) {
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) throw std::runtime_error("cannot open " + path.string());
  unsigned char magic[4];
  ReadExactly(file.get(), magic, 4, path, "header");
  if (magic[0] != 0 || magic[1] != 0 || magic[2] != 0x08 || magic[3] == 0)
    throw std::runtime_error(path.string() + ": not an unsigned-byte IDX file");
  IdxArray array;
  std::size_t count = 1;
  for (int d = 0; d < magic[3]; ++d) {
    unsigned char be[4];
    ReadExactly(file.get(), be, 4, path, "header");
    const std::int64_t size = (std::int64_t{be[0]} << 24) | (be[1] << 16) | (be[2] << 8) | be[3];
    array.shape.push_back(size);
    count *= static_cast<std::size_t>(size);
  }
  array.data.resize(count);
  ReadExactly(file.get(), array.data.data(), count, path, "data");
  return array;
}

}  // namespace fmnist
