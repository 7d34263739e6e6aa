"""Straightforward reference implementations the wrappers are checked against: explicit loops
and textbook formulas in float64, written independently of the templates."""

import math

import torch


def attention(q, k, v, scale, allowed=None, bias=None):
    """softmax(q . k * scale + bias) . v, one (batch, head, query) row at a time.

    q (B, Sq, H, D), k/v (B, Sk, Hk, D) with H a multiple of Hk (query head h reads key/value
    head h // (H / Hk)); allowed(i, j, seqlen_q, seqlen_k) says whether query i may see key j;
    bias broadcasts to (B, H, Sq, Sk), -inf entries count as not allowed. Rows that see no key
    are 0. Returns float64 (B, Sq, H, Dv).
    """
    batch, seqlen_q, heads, _ = q.shape
    seqlen_k, kv_heads = k.shape[1], k.shape[2]
    group = heads // kv_heads
    if bias is not None:
        bias = torch.broadcast_to(bias.double(), (batch, heads, seqlen_q, seqlen_k))
    out = torch.zeros(batch, seqlen_q, heads, v.shape[-1], dtype=torch.float64)
    for b in range(batch):
        for h in range(heads):
            kh = h // group
            for i in range(seqlen_q):
                keys, scores = [], []
                for j in range(seqlen_k):
                    if allowed is not None and not allowed(i, j, seqlen_q, seqlen_k):
                        continue
                    score = float(q[b, i, h].double() @ k[b, j, kh].double()) * scale
                    if bias is not None:
                        if math.isinf(float(bias[b, h, i, j])):
                            continue
                        score += float(bias[b, h, i, j])
                    keys.append(j)
                    scores.append(score)
                if not keys:
                    continue
                weights = torch.softmax(torch.tensor(scores, dtype=torch.float64), dim=0)
                for weight, j in zip(weights, keys):
                    out[b, i, h] += weight * v[b, j, kh].double()
    return out


def causal_bottom_right(i, j, seqlen_q, seqlen_k):
    """flash-attn >= 2.1: the last query sees every key."""
    return j <= i + seqlen_k - seqlen_q


def causal_top_left(i, j, seqlen_q, seqlen_k):
    """SDPA is_causal / xformers LowerTriangularMask: query i sees keys 0..i."""
    return j <= i


def varlen_attention(q, k, v, cu_q, cu_k, scale, allowed=None):
    """Packed sequences: q (total_q, H, D), k/v (total_k, Hk, D), cu_* with the leading 0."""
    out = torch.zeros(q.shape[0], q.shape[1], v.shape[-1], dtype=torch.float64)
    for index in range(len(cu_q) - 1):
        q0, q1, k0, k1 = cu_q[index], cu_q[index + 1], cu_k[index], cu_k[index + 1]
        seg = attention(q[q0:q1].unsqueeze(0), k[k0:k1].unsqueeze(0), v[k0:k1].unsqueeze(0),
                        scale, allowed)
        out[q0:q1] = seg[0]
    return out


def rms_norm(x, weight, eps):
    x = x.double()
    out = x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps)
    return out if weight is None else out * weight.double()


def rotary(x, cos, sin, interleaved, positions):
    """Rotate feature pairs of x (..., S, H, D) by the angles of ``positions`` (one per S).

    Pairs: (2i, 2i+1) when interleaved, (i, i + rotary_dim/2) otherwise; features beyond
    rotary_dim = 2 * cos.shape[-1] are copied.
    """
    x = x.double()
    out = x.clone()
    half = cos.shape[-1]
    for s, position in enumerate(positions):
        for i in range(half):
            c, n = float(cos[position, i]), float(sin[position, i])
            a, b = (2 * i, 2 * i + 1) if interleaved else (i, i + half)
            xa, xb = x[..., s, :, a], x[..., s, :, b]
            out[..., s, :, a] = xa * c - xb * n
            out[..., s, :, b] = xa * n + xb * c
    return out


def rotary_tables(seqlen, rotary_dim, base=10000.0):
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim))
    angles = torch.outer(torch.arange(seqlen, dtype=torch.float64), inv_freq)
    return angles.cos(), angles.sin()


def swiglu(x, dim):
    a, b = x.double().chunk(2, dim=dim)
    return a * torch.sigmoid(a) * b
