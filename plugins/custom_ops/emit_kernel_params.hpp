#pragma once
/// A CUDA kernel's parameter list read for an Ascend C operator: which pointers become input or
/// output tensors (and with which data types), which scalars become tiling fields or attributes.

#include <string>
#include <string_view>
#include <vector>

namespace custom_ops {

/// One parameter of a CUDA kernel and what it becomes in the Ascend C operator.
struct KernelParam {
  enum class Role {
    Input,      ///< pointer to const: an input tensor
    Output,     ///< pointer to non-const: an output tensor (read-modify-write needs an input too)
    Shape,      ///< integer size/stride/count: computed by the host tiling from the tensor shapes
    Attribute,  ///< other scalar: an operator attribute, passed to the kernel through the tiling
    Opaque,     ///< a struct, reference or pointer-to-pointer: no direct counterpart
  };
  Role role = Role::Opaque;
  std::string name;        ///< a valid identifier, unique in the operator
  std::string cuda_type;   ///< the declared type as written, spaces collapsed
  std::string element;     ///< the pointee or scalar type without qualifiers (`scalar_t`, `float`)
  bool templated = false;  ///< the element type is a template type parameter of the kernel
  std::string note;        ///< a caveat for the reader ("float64 becomes float32", …) or ""
};

/// The data types of one tensor, one entry per supported combination of the operator.
struct TensorTypes {
  std::vector<std::string> json;  ///< msopgen's names: float16, bfloat16, float, int32, …
  std::vector<std::string> ge;    ///< the OpDef names: ge::DT_FLOAT16, …
};

/// Parses `(const scalar_t* __restrict__ x, scalar_t* out, int64_t n)` with the kernel's template
/// parameter list (`<typename scalar_t, int BLOCK>`; may be empty). Unnamed parameters are
/// called arg<i>; names clashing with the kernel entry's own (workspace, tiling) get a suffix.
std::vector<KernelParam> parseKernelParams(std::string_view signature, std::string_view template_params);

/// The tensor types of every Input/Output parameter, in parameter order: templated element types
/// range over float16, bfloat16 and float; fixed ones repeat their single type so every list has
/// the same length.
std::vector<TensorTypes> tensorTypesOf(const std::vector<KernelParam>& params);

/// The attribute type msopgen's JSON uses for a scalar element type: int, float or bool.
std::string attributeTypeOf(std::string_view element);

/// The tiling-field C++ type that carries a scalar of `element` (int64_t, int32_t, float, …).
std::string tilingTypeOf(std::string_view element);

}  // namespace custom_ops
