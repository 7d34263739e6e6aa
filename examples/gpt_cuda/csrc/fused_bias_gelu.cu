// Fused bias + GELU (tanh approximation) kernels.
//
// forward:  out = gelu(x + bias)
// backward: grad_x = grad_out * gelu'(x + bias), grad_bias = sum over rows of grad_x
// linear_bias_gelu: out = gelu(input @ weight^T + bias), GEMM through cuBLAS.

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kCoef = 0.044715f;
constexpr int kThreads = 256;
constexpr int kWarpSize = 32;

__device__ __forceinline__ float gelu_tanh(float y) {
  const float inner = kSqrt2OverPi * (y + kCoef * y * y * y);
  return 0.5f * y * (1.0f + tanhf(inner));
}

__device__ __forceinline__ float gelu_tanh_grad(float y) {
  const float t = tanhf(kSqrt2OverPi * (y + kCoef * y * y * y));
  const float dt = (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kCoef * y * y);
  return 0.5f * (1.0f + t) + 0.5f * y * dt;
}

template <typename scalar_t>
__global__ void bias_gelu_forward_kernel(const scalar_t* __restrict__ x,
                                         const scalar_t* __restrict__ bias,
                                         scalar_t* __restrict__ out,
                                         int64_t numel, int64_t cols) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < numel;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const float y = static_cast<float>(x[i]) + static_cast<float>(bias[i % cols]);
    out[i] = static_cast<scalar_t>(gelu_tanh(y));
  }
}

template <typename scalar_t>
__global__ void bias_gelu_backward_kernel(const scalar_t* __restrict__ grad_out,
                                          const scalar_t* __restrict__ x,
                                          const scalar_t* __restrict__ bias,
                                          scalar_t* __restrict__ grad_x,
                                          int64_t numel, int64_t cols) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < numel;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const float y = static_cast<float>(x[i]) + static_cast<float>(bias[i % cols]);
    grad_x[i] = static_cast<scalar_t>(static_cast<float>(grad_out[i]) * gelu_tanh_grad(y));
  }
}

// One warp per column: lanes stride over the rows, then a shuffle reduction.
template <typename scalar_t>
__global__ void column_sum_kernel(const scalar_t* __restrict__ grad,
                                  scalar_t* __restrict__ out,
                                  int64_t rows, int64_t cols) {
  const int64_t col = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (col >= cols) {
    return;  // uniform per warp: every lane of a warp has the same col
  }
  float acc = 0.0f;
  for (int64_t r = lane; r < rows; r += kWarpSize) {
    acc += static_cast<float>(grad[r * cols + col]);
  }
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    acc += __shfl_down_sync(0xffffffffu, acc, offset);
  }
  if (lane == 0) {
    out[col] = static_cast<scalar_t>(acc);
  }
}

int blocks_for(int64_t numel) {
  const int64_t wanted = (numel + kThreads - 1) / kThreads;
  const int64_t cap =
      static_cast<int64_t>(32) * at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  return static_cast<int>(std::max<int64_t>(1, std::min(wanted, cap)));
}

}  // namespace

at::Tensor bias_gelu_forward_cuda(const at::Tensor& x, const at::Tensor& bias) {
  const c10::cuda::CUDAGuard guard(x.device());
  auto out = at::empty_like(x);
  const int64_t numel = x.numel();
  const int64_t cols = bias.numel();
  if (numel == 0) {
    return out;
  }
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "bias_gelu_forward", [&] {
    bias_gelu_forward_kernel<scalar_t><<<blocks_for(numel), kThreads, 0, stream>>>(
        x.data_ptr<scalar_t>(), bias.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), numel, cols);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}

std::vector<at::Tensor> bias_gelu_backward_cuda(const at::Tensor& grad_out, const at::Tensor& x,
                                                const at::Tensor& bias) {
  const c10::cuda::CUDAGuard guard(x.device());
  auto grad_x = at::empty_like(x);
  auto grad_bias = at::zeros_like(bias);
  const int64_t numel = x.numel();
  const int64_t cols = bias.numel();
  if (numel == 0) {
    return {grad_x, grad_bias};
  }
  const int64_t rows = numel / cols;
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "bias_gelu_backward", [&] {
    dim3 block(kThreads);
    dim3 grid(blocks_for(numel));
    bias_gelu_backward_kernel<scalar_t><<<grid, block, 0, stream>>>(
        grad_out.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), bias.data_ptr<scalar_t>(),
        grad_x.data_ptr<scalar_t>(), numel, cols);
    const int64_t warps_per_block = kThreads / kWarpSize;
    dim3 sum_grid(static_cast<unsigned>((cols + warps_per_block - 1) / warps_per_block));
    column_sum_kernel<scalar_t><<<sum_grid, block, 0, stream>>>(
        grad_x.data_ptr<scalar_t>(), grad_bias.data_ptr<scalar_t>(), rows, cols);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return {grad_x, grad_bias};
}

// input: (M, K) float32, weight: (N, K) float32, bias: (N,). Returns (M, N).
at::Tensor linear_bias_gelu_cuda(const at::Tensor& input, const at::Tensor& weight,
                                 const at::Tensor& bias) {
  TORCH_CHECK(input.scalar_type() == at::kFloat, "linear_bias_gelu: float32 only");
  const c10::cuda::CUDAGuard guard(input.device());
  const int m = static_cast<int>(input.size(0));
  const int k = static_cast<int>(input.size(1));
  const int n = static_cast<int>(weight.size(0));
  auto gemm = at::empty({m, n}, input.options());
  auto out = at::empty_like(gemm);

  // Row-major C = A * W^T is column-major C^T = W * A^T: op(W) = T, op(A) = N.
  cublasHandle_t handle = at::cuda::getCurrentCUDABlasHandle();
  TORCH_CUDABLAS_CHECK(cublasSetStream(handle, at::cuda::getCurrentCUDAStream()));
  const float alpha = 1.0f;
  const float beta = 0.0f;
  TORCH_CUDABLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha,
                                   weight.data_ptr<float>(), k, input.data_ptr<float>(), k,
                                   &beta, gemm.data_ptr<float>(), n));

  const int64_t numel = out.numel();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  bias_gelu_forward_kernel<float><<<blocks_for(numel), kThreads, 0, stream>>>(
      gemm.data_ptr<float>(), bias.data_ptr<float>(), out.data_ptr<float>(), numel, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return out;
}
