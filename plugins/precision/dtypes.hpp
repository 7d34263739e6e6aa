#pragma once
// The torch dtypes the precision checks tell apart, and their names.

#include <string_view>

namespace precision {

enum class Dtype { None, Float64, Complex128, BFloat16, Float16, Float32, Complex64 };

/// The dtype a resolved name (`torch.float64`, `torch.cuda.HalfTensor`) denotes; None for others.
Dtype torchDtype(std::string_view resolved);
/// "float64", "bfloat16", …; "" for None.
const char* dtypeName(Dtype d);
/// float64 or complex128.
bool isWide(Dtype d);

}  // namespace precision
