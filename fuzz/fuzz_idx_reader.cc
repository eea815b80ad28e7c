// libFuzzer target: the IDX reader (core/tasks/idx_reader.h) on arbitrary file contents, plain
// or gzip (zlib reads both; the seed corpus has both). The first input byte picks the expected
// number of dimensions (1..4), the rest is the file. A bad file must end in DatasetError; an
// accepted one must hold exactly the data its header promises. The promised size is never
// allocated up front, so a header claiming terabytes costs nothing (libFuzzer's -malloc_limit_mb
// and -rss_limit_mb catch it otherwise).

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "core/tasks/idx_reader.h"

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_idx_reader: invariant violated: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t ndims = 1 + data[0] % 4;
  static const std::string path = "/tmp/fuzz_idx_reader." + std::to_string(::getpid()) + ".idx";
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  compopt::IdxArray array;
  try {
    array = compopt::read_idx_u8(path, ndims);
  } catch (const compopt::DatasetError&) {
    return 0;
  }
  size_t total = 1;
  for (const uint32_t d : array.dims) {
    check(d >= 1, "accepted a zero dimension");
    total *= d;
  }
  check(array.dims.size() == ndims, "wrong number of dimensions");
  check(array.data.size() == total, "data size differs from the header's product");
  return 0;
}
