"""Fused bias + GELU (tanh approximation) backed by the csrc/ CUDA extension.

Build the extension with ``python setup.py build_ext --inplace`` (needs nvcc).
When ``fused_bias_gelu_cuda`` cannot be imported, or the input is not on a
GPU, an equivalent pure PyTorch implementation is used.
"""

import math

import torch
import torch.nn as nn

try:
    import fused_bias_gelu_cuda
    HAS_FUSED_BIAS_GELU = True
except ImportError:
    fused_bias_gelu_cuda = None
    HAS_FUSED_BIAS_GELU = False

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_COEF = 0.044715


def bias_gelu_reference(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    y = x + bias
    return 0.5 * y * (1.0 + torch.tanh(_SQRT_2_OVER_PI * (y + _COEF * y * y * y)))


def bias_gelu_backward_reference(grad_out: torch.Tensor, x: torch.Tensor, bias: torch.Tensor):
    """Return (grad_x, grad_bias) for bias_gelu_reference."""
    y = x + bias
    t = torch.tanh(_SQRT_2_OVER_PI * (y + _COEF * y * y * y))
    dt = (1.0 - t * t) * _SQRT_2_OVER_PI * (1.0 + 3.0 * _COEF * y * y)
    grad_x = grad_out * (0.5 * (1.0 + t) + 0.5 * y * dt)
    grad_bias = grad_x.reshape(-1, grad_x.shape[-1]).sum(dim=0)
    return grad_x, grad_bias


def _use_extension(x: torch.Tensor) -> bool:
    return HAS_FUSED_BIAS_GELU and x.is_cuda and x.dtype == torch.float32


class FusedBiasGeLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, bias):
        x = x.contiguous()
        ctx.save_for_backward(x, bias)
        if _use_extension(x):
            return fused_bias_gelu_cuda.forward(x, bias)
        return bias_gelu_reference(x, bias)

    @staticmethod
    def backward(ctx, grad_out):
        x, bias = ctx.saved_tensors
        if _use_extension(x):
            grad_x, grad_bias = fused_bias_gelu_cuda.backward(grad_out.contiguous(), x, bias)
        else:
            grad_x, grad_bias = bias_gelu_backward_reference(grad_out, x, bias)
        return grad_x, grad_bias


def fused_bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return FusedBiasGeLUFunction.apply(x, bias)


class BiasGeLU(nn.Module):
    """Holds the bias of a preceding bias-free Linear and applies GELU(x + bias)."""

    def __init__(self, width: int):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(width))

    def forward(self, x):
        return fused_bias_gelu(x, self.bias)
