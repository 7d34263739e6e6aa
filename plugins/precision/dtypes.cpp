// The torch dtypes the precision checks tell apart: resolved names to Dtype, and Dtype names.

#include "dtypes.hpp"

#include <string_view>
#include <unordered_map>

namespace precision {

Dtype torchDtype(std::string_view resolved) {
  // The legacy CPU tensor types (torch.DoubleTensor, torch.HalfTensor) build CPU tensors and are not
  // listed; their torch.cuda counterparts are device tensors.
  static const std::unordered_map<std::string_view, Dtype> kNames{
      {"torch.float64", Dtype::Float64},
      {"torch.double", Dtype::Float64},
      {"torch.cuda.DoubleTensor", Dtype::Float64},
      {"torch.complex128", Dtype::Complex128},
      {"torch.cdouble", Dtype::Complex128},
      {"torch.bfloat16", Dtype::BFloat16},
      {"torch.cuda.BFloat16Tensor", Dtype::BFloat16},
      {"torch.float16", Dtype::Float16},
      {"torch.half", Dtype::Float16},
      {"torch.cuda.HalfTensor", Dtype::Float16},
      {"torch.float32", Dtype::Float32},
      {"torch.float", Dtype::Float32},
      {"torch.FloatTensor", Dtype::Float32},
      {"torch.complex64", Dtype::Complex64},
      {"torch.cfloat", Dtype::Complex64},
  };
  auto it = kNames.find(resolved);
  return it == kNames.end() ? Dtype::None : it->second;
}

const char* dtypeName(Dtype d) {
  switch (d) {
    case Dtype::Float64:
      return "float64";
    case Dtype::Complex128:
      return "complex128";
    case Dtype::BFloat16:
      return "bfloat16";
    case Dtype::Float16:
      return "float16";
    case Dtype::Float32:
      return "float32";
    case Dtype::Complex64:
      return "complex64";
    case Dtype::None:
      break;
  }
  return "";
}

bool isWide(Dtype d) {
  return d == Dtype::Float64 || d == Dtype::Complex128;
}

}  // namespace precision
