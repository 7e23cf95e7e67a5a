// idx.h: reads the gzip'd IDX files of MNIST-like datasets (Debian's
// dataset-fashion-mnist in /usr/share/datasets/fashion-mnist). No LibTorch here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

namespace fmnist {

/// An unsigned-byte IDX array: dimensions (e.g. [60000, 28, 28]) and row-major data.
struct IdxArray {
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> data;
};

/// Decodes `path` (gzip-compressed IDX: magic 0x00 0x00 0x08 ndim, then ndim big-endian
/// uint32 sizes, then the bytes). Throws std::runtime_error naming the file when it
/// cannot be read, is not an unsigned-byte IDX file, or is shorter than its header says.
IdxArray ReadIdx(const std::filesystem::path& path);

}  // namespace fmnist
