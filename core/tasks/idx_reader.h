#pragma once
// Reader of IDX files (the MNIST / Fashion-MNIST container): a 4-byte magic
// 0x00 0x00 <type> <ndims>, ndims big-endian uint32 dimensions, then the data
// in row-major order. Only unsigned-byte data (type 0x08) is supported.
// Files may be gzip-compressed or plain (zlib reads both).
//
// read_idx_u8 throws DatasetError naming the file and what is wrong: missing or
// unreadable file, corrupt gzip stream, bad magic, wrong element type, wrong
// number of dimensions, a zero dimension, truncated data or trailing bytes.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace compopt {

class DatasetError : public std::runtime_error {
 public:
  explicit DatasetError(const std::string& what) : std::runtime_error(what) {}
};

struct IdxArray {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;  // product(dims) bytes
};

IdxArray read_idx_u8(const std::filesystem::path& path, size_t expected_ndims);

}  // namespace compopt
