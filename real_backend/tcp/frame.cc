#include "real_backend/tcp/frame.h"

#include <fmt/format.h>
#ifdef COMPOPT_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

#include <cstring>

#include "core/util/error.h"

namespace compopt::tcp {
namespace {

void put(std::byte* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>((value >> (8 * i)) & 0xff);
}

uint64_t get(const std::byte* in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

}  // namespace

uint32_t crc32_of(std::span<const std::byte> data, uint32_t crc) {
  if (data.empty()) return crc;
#ifdef COMPOPT_HAVE_ISAL
  // ISA-L's carry-less-multiply CRC-32: the same polynomial and values as zlib's, ~4x faster.
  return crc32_gzip_refl(crc, reinterpret_cast<const unsigned char*>(data.data()), data.size());
#else
  // zlib takes uInt lengths: feed large buffers in 1 GiB pieces.
  constexpr size_t kPiece = size_t{1} << 30;
  uLong value = crc;
  for (size_t off = 0; off < data.size(); off += kPiece) {
    const size_t n = std::min(kPiece, data.size() - off);
    value = ::crc32(value, reinterpret_cast<const Bytef*>(data.data() + off), static_cast<uInt>(n));
  }
  return static_cast<uint32_t>(value);
#endif
}

HeaderBytes encode_header(const FrameHeader& header) {
  HeaderBytes b{};
  put(&b[0], kFrameMagic, 4);
  put(&b[4], kFrameVersion, 2);
  put(&b[6], static_cast<uint16_t>(header.kind), 2);
  put(&b[8], header.channel, 8);
  put(&b[16], header.length, 8);
  put(&b[24], header.payload_crc, 4);
  put(&b[28], crc32_of(std::span(b).first(28)), 4);
  return b;
}

FrameHeader decode_header(const HeaderBytes& b, uint64_t max_data_payload) {
  const auto magic = static_cast<uint32_t>(get(&b[0], 4));
  if (magic != kFrameMagic) {
    throw CommError(fmt::format("bad frame magic {:#010x}, expected {:#010x} (not a compopt peer?)",
                                magic, kFrameMagic));
  }
  const auto version = static_cast<uint16_t>(get(&b[4], 2));
  if (version != kFrameVersion) {
    throw CommError(fmt::format("frame version {}, expected {}", version, kFrameVersion));
  }
  const auto header_crc = static_cast<uint32_t>(get(&b[28], 4));
  if (header_crc != crc32_of(std::span(b).first(28))) {
    throw CommError(fmt::format("frame header checksum mismatch ({:#010x})", header_crc));
  }
  FrameHeader h;
  const auto kind = static_cast<uint16_t>(get(&b[6], 2));
  if (kind < static_cast<uint16_t>(FrameKind::kData) ||
      kind > static_cast<uint16_t>(FrameKind::kHeartbeat)) {
    throw CommError(fmt::format("unknown frame kind {}", kind));
  }
  h.kind = static_cast<FrameKind>(kind);
  h.channel = get(&b[8], 8);
  h.length = get(&b[16], 8);
  h.payload_crc = static_cast<uint32_t>(get(&b[24], 4));
  const uint64_t limit = h.kind == FrameKind::kData ? max_data_payload : kMaxControlPayload;
  if (h.length > limit) {
    throw CommError(
        fmt::format("{} frame of {} bytes, limit {}", kind_name(h.kind), h.length, limit));
  }
  return h;
}

const char* kind_name(FrameKind kind) {
  switch (kind) {
    case FrameKind::kData:
      return "data";
    case FrameKind::kRegister:
      return "register";
    case FrameKind::kTable:
      return "table";
    case FrameKind::kReject:
      return "reject";
    case FrameKind::kPeerHello:
      return "peer-hello";
    case FrameKind::kGoodbye:
      return "goodbye";
    case FrameKind::kAbort:
      return "abort";
    case FrameKind::kHeartbeat:
      return "heartbeat";
  }
  return "?";
}

std::string control_frame(FrameKind kind, const std::string& payload) {
  const auto bytes = std::as_bytes(std::span(payload.data(), payload.size()));
  const HeaderBytes h = encode_header(
      {.kind = kind, .channel = 0, .length = payload.size(), .payload_crc = crc32_of(bytes)});
  std::string out(reinterpret_cast<const char*>(h.data()), h.size());
  return out + payload;
}

}  // namespace compopt::tcp
