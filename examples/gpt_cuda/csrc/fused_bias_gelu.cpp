// Python bindings for the fused bias + GELU CUDA kernels (module fused_bias_gelu_cuda).

#include <torch/extension.h>

#include <vector>

at::Tensor bias_gelu_forward_cuda(const at::Tensor& x, const at::Tensor& bias);
std::vector<at::Tensor> bias_gelu_backward_cuda(const at::Tensor& grad_out, const at::Tensor& x,
                                                const at::Tensor& bias);
at::Tensor linear_bias_gelu_cuda(const at::Tensor& input, const at::Tensor& weight,
                                 const at::Tensor& bias);

#define CHECK_CUDA(x) TORCH_CHECK((x).is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK((x).is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) \
  CHECK_CUDA(x);       \
  CHECK_CONTIGUOUS(x)

namespace {

void check_bias(const at::Tensor& x, const at::Tensor& bias) {
  TORCH_CHECK(bias.dim() == 1, "bias must be 1-D");
  TORCH_CHECK(x.size(-1) == bias.size(0), "last dim of x must match bias");
  TORCH_CHECK(x.scalar_type() == bias.scalar_type(), "x and bias must share a dtype");
}

at::Tensor forward(const at::Tensor& x, const at::Tensor& bias) {
  CHECK_INPUT(x);
  CHECK_INPUT(bias);
  check_bias(x, bias);
  return bias_gelu_forward_cuda(x, bias);
}

std::vector<at::Tensor> backward(const at::Tensor& grad_out, const at::Tensor& x,
                                 const at::Tensor& bias) {
  CHECK_INPUT(grad_out);
  CHECK_INPUT(x);
  CHECK_INPUT(bias);
  check_bias(x, bias);
  return bias_gelu_backward_cuda(grad_out, x, bias);
}

at::Tensor linear_bias_gelu(const at::Tensor& input, const at::Tensor& weight,
                            const at::Tensor& bias) {
  CHECK_INPUT(input);
  CHECK_INPUT(weight);
  CHECK_INPUT(bias);
  TORCH_CHECK(input.dim() == 2 && weight.dim() == 2, "input and weight must be 2-D");
  TORCH_CHECK(input.size(1) == weight.size(1), "input and weight disagree on K");
  return linear_bias_gelu_cuda(input, weight, bias);
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.doc() = "Fused bias + GELU (tanh) CUDA kernels";
  m.def("forward", &forward, "gelu(x + bias) (CUDA)", py::arg("x"), py::arg("bias"));
  m.def("backward", &backward, "gradients of gelu(x + bias) w.r.t. x and bias (CUDA)",
        py::arg("grad_out"), py::arg("x"), py::arg("bias"));
  m.def("linear_bias_gelu", &linear_bias_gelu, "gelu(input @ weight^T + bias) via cuBLAS (CUDA)",
        py::arg("input"), py::arg("weight"), py::arg("bias"));
}
