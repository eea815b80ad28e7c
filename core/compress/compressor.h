#pragma once
// Compression operators (docs/algorithms.md "Compressors"). A compressor turns k floats into a
// payload of payload_bytes(k) bytes plus, when has_scale(), one float scale; wire_bytes(k) is
// exactly what goes on the wire for one message and what traffic counters see.
//
// Payloads are concatenations of fixed-width per-element fields packed LSB-first,
// so for k a multiple of 8 the payload of elements [j*k, (j+1)*k) of a longer
// vector is the byte range [j*payload_bytes(k), (j+1)*payload_bytes(k)) of its
// payload: a vector encoded with one scale can be cut into chunks (the compressed allreduce of
// docs/algorithms.md relies on it). Compressors whose payload is not per element (topk) say
// so with chunkable() == false, and the compressed allreduce refuses them.
//
// Compressors are stateless and thread-safe; error feedback lives in ErrorFeedback.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/compress/random_key.h"

namespace compopt {

class Compressor {
 public:
  virtual ~Compressor() = default;

  virtual std::string name() const = 0;
  virtual size_t payload_bytes(size_t k) const = 0;
  virtual bool has_scale() const = 0;
  // True when encode draws random numbers (then RandomKey matters).
  virtual bool is_stochastic() const { return false; }
  // True when the payload is a concatenation of fixed-width per-element fields (see above).
  virtual bool chunkable() const { return true; }

  size_t wire_bytes(size_t k) const { return payload_bytes(k) + (has_scale() ? sizeof(float) : 0); }

  // Encodes x into payload (size payload_bytes(x.size())) and returns the scale
  // (1 for compressors without one). `key` seeds stochastic rounding.
  virtual float encode(std::span<const float> x, std::span<std::byte> payload,
                       const RandomKey& key) const = 0;

  // Decodes payload (k = out.size() elements) with `scale` into out.
  virtual void decode(float scale, std::span<const std::byte> payload,
                      std::span<float> out) const = 0;

  // Encodes then decodes x into out (the value the receiver sees); convenience for EF.
  float round_trip(std::span<const float> x, std::span<float> out, const RandomKey& key) const;
};

// Builds a compressor from its spec "name" or "name:parameter" as the compressor registry
// (compressor_registry.h) lists them: identity | fp16 | sign | binary | nbit[:B] | topk[:R].
// Throws InvalidArgument naming the spec and the accepted forms.
std::unique_ptr<Compressor> make_compressor(std::string_view spec);

}  // namespace compopt
