#pragma once
// Wire format of the TCP backend. Every message on every connection (rendezvous,
// handshake and data) is a frame: a 32-byte header followed by `length` payload
// bytes. All integers are little-endian.
//
//   u32 magic 'CPOC' | u16 version | u16 kind | u64 channel | u64 length
//   u32 crc32(payload) | u32 crc32(header bytes 0..27)
//
// decode_header() rejects a wrong magic, version, kind, header checksum or a
// length above the limit of the kind, so random bytes never make a rank allocate
// or wait for a huge payload. The payload checksum is checked by the reader.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "core/util/crc32.h"

namespace compopt::tcp {

inline constexpr uint32_t kFrameMagic = 0x434F5043;  // "CPOC" on the wire
inline constexpr uint16_t kFrameVersion = 1;
inline constexpr size_t kHeaderBytes = 32;
// Control frames (everything but kData) carry small text payloads.
inline constexpr uint64_t kMaxControlPayload = 4096;

enum class FrameKind : uint16_t {
  kData = 1,       // a Transport message: channel + payload
  kRegister = 2,   // rank -> rank 0 at rendezvous: token, rank, world size, address
  kTable = 3,      // rank 0 -> rank: every rank's address and node
  kReject = 4,     // handshake refused; payload says why
  kPeerHello = 5,  // first frame on a mesh connection, both ways: token, rank, world size
  kGoodbye = 6,    // the sender returned normally; no more frames follow
  kAbort = 7,      // the sender failed; payload is its error
  kHeartbeat = 8,  // liveness while idle
};

struct FrameHeader {
  FrameKind kind = FrameKind::kData;
  uint64_t channel = 0;
  uint64_t length = 0;
  uint32_t payload_crc = 0;
};

using HeaderBytes = std::array<std::byte, kHeaderBytes>;

// Frame checksums are compopt::crc32_of (core/util/crc32.h).
using ::compopt::crc32_of;

HeaderBytes encode_header(const FrameHeader& header);
// Throws CommError naming the defect; `max_data_payload` bounds kData frames.
FrameHeader decode_header(const HeaderBytes& bytes, uint64_t max_data_payload);

const char* kind_name(FrameKind kind);

// A control frame as one contiguous buffer (header + text payload).
std::string control_frame(FrameKind kind, const std::string& payload);

}  // namespace compopt::tcp
