"""A tiny GPT-style language model written for NVIDIA GPUs.

The package is deliberately small: a decoder-only transformer with rotary
position embeddings, several attention backends (flash-attn, xformers, torch
SDPA and a plain PyTorch fallback), an optional Triton RMSNorm kernel and an
optional compiled CUDA extension for a fused bias+GELU.
"""

from gpt.config import GPTConfig
from gpt.model import GPT

__all__ = ["GPT", "GPTConfig", "__version__"]
__version__ = "0.1.0"
