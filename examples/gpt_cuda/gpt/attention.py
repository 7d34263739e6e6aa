"""Causal self-attention with pluggable kernels.

All backends take and return tensors in the (batch, seq, heads, head_dim)
layout used by flash-attn. Backend preference for ``"auto"`` is
flash-attn > xformers > torch SDPA > plain PyTorch ("math").
"""

import logging
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from gpt.rope import apply_rotary_emb

logger = logging.getLogger(__name__)

try:
    from flash_attn import flash_attn_func, flash_attn_varlen_func
    HAS_FLASH_ATTN = True
except ImportError:
    flash_attn_func = None
    flash_attn_varlen_func = None
    HAS_FLASH_ATTN = False

try:
    import xformers.ops
    HAS_XFORMERS = True
except ImportError:
    xformers = None
    HAS_XFORMERS = False

# torch.nn.functional.scaled_dot_product_attention arrived in torch 2.0.
HAS_SDPA = hasattr(F, "scaled_dot_product_attention")

_HALF_DTYPES = (torch.float16, torch.bfloat16)
_warned = set()


def available_backends():
    backends = []
    if HAS_FLASH_ATTN:
        backends.append("flash")
    if HAS_XFORMERS:
        backends.append("xformers")
    if HAS_SDPA:
        backends.append("sdpa")
    backends.append("math")
    return backends


def _usable(backend: str, q: torch.Tensor) -> bool:
    if backend == "flash":
        # flash-attn only has CUDA kernels for fp16/bf16 inputs.
        return HAS_FLASH_ATTN and q.is_cuda and q.dtype in _HALF_DTYPES
    if backend == "xformers":
        return HAS_XFORMERS and q.is_cuda
    if backend == "sdpa":
        return HAS_SDPA
    return backend == "math"


def resolve_backend(requested: str, q: torch.Tensor) -> str:
    """Pick the backend that will actually run for this input."""
    if requested != "auto":
        if _usable(requested, q):
            return requested
        if requested not in _warned:
            _warned.add(requested)
            logger.warning("attention backend %r is not usable here (needs a CUDA device "
                           "and the package installed); falling back", requested)
    for candidate in ("flash", "xformers", "sdpa"):
        if _usable(candidate, q):
            return candidate
    return "math"


def _segment_ids(cu_seqlens: torch.Tensor, seq_len: int) -> torch.Tensor:
    positions = torch.arange(seq_len, device=cu_seqlens.device)
    return torch.bucketize(positions, cu_seqlens[1:].to(positions.dtype), right=True)


def math_attention(q, k, v, *, causal=True, softmax_scale=None, dropout_p=0.0,
                   cu_seqlens=None):
    """softmax(q @ k^T * scale) @ v in plain PyTorch. Runs everywhere.

    With ``cu_seqlens`` (packed sequences, batch of 1) tokens only attend
    within their own segment, matching flash_attn_varlen_func.
    """
    seq_len, head_dim = q.shape[1], q.shape[-1]
    scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(head_dim)
    q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (B, H, T, D)
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    allowed = torch.ones(seq_len, seq_len, dtype=torch.bool, device=q.device)
    if causal:
        allowed = torch.tril(allowed)
    if cu_seqlens is not None:
        seg = _segment_ids(cu_seqlens, seq_len)
        allowed = allowed & (seg.unsqueeze(0) == seg.unsqueeze(1))
    scores = scores.masked_fill(~allowed, float("-inf"))
    probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
    if dropout_p > 0.0:
        probs = F.dropout(probs, p=dropout_p)
    return torch.matmul(probs, v).transpose(1, 2)


def attention(q, k, v, *, backend="auto", softmax_scale=None, dropout_p=0.0,
              cu_seqlens=None, max_seqlen=None):
    """Causal attention on the selected backend. q, k, v: (B, T, H, D)."""
    batch, seq_len, n_head, head_dim = q.shape
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(head_dim)
    chosen = resolve_backend(backend, q)
    if cu_seqlens is not None and chosen in ("xformers", "sdpa"):
        chosen = "math"  # only flash-attn and the fallback handle packed sequences here

    if chosen == "flash":
        if cu_seqlens is not None:
            # Packed layout: (total_tokens, heads, head_dim).
            out = flash_attn_varlen_func(
                q.reshape(-1, n_head, head_dim), k.reshape(-1, n_head, head_dim),
                v.reshape(-1, n_head, head_dim),
                cu_seqlens, cu_seqlens, max_seqlen, max_seqlen,
                dropout_p=dropout_p, softmax_scale=softmax_scale, causal=True)
            return out.view(batch, seq_len, n_head, head_dim)
        return flash_attn_func(q, k, v, dropout_p=dropout_p, softmax_scale=softmax_scale,
                               causal=True)

    if chosen == "xformers":
        return xformers.ops.memory_efficient_attention(
            q, k, v, attn_bias=xformers.ops.LowerTriangularMask(), p=dropout_p,
            scale=softmax_scale)

    if chosen == "sdpa":
        out = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
            dropout_p=dropout_p, is_causal=True, scale=softmax_scale)
        return out.transpose(1, 2)

    return math_attention(q, k, v, causal=True, softmax_scale=softmax_scale,
                          dropout_p=dropout_p, cu_seqlens=cu_seqlens)


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_head = config.n_head
        self.head_dim = config.head_dim
        self.backend = config.attn_backend
        self.dropout = config.dropout
        self.qkv = nn.Linear(config.n_embd, 3 * config.n_embd, bias=False)
        self.proj = nn.Linear(config.n_embd, config.n_embd, bias=False)
        self.resid_drop = nn.Dropout(config.dropout)

    def forward(self, x, freqs_cis, cu_seqlens=None, max_seqlen=None):
        batch, seq_len, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=2)
        shape = (batch, seq_len, self.n_head, self.head_dim)
        q, k, v = q.view(shape), k.view(shape), v.view(shape)
        q, k = apply_rotary_emb(q, k, freqs_cis)
        y = attention(q, k, v, backend=self.backend,
                      softmax_scale=self.head_dim ** -0.5,
                      dropout_p=self.dropout if self.training else 0.0,
                      cu_seqlens=cu_seqlens, max_seqlen=max_seqlen)
        y = y.reshape(batch, seq_len, width)
        return self.resid_drop(self.proj(y))
