#include "real_backend/tcp/frame.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/util/byte_codec.h"
#include "core/util/error.h"

namespace compopt::tcp {

HeaderBytes encode_header(const FrameHeader& header) {
  ByteWriter w;
  w.put<uint32_t>(kFrameMagic);
  w.put<uint16_t>(kFrameVersion);
  w.put<uint16_t>(static_cast<uint16_t>(header.kind));
  w.put<uint64_t>(header.channel);
  w.put<uint64_t>(header.length);
  w.put<uint32_t>(header.payload_crc);
  w.put<uint32_t>(crc32_of(w.bytes()));
  HeaderBytes b{};
  std::copy(w.bytes().begin(), w.bytes().end(), b.begin());
  return b;
}

FrameHeader decode_header(const HeaderBytes& b, uint64_t max_data_payload) {
  ByteReader r(b, "frame header");
  const auto magic = r.get<uint32_t>();
  if (magic != kFrameMagic) {
    throw CommError(fmt::format("bad frame magic {:#010x}, expected {:#010x} (not a compopt peer?)",
                                magic, kFrameMagic));
  }
  const auto version = r.get<uint16_t>();
  if (version != kFrameVersion) {
    throw CommError(fmt::format("frame version {}, expected {}", version, kFrameVersion));
  }
  const auto kind = r.get<uint16_t>();
  FrameHeader h;
  h.channel = r.get<uint64_t>();
  h.length = r.get<uint64_t>();
  h.payload_crc = r.get<uint32_t>();
  const auto header_crc = r.get<uint32_t>();
  if (header_crc != crc32_of(std::span(b).first(28))) {
    throw CommError(fmt::format("frame header checksum mismatch ({:#010x})", header_crc));
  }
  if (kind < static_cast<uint16_t>(FrameKind::kData) ||
      kind > static_cast<uint16_t>(FrameKind::kHeartbeat)) {
    throw CommError(fmt::format("unknown frame kind {}", kind));
  }
  h.kind = static_cast<FrameKind>(kind);
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
