#include "real_backend/cuda_kernels/kernels.h"

namespace compopt::cuda {

std::optional<Codec> codec_for(std::string_view compressor_name) {
  if (compressor_name == "sign") return Codec::kSign;
  if (compressor_name == "binary") return Codec::kBinary;
  return std::nullopt;
}

}  // namespace compopt::cuda
