#include "core/util/byte_codec.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/util/error.h"

namespace compopt {

std::span<const std::byte> ByteReader::take(size_t n) {
  if (n > remaining()) fail(fmt::format("truncated: {} bytes needed, {} left", n, remaining()));
  const auto out = in_.subspan(pos_, n);
  pos_ += n;
  return out;
}

uint64_t ByteReader::get_count(size_t element_bytes) {
  const auto n = get<uint64_t>();
  if (n > remaining() / std::max<size_t>(element_bytes, 1)) {
    fail(fmt::format("a length of {} exceeds the {} bytes left", n, remaining()));
  }
  return n;
}

std::vector<std::byte> ByteReader::get_blob() {
  const auto b = take(get_count(1));
  return {b.begin(), b.end()};
}

std::string ByteReader::get_string() {
  const auto b = take(get_count(1));
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

void ByteReader::fail(std::string_view what) const {
  throw InvalidArgument(fmt::format("{} at byte {}: {}", context_, position(), what));
}

}  // namespace compopt
