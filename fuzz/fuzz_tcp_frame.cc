// libFuzzer target: the TCP backend's frame parser (real_backend/tcp/frame.h) on an arbitrary
// byte stream, read the way a rank's reader reads a connection: 32-byte header, decode_header
// (CommError for anything malformed), then `length` payload bytes whose CRC32 must match; control
// payloads are parsed as key=value lines (parse_fields). Invariants: a header that decodes
// re-encodes to the same 32 bytes, and never promises more than its kind's limit.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "core/util/error.h"
#include "real_backend/tcp/frame.h"
#include "real_backend/tcp/handshake_io.h"

namespace {

namespace tcp = compopt::tcp;

constexpr uint64_t kMaxData = uint64_t{1} << 20;  // a rank's max_message_bytes, scaled down

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_tcp_frame: invariant violated: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto stream = std::as_bytes(std::span(data, size));
  size_t pos = 0;
  while (stream.size() - pos >= tcp::kHeaderBytes) {
    tcp::HeaderBytes header_bytes;
    std::memcpy(header_bytes.data(), stream.data() + pos, tcp::kHeaderBytes);
    pos += tcp::kHeaderBytes;
    tcp::FrameHeader h;
    try {
      h = tcp::decode_header(header_bytes, kMaxData);
    } catch (const compopt::CommError&) {
      return 0;  // the reader fails the link
    }
    check(tcp::encode_header(h) == header_bytes, "decoded header does not re-encode to its bytes");
    check(h.length <= (h.kind == tcp::FrameKind::kData ? kMaxData : tcp::kMaxControlPayload),
          "header above its kind's limit was accepted");
    check(std::string(tcp::kind_name(h.kind)) != "?", "unnamed frame kind");
    if (stream.size() - pos < h.length) return 0;  // truncated: the reader reports it
    const auto payload = stream.subspan(pos, h.length);
    pos += h.length;
    if (tcp::crc32_of(payload) != h.payload_crc) return 0;  // checksum mismatch: link fails
    if (h.kind == tcp::FrameKind::kData || h.kind == tcp::FrameKind::kAbort) continue;
    const std::string text(reinterpret_cast<const char*>(payload.data()), payload.size());
    try {
      const tcp::Fields fields = tcp::parse_fields(text);
      // What parses re-encodes to a frame that parses to the same fields.
      const std::string frame = tcp::control_frame(h.kind, tcp::encode_fields(fields));
      tcp::HeaderBytes again;
      std::memcpy(again.data(), frame.data(), again.size());
      const tcp::FrameHeader h2 = tcp::decode_header(again, kMaxData);
      check(h2.kind == h.kind, "control frame kind changed");
      if (h2.length <= tcp::kMaxControlPayload) {
        check(tcp::parse_fields(frame.substr(tcp::kHeaderBytes)) == fields,
              "fields changed through encode_fields -> parse_fields");
      }
    } catch (const compopt::CommError&) {
      // malformed control payload: refused
    }
  }
  return 0;
}
