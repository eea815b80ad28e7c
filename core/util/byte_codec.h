#pragma once
// ByteWriter / ByteReader: the one binary codec of compopt's file and wire formats
// (checkpoints, optimizer state blobs, TCP frame headers). Fixed-width integers and
// floats are little-endian; strings, byte blobs and arrays carry a u64 length prefix.
// The reader never reads past its input: a truncated input, or a length prefix larger
// than what is left, throws InvalidArgument "<context> at byte N: <problem>".

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace compopt {

template <typename T>
concept WireScalar = std::is_arithmetic_v<T> && !std::same_as<T, bool> &&
                     (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

namespace byte_codec_detail {
template <size_t N>
using Unsigned = std::conditional_t<
    N == 1, uint8_t,
    std::conditional_t<N == 2, uint16_t, std::conditional_t<N == 4, uint32_t, uint64_t>>>;
}  // namespace byte_codec_detail

class ByteWriter {
 public:
  template <WireScalar T>
  void put(T value) {
    const auto bits = std::bit_cast<byte_codec_detail::Unsigned<sizeof(T)>>(value);
    for (size_t i = 0; i < sizeof(T); ++i) out_.push_back(static_cast<std::byte>(bits >> (8 * i)));
  }
  // Bytes as they are, without a length.
  void put_bytes(std::span<const std::byte> bytes) {
    out_.insert(out_.end(), bytes.begin(), bytes.end());
  }
  // u64 length, then the bytes.
  void put_blob(std::span<const std::byte> bytes) {
    put<uint64_t>(bytes.size());
    put_bytes(bytes);
  }
  void put_string(std::string_view s) { put_blob(std::as_bytes(std::span(s.data(), s.size()))); }
  // u64 element count, then each element.
  template <WireScalar T>
  void put_array(std::span<const T> values) {
    put<uint64_t>(values.size());
    if constexpr (std::endian::native == std::endian::little) {
      put_bytes(std::as_bytes(values));
    } else {
      for (const T v : values) put(v);
    }
  }

  const std::vector<std::byte>& bytes() const { return out_; }
  std::vector<std::byte> take() { return std::move(out_); }

 private:
  std::vector<std::byte> out_;
};

class ByteReader {
 public:
  // `context` starts every error message; `base` is added to the byte positions reported.
  ByteReader(std::span<const std::byte> in, std::string context, size_t base = 0)
      : in_(in), context_(std::move(context)), base_(base) {}

  template <WireScalar T>
  T get() {
    const std::span<const std::byte> b = take(sizeof(T));
    byte_codec_detail::Unsigned<sizeof(T)> bits = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      bits |= static_cast<decltype(bits)>(static_cast<decltype(bits)>(b[i]) << (8 * i));
    }
    return std::bit_cast<T>(bits);
  }
  // The next `n` bytes as they are.
  std::span<const std::byte> take(size_t n);
  // A u64 length prefix of elements of `element_bytes` each, checked against what is left.
  uint64_t get_count(size_t element_bytes);
  std::vector<std::byte> get_blob();
  std::string get_string();
  template <WireScalar T>
  std::vector<T> get_array() {
    std::vector<T> values(get_count(sizeof(T)));
    if constexpr (std::endian::native == std::endian::little) {
      const auto b = take(values.size() * sizeof(T));
      if (!b.empty()) std::memcpy(values.data(), b.data(), b.size());
    } else {
      for (T& v : values) v = get<T>();
    }
    return values;
  }

  size_t position() const { return base_ + pos_; }
  size_t remaining() const { return in_.size() - pos_; }
  bool done() const { return pos_ == in_.size(); }
  // Throws InvalidArgument "<context> at byte <position>: <what>".
  [[noreturn]] void fail(std::string_view what) const;

 private:
  std::span<const std::byte> in_;
  std::string context_;
  size_t base_;
  size_t pos_ = 0;
};

}  // namespace compopt
