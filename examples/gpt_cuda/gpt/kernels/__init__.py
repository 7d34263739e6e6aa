"""Hand-written GPU kernels with PyTorch fallbacks."""

from gpt.kernels.triton_rmsnorm import HAS_TRITON, rms_norm, rms_norm_reference

__all__ = ["HAS_TRITON", "rms_norm", "rms_norm_reference"]
