#include <cuda_runtime.h>

__global__ void scale_kernel(float* x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

void scale_cuda(float* x, float factor, int n) {
  scale_kernel<<<(n + 255) / 256, 256>>>(x, factor, n);
}
