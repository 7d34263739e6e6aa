"""Fused kernels for PyTorch."""
from .ops import scale
