"""Rotary position embeddings (RoPE).

The rotation table is computed in float64 and stored as complex128, and the
rotation itself is applied in double precision before casting back. This keeps
long-context positions exact at the cost of double-precision math on the GPU.
"""

import torch


def precompute_freqs_cis(head_dim: int, max_seq_len: int, theta: float = 10000.0) -> torch.Tensor:
    """Return a (max_seq_len, head_dim // 2) complex128 table of e^{i * m * theta_j}."""
    if head_dim % 2 != 0:
        raise ValueError("head_dim must be even")
    exponents = torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim
    inv_freq = 1.0 / (theta ** exponents)
    positions = torch.arange(max_seq_len, dtype=torch.float64)
    angles = torch.outer(positions, inv_freq)
    return torch.polar(torch.ones_like(angles), angles)


def apply_rotary_emb(q: torch.Tensor, k: torch.Tensor, freqs_cis: torch.Tensor):
    """Rotate q and k of shape (batch, seq, heads, head_dim) by position.

    ``freqs_cis`` has shape (seq, head_dim // 2) and must be on the same device.
    """
    seq_len = q.shape[1]
    freqs = freqs_cis[:seq_len].view(1, seq_len, 1, -1)
    q_c = torch.view_as_complex(q.double().reshape(*q.shape[:-1], -1, 2))
    k_c = torch.view_as_complex(k.double().reshape(*k.shape[:-1], -1, 2))
    q_out = torch.view_as_real(q_c * freqs).flatten(-2)
    k_out = torch.view_as_real(k_c * freqs).flatten(-2)
    return q_out.type_as(q), k_out.type_as(k)


def rope_cos_sin(head_dim: int, max_seq_len: int, theta: float = 10000.0):
    """Real-valued cos/sin tables (seq, head_dim // 2), equivalent to the complex form."""
    freqs = precompute_freqs_cis(head_dim, max_seq_len, theta)
    return freqs.real, freqs.imag


def apply_rotary_real(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Reference rotation on interleaved pairs using only real arithmetic."""
    seq_len = x.shape[1]
    cos = cos[:seq_len].view(1, seq_len, 1, -1)
    sin = sin[:seq_len].view(1, seq_len, 1, -1)
    x = x.double()
    x_even, x_odd = x[..., 0::2], x[..., 1::2]
    out_even = x_even * cos - x_odd * sin
    out_odd = x_even * sin + x_odd * cos
    return torch.stack((out_even, out_odd), dim=-1).flatten(-2)
