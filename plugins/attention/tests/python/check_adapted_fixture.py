"""Runs the adapted modules of the attention fixture npu_ops_rewrites on the CPU.

Usage: check_adapted_fixture.py TREE, where TREE is the fixture's input/ with the attention
plugin's fixes applied and the generated npu_ops.py at its root. Each rewritten call site must
still take its arguments as written and compute the attention written out below (float64
reference). Exits non-zero on any mismatch.
"""

import math
import sys
import unittest

import torch


def reference(q, k, v, scale=None, causal=None):
    """softmax(q k^T * scale) v for (batch, seqlen, heads, head_dim) tensors, in float64.

    causal: None, "top_left" (query i sees keys 0..i) or "bottom_right" (keys 0..i + Sk - Sq).
    """
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = torch.einsum("bqhd,bkhd->bhqk", q.double(), k.double()) * scale
    if causal is not None:
        seqlen_q, seqlen_k = q.shape[1], k.shape[1]
        shift = seqlen_k - seqlen_q if causal == "bottom_right" else 0
        hidden = torch.ones(seqlen_q, seqlen_k, dtype=torch.bool).triu(1 + shift)
        scores = scores.masked_fill(hidden, float("-inf"))
    return torch.einsum("bhqk,bkhd->bqhd", scores.softmax(dim=-1), v.double())


def rotate_interleaved(x, cos, sin):
    """x (batch, seqlen, heads, head_dim) rotated on pairs (2i, 2i + 1), in float64."""
    seqlen = x.shape[1]
    c = cos[:seqlen].double().view(1, seqlen, 1, -1)
    s = sin[:seqlen].double().view(1, seqlen, 1, -1)
    even, odd = x.double()[..., 0::2], x.double()[..., 1::2]
    return torch.stack((even * c - odd * s, even * s + odd * c), dim=-1).flatten(-2)


class AdaptedFixture(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def assertClose(self, actual, expected):
        self.assertEqual(tuple(actual.shape), tuple(expected.shape))
        torch.testing.assert_close(actual.double(), expected, rtol=1e-5, atol=1e-5)

    def test_flash_names_come_from_npu_ops(self):
        import npu_ops
        from attn import flash

        self.assertTrue(flash.HAS_FLASH)
        self.assertIs(flash.flash_attn_func, npu_ops.flash_attn_func)
        self.assertIs(flash.varlen_attn, npu_ops.flash_attn_varlen_func)

    def test_flash_alias_with_positional_arguments(self):
        from attn import flash

        q, k, v = (torch.randn(2, 6, 3, 8) for _ in range(3))
        self.assertClose(flash.Attention(causal=True)(q, k, v), reference(q, k, v, causal="bottom_right"))
        self.assertClose(flash.Attention(causal=False)(q, k, v), reference(q, k, v))

    def test_flash_qkv_packed(self):
        from attn import flash

        qkv = torch.randn(2, 5, 3, 2, 8)
        q, k, v = qkv.unbind(dim=2)
        self.assertClose(flash.packed(qkv, 0.3), reference(q, k, v, scale=0.3, causal="bottom_right"))

    def test_flash_varlen(self):
        from attn import flash

        cu_seqlens = torch.tensor([0, 3, 7], dtype=torch.int32)
        q, k, v = (torch.randn(7, 2, 8) for _ in range(3))
        out = flash.varlen(q, k, v, cu_seqlens, 4)
        for start, end in ((0, 3), (3, 7)):
            segment = [t[start:end].unsqueeze(0) for t in (q, k, v)]
            self.assertClose(out[start:end], reference(*segment, causal="bottom_right")[0])

    def test_xformers_through_the_package_name(self):
        from attn import xformers_module

        q = torch.randn(2, 5, 2, 8)
        k, v = torch.randn(2, 7, 2, 8), torch.randn(2, 7, 2, 8)
        self.assertClose(xformers_module.causal_attention(q, k, v), reference(q, k, v, causal="top_left"))

    def test_xformers_through_aliases(self):
        from attn import xformers_alias

        q, k, v = (torch.randn(1, 6, 4, 16) for _ in range(3))
        self.assertClose(xformers_alias.attention(q, k, v, scale=0.5),
                         reference(q, k, v, scale=0.5, causal="top_left"))
        self.assertClose(xformers_alias.full_attention(q, k, v), reference(q, k, v))

    def test_rotary(self):
        from attn import rotary

        x = torch.randn(2, 5, 3, 8)
        angles = torch.outer(torch.arange(9.0), torch.rand(4))
        self.assertClose(rotary.rotate(x, angles.cos(), angles.sin()),
                         rotate_interleaved(x, angles.cos(), angles.sin()))
        self.assertClose(rotary.rotate_locally_imported(x, angles.cos(), angles.sin()),
                         rotate_interleaved(x, angles.cos(), angles.sin()))


if __name__ == "__main__":
    sys.path.insert(0, sys.argv.pop(1))
    unittest.main()
