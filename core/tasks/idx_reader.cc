#include "core/tasks/idx_reader.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>

namespace compopt {
namespace {

constexpr uint8_t kTypeUnsignedByte = 0x08;

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

class IdxStream {
 public:
  explicit IdxStream(const std::filesystem::path& path) : path_(path.string()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) fail("file not found");
    if (std::filesystem::is_directory(path, ec)) fail("is a directory, expected an IDX file");
    errno = 0;
    file_.reset(gzopen(path_.c_str(), "rb"));
    if (!file_) fail(fmt::format("cannot open: {}", std::strerror(errno)));
  }

  // Reads up to n bytes; returns how many were read. Throws on a corrupt stream.
  size_t read(void* out, size_t n) {
    size_t done = 0;
    auto* bytes = static_cast<uint8_t*>(out);
    while (done < n) {
      const size_t want = std::min<size_t>(n - done, size_t{1} << 30);
      const int got = gzread(file_.get(), bytes + done, static_cast<unsigned>(want));
      if (got < 0) {
        int code = 0;
        const char* msg = gzerror(file_.get(), &code);
        fail(fmt::format("corrupt or unreadable gzip stream: {}", msg ? msg : "unknown error"));
      }
      if (got == 0) break;
      done += static_cast<size_t>(got);
    }
    return done;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw DatasetError(fmt::format("IDX file {}: {}", path_, what));
  }

 private:
  std::string path_;
  GzFile file_;
};

}  // namespace

IdxArray read_idx_u8(const std::filesystem::path& path, size_t expected_ndims) {
  IdxStream in(path);
  std::array<uint8_t, 4> magic{};
  if (in.read(magic.data(), magic.size()) != magic.size()) in.fail("truncated: no 4-byte header");
  const uint32_t magic_word = (uint32_t{magic[0]} << 24) | (uint32_t{magic[1]} << 16) |
                              (uint32_t{magic[2]} << 8) | magic[3];
  const uint32_t expected_magic =
      (uint32_t{kTypeUnsignedByte} << 8) | static_cast<uint32_t>(expected_ndims);
  if (magic[0] != 0 || magic[1] != 0) {
    in.fail(fmt::format("bad magic number 0x{:08x}, expected 0x{:08x} (not an IDX file?)",
                        magic_word, expected_magic));
  }
  if (magic[2] != kTypeUnsignedByte) {
    in.fail(fmt::format("element type 0x{:02x}, expected 0x08 (unsigned byte)", magic[2]));
  }
  if (magic[3] != expected_ndims) {
    in.fail(fmt::format("{} dimensions (magic 0x{:08x}), expected {} (magic 0x{:08x})", magic[3],
                        magic_word, expected_ndims, expected_magic));
  }
  IdxArray out;
  out.dims.resize(expected_ndims);
  size_t total = 1;
  for (size_t i = 0; i < expected_ndims; ++i) {
    std::array<uint8_t, 4> b{};
    if (in.read(b.data(), b.size()) != b.size()) {
      in.fail(fmt::format("truncated header: dimension {} of {} missing", i + 1, expected_ndims));
    }
    const uint32_t dim =
        (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
    if (dim == 0) in.fail(fmt::format("dimension {} is 0, expected >= 1", i + 1));
    if (total > std::numeric_limits<size_t>::max() / dim) in.fail("dimensions overflow");
    total *= dim;
    out.dims[i] = dim;
  }
  // Grow with the data actually read: a corrupt header promising terabytes allocates nothing.
  constexpr size_t kPiece = size_t{1} << 24;
  out.data.reserve(std::min(total, kPiece));
  size_t got = 0;
  while (got < total) {
    const size_t want = std::min(kPiece, total - got);
    out.data.resize(got + want);
    const size_t n = in.read(out.data.data() + got, want);
    got += n;
    if (n < want) break;
  }
  if (got != total) {
    in.fail(fmt::format("truncated: header promises {} data bytes, file has {}", total, got));
  }
  uint8_t extra = 0;
  if (in.read(&extra, 1) != 0) {
    in.fail(fmt::format("trailing bytes after the {} data bytes the header promises", total));
  }
  return out;
}

}  // namespace compopt
