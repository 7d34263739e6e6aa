"""npu_ops' pure-PyTorch paths (no torch_npu) against the reference implementations."""

import math
import unittest

import torch

import reference
import support

_rendered = None
ops = None


def setUpModule():
    global _rendered, ops
    _rendered = support.RenderedModule()
    ops = support.load_module(_rendered.npu_ops, "npu_ops_cpu")


def tearDownModule():
    _rendered.cleanup()


def randn(*shape, dtype=torch.float64):
    return torch.randn(*shape, dtype=dtype)


class Case(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(1234)

    def assertClose(self, actual, expected, atol=1e-10, rtol=1e-7):
        self.assertEqual(tuple(actual.shape), tuple(expected.shape))
        self.assertTrue(torch.allclose(actual.double(), expected.double(), atol=atol, rtol=rtol),
                        "max abs difference %g" % (actual.double() - expected.double()).abs().max())


class FlashAttnFunc(Case):
    def qkv(self, seqlen_q=5, seqlen_k=5, heads=4, kv_heads=4, dim=8, batch=2, dtype=torch.float64):
        return (randn(batch, seqlen_q, heads, dim, dtype=dtype),
                randn(batch, seqlen_k, kv_heads, dim, dtype=dtype),
                randn(batch, seqlen_k, kv_heads, dim, dtype=dtype))

    def test_not_causal(self):
        q, k, v = self.qkv()
        out = ops.flash_attn_func(q, k, v)
        self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8)))

    def test_causal_square(self):
        q, k, v = self.qkv()
        out = ops.flash_attn_func(q, k, v, causal=True)
        self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8),
                                                  reference.causal_bottom_right))

    def test_causal_fewer_queries_is_bottom_right(self):
        q, k, v = self.qkv(seqlen_q=3, seqlen_k=7)
        out = ops.flash_attn_func(q, k, v, causal=True)
        self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8),
                                                  reference.causal_bottom_right))
        top_left = reference.attention(q, k, v, 1 / math.sqrt(8), reference.causal_top_left)
        self.assertFalse(torch.allclose(out, top_left))

    def test_causal_more_queries_gives_zero_rows(self):
        q, k, v = self.qkv(seqlen_q=7, seqlen_k=3)
        out = ops.flash_attn_func(q, k, v, causal=True)
        self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8),
                                                  reference.causal_bottom_right))
        self.assertEqual(float(out[:, :4].abs().max()), 0.0)  # queries 0..3 see no key
        self.assertGreater(float(out[:, 4:].abs().min()), 0.0)

    def test_gqa_and_mqa(self):
        for kv_heads in (2, 1):
            q, k, v = self.qkv(heads=6, kv_heads=kv_heads, seqlen_q=4, seqlen_k=6)
            out = ops.flash_attn_func(q, k, v, causal=True)
            self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8),
                                                      reference.causal_bottom_right))

    def test_heads_must_divide(self):
        q, k, v = self.qkv(heads=6, kv_heads=4)
        with self.assertRaises(ValueError):
            ops.flash_attn_func(q, k, v)

    def test_explicit_scale_and_positional_arguments(self):
        q, k, v = self.qkv()
        out = ops.flash_attn_func(q, k, v, 0.0, 0.3, True)
        self.assertClose(out, reference.attention(q, k, v, 0.3, reference.causal_bottom_right))

    def test_half_precision_keeps_dtype(self):
        for dtype in (torch.float16, torch.bfloat16):
            q, k, v = self.qkv(dtype=dtype)
            out = ops.flash_attn_func(q, k, v, causal=True)
            self.assertEqual(out.dtype, dtype)
            self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8),
                                                      reference.causal_bottom_right),
                             atol=3e-2, rtol=3e-2)

    def test_float32(self):
        q, k, v = self.qkv(dtype=torch.float32)
        out = ops.flash_attn_func(q, k, v, causal=True)
        self.assertEqual(out.dtype, torch.float32)
        self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8),
                                                  reference.causal_bottom_right), atol=1e-5)

    def test_dropout(self):
        q, k, v = self.qkv()
        plain = ops.flash_attn_func(q, k, v)
        torch.manual_seed(7)
        first = ops.flash_attn_func(q, k, v, dropout_p=0.5)
        torch.manual_seed(7)
        second = ops.flash_attn_func(q, k, v, dropout_p=0.5)
        self.assertTrue(torch.equal(first, second))
        self.assertFalse(torch.allclose(first, plain))

    def test_window_size(self):
        q, k, v = self.qkv(seqlen_q=6, seqlen_k=8)

        def window(i, j, sq, sk):
            return i + sk - sq - 2 <= j <= i + sk - sq + 1

        out = ops.flash_attn_func(q, k, v, window_size=(2, 1))
        self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8), window))

    def test_alibi(self):
        q, k, v = self.qkv(seqlen_q=4, seqlen_k=6)
        slopes = torch.tensor([0.5, 0.25, 0.125, 0.0625], dtype=torch.float64)
        i = torch.arange(4).view(4, 1)
        j = torch.arange(6).view(1, 6)
        bias = -slopes.view(1, 4, 1, 1) * (i + 2 - j).abs().double()
        out = ops.flash_attn_func(q, k, v, causal=True, alibi_slopes=slopes)
        self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8),
                                                  reference.causal_bottom_right, bias))

    def test_softcap(self):
        q, k, v = self.qkv()
        out = ops.flash_attn_func(q * 4, k, v, softcap=2.0)
        scale = 1 / math.sqrt(8)
        scores = torch.einsum("bihd,bjhd->bhij", q * 4, k) * scale
        bias = 2.0 * torch.tanh(scores / 2.0) - scores
        self.assertClose(out, reference.attention(q * 4, k, v, scale, bias=bias))

    def test_return_attn_probs(self):
        q, k, v = self.qkv()
        out, lse, probs = ops.flash_attn_func(q, k, v, causal=True, return_attn_probs=True)
        scores = torch.einsum("bihd,bjhd->bhij", q, k) / math.sqrt(8)
        scores = scores.masked_fill(torch.ones(5, 5, dtype=torch.bool).triu(1), float("-inf"))
        self.assertClose(lse, torch.logsumexp(scores, dim=-1))
        self.assertClose(probs, torch.softmax(scores, dim=-1))
        self.assertClose(out, ops.flash_attn_func(q, k, v, causal=True))

    def test_backward(self):
        q, k, v = (t.requires_grad_() for t in self.qkv())
        ops.flash_attn_func(q, k, v, causal=True).sum().backward()
        self.assertTrue(all(t.grad is not None and torch.isfinite(t.grad).all()
                            for t in (q, k, v)))

    def test_packed_variants(self):
        q, k, v = self.qkv()
        expected = ops.flash_attn_func(q, k, v, causal=True)
        qkv = torch.stack([q, k, v], dim=2)
        self.assertClose(ops.flash_attn_qkvpacked_func(qkv, causal=True), expected)
        kv = torch.stack([k, v], dim=2)
        self.assertClose(ops.flash_attn_kvpacked_func(q, kv, causal=True), expected)


class FlashAttnVarlen(Case):
    cu_q = [0, 3, 7, 12]
    cu_k = [0, 4, 6, 12]

    def packed(self, heads=4, kv_heads=4, dim=8, total_q=12, total_k=12):
        return (randn(total_q, heads, dim), randn(total_k, kv_heads, dim),
                randn(total_k, kv_heads, dim))

    def cu(self, values):
        return torch.tensor(values, dtype=torch.int32)

    def test_causal_and_not(self):
        q, k, v = self.packed()
        for causal, allowed in ((False, None), (True, reference.causal_bottom_right)):
            out = ops.flash_attn_varlen_func(q, k, v, self.cu(self.cu_q), self.cu(self.cu_k),
                                             5, 6, causal=causal)
            self.assertClose(out, reference.varlen_attention(
                q, k, v, self.cu_q, self.cu_k, 1 / math.sqrt(8), allowed))

    def test_gqa(self):
        q, k, v = self.packed(heads=6, kv_heads=3)
        out = ops.flash_attn_varlen_func(q, k, v, self.cu(self.cu_q), self.cu(self.cu_k), 5, 6,
                                         softmax_scale=0.2, causal=True)
        self.assertClose(out, reference.varlen_attention(
            q, k, v, self.cu_q, self.cu_k, 0.2, reference.causal_bottom_right))

    def test_segments_do_not_see_each_other(self):
        q, k, v = self.packed()
        out = ops.flash_attn_varlen_func(q, k, v, self.cu(self.cu_q), self.cu(self.cu_k), 5, 6)
        v2 = v.clone()
        v2[6:] += 100.0  # only the last segment's values change
        out2 = ops.flash_attn_varlen_func(q, k, v2, self.cu(self.cu_q), self.cu(self.cu_k), 5, 6)
        self.assertClose(out[:7], out2[:7])
        self.assertFalse(torch.allclose(out[7:], out2[7:]))

    def test_tokens_after_the_last_sequence_are_zero(self):
        q, k, v = self.packed(total_q=14, total_k=13)
        out = ops.flash_attn_varlen_func(q, k, v, self.cu(self.cu_q), self.cu(self.cu_k), 5, 6)
        self.assertEqual(tuple(out.shape), (14, 4, 8))
        self.assertEqual(float(out[12:].abs().max()), 0.0)
        self.assertClose(out[:12], reference.varlen_attention(
            q[:12], k[:12], v[:12], self.cu_q, self.cu_k, 1 / math.sqrt(8))[:12])

    def test_packed_variants(self):
        q, k, v = self.packed()
        cu = self.cu(self.cu_q)
        expected = ops.flash_attn_varlen_func(q, k, v, cu, cu, 5, 5, causal=True)
        qkv = torch.stack([q, k, v], dim=1)
        self.assertClose(ops.flash_attn_varlen_qkvpacked_func(qkv, cu, 5, causal=True), expected)
        kv = torch.stack([k, v], dim=1)
        self.assertClose(ops.flash_attn_varlen_kvpacked_func(q, kv, cu, cu, 5, 5, causal=True),
                         expected)

    def test_return_attn_probs_lse(self):
        q, k, v = self.packed()
        out, lse, probs = ops.flash_attn_varlen_func(
            q, k, v, self.cu(self.cu_q), self.cu(self.cu_k), 5, 6, return_attn_probs=True)
        self.assertEqual(tuple(lse.shape), (4, 12))
        self.assertEqual(tuple(probs.shape), (3, 4, 5, 6))
        scores = torch.einsum("ihd,jhd->hij", q[:3], k[:4]) / math.sqrt(8)
        self.assertClose(lse[:, :3], torch.logsumexp(scores, dim=-1))

    def test_invalid_cu_seqlens(self):
        q, k, v = self.packed()
        for bad in ([3, 7, 12], [0, 7, 3, 12]):
            with self.assertRaises(ValueError):
                ops.flash_attn_varlen_func(q, k, v, self.cu(bad), self.cu(bad), 5, 5)
        with self.assertRaises(NotImplementedError):
            ops.flash_attn_varlen_func(q, k, v, self.cu(self.cu_q), self.cu(self.cu_k), 5, 6,
                                       block_table=torch.zeros(1, 1, dtype=torch.int32))


class MemoryEfficientAttention(Case):
    def qkv(self, seqlen_q=4, seqlen_k=6, heads=3, dim=8, batch=2):
        return (randn(batch, seqlen_q, heads, dim), randn(batch, seqlen_k, heads, dim),
                randn(batch, seqlen_k, heads, dim))

    def test_no_bias(self):
        q, k, v = self.qkv()
        self.assertClose(ops.memory_efficient_attention(q, k, v),
                         reference.attention(q, k, v, 1 / math.sqrt(8)))

    def test_lower_triangular_is_top_left(self):
        q, k, v = self.qkv()
        out = ops.memory_efficient_attention(q, k, v, attn_bias=ops.LowerTriangularMask(),
                                             scale=0.3)
        self.assertClose(out, reference.attention(q, k, v, 0.3, reference.causal_top_left))

    def test_lower_triangular_from_bottom_right(self):
        q, k, v = self.qkv()
        out = ops.memory_efficient_attention(q, k, v, ops.LowerTriangularFromBottomRightMask())
        self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8),
                                                  reference.causal_bottom_right))

    def test_materialized_mask_matches_the_class(self):
        q, k, v = self.qkv()
        for mask in (ops.LowerTriangularMask(), ops.LowerTriangularFromBottomRightMask()):
            bias = mask.materialize((2, 3, 4, 6), dtype=torch.float64)
            self.assertClose(ops.memory_efficient_attention(q, k, v, bias),
                             ops.memory_efficient_attention(q, k, v, mask))

    def test_tensor_bias(self):
        q, k, v = self.qkv()
        for shape in ((2, 3, 4, 6), (1, 3, 4, 6), (2, 1, 4, 6), (4, 6)):
            bias = randn(*shape)
            bias[..., 0, 1] = float("-inf")
            out = ops.memory_efficient_attention(q, k, v, attn_bias=bias)
            self.assertClose(out, reference.attention(q, k, v, 1 / math.sqrt(8), bias=bias))

    def test_three_dimensional_inputs(self):
        q, k, v = (t[:, :, 0] for t in self.qkv())
        bias = randn(2, 4, 6)
        out = ops.memory_efficient_attention(q, k, v, bias)
        self.assertEqual(tuple(out.shape), (2, 4, 8))
        expected = reference.attention(q.unsqueeze(2), k.unsqueeze(2), v.unsqueeze(2),
                                       1 / math.sqrt(8), bias=bias.unsqueeze(1))
        self.assertClose(out, expected[:, :, 0])

    def test_grouped_five_dimensional_inputs(self):
        q = randn(2, 4, 2, 3, 8)  # (B, M, G, H, K)
        k = randn(2, 6, 2, 1, 8).expand(2, 6, 2, 3, 8)
        v = randn(2, 6, 2, 1, 8).expand(2, 6, 2, 3, 8)
        out = ops.memory_efficient_attention(q, k, v, ops.LowerTriangularMask())
        self.assertEqual(tuple(out.shape), (2, 4, 2, 3, 8))
        expected = reference.attention(q.reshape(2, 4, 6, 8), k[:, :, :, 0], v[:, :, :, 0],
                                       1 / math.sqrt(8), reference.causal_top_left)
        self.assertClose(out.reshape(2, 4, 6, 8), expected)

    def test_output_dtype(self):
        q, k, v = self.qkv()
        out = ops.memory_efficient_attention(q, k, v, output_dtype=torch.float32)
        self.assertEqual(out.dtype, torch.float32)

    def test_unsupported_biases(self):
        q, k, v = self.qkv()
        with self.assertRaises(TypeError):
            ops.memory_efficient_attention(q, k, v, torch.ones(4, 6, dtype=torch.bool))

        class BlockDiagonalMask:
            pass

        with self.assertRaisesRegex(NotImplementedError, "BlockDiagonalMask"):
            ops.memory_efficient_attention(q, k, v, BlockDiagonalMask())


class RmsNorm(Case):
    def test_function(self):
        x, w = randn(2, 3, 16), randn(16)
        self.assertClose(ops.rms_norm(x, w, 1e-5), reference.rms_norm(x, w, 1e-5))
        self.assertClose(ops.rms_norm(x, None), reference.rms_norm(x, None, 1e-6))

    def test_half_input(self):
        x, w = randn(4, 16, dtype=torch.float16), randn(16, dtype=torch.float16)
        out = ops.rms_norm(x, w)
        self.assertEqual(out.dtype, torch.float16)
        self.assertClose(out, reference.rms_norm(x, w, 1e-6), atol=1e-2, rtol=1e-2)

    def test_module(self):
        norm = ops.RMSNorm(16, eps=1e-5)
        self.assertEqual(list(dict(norm.named_parameters())), ["weight"])
        self.assertTrue(torch.equal(norm.weight, torch.ones(16)))
        with torch.no_grad():
            norm.weight.copy_(torch.randn(16))
        x = torch.randn(2, 5, 16)
        self.assertClose(norm(x), reference.rms_norm(x, norm.weight, 1e-5), atol=1e-5)

    def test_module_variants(self):
        plain = ops.RMSNorm(16, elementwise_affine=False)
        self.assertIsNone(plain.weight)
        x = randn(3, 16)
        self.assertClose(plain(x), reference.rms_norm(x, None, 1e-6))
        wide = ops.RMSNorm((4, 8))
        y = randn(3, 4, 8)
        flat = reference.rms_norm(y.reshape(3, 32), None, 1e-6).reshape(3, 4, 8)
        self.assertClose(wide(y), flat, atol=1e-6)


class Rotary(Case):
    def test_rotate_half_and_interleaved(self):
        x = randn(2, 5, 3, 8)
        cos, sin = reference.rotary_tables(10, 8)
        for interleaved in (False, True):
            out = ops.apply_rotary_emb(x, cos, sin, interleaved=interleaved)
            self.assertClose(out, reference.rotary(x, cos, sin, interleaved, range(5)))
        self.assertFalse(torch.allclose(ops.apply_rotary_emb(x, cos, sin, False),
                                        ops.apply_rotary_emb(x, cos, sin, True)))

    def test_partial_rotary_dim(self):
        x = randn(2, 5, 3, 12)
        cos, sin = reference.rotary_tables(5, 8)
        for interleaved in (False, True):
            out = ops.apply_rotary_emb(x, cos, sin, interleaved)
            self.assertClose(out, reference.rotary(x, cos, sin, interleaved, range(5)))
            self.assertTrue(torch.equal(out[..., 8:], x[..., 8:]))

    def test_offsets(self):
        x = randn(2, 4, 3, 8)
        cos, sin = reference.rotary_tables(10, 8)
        out = ops.apply_rotary_emb(x, cos, sin, seqlen_offsets=3)
        self.assertClose(out, reference.rotary(x, cos, sin, False, range(3, 7)))
        offsets = torch.tensor([1, 5])
        out = ops.apply_rotary_emb(x, cos, sin, seqlen_offsets=offsets)
        for b, offset in enumerate((1, 5)):
            self.assertClose(out[b], reference.rotary(x[b:b + 1], cos, sin, False,
                                                      range(offset, offset + 4))[0])

    def test_varlen(self):
        x = randn(9, 3, 8)
        cos, sin = reference.rotary_tables(10, 8)
        cu = torch.tensor([0, 4, 9], dtype=torch.int32)
        out = ops.apply_rotary_emb(x, cos, sin, interleaved=True, cu_seqlens=cu, max_seqlen=5)
        self.assertClose(out, reference.rotary(x, cos, sin, True, [0, 1, 2, 3, 0, 1, 2, 3, 4]))
        out = ops.apply_rotary_emb(x, cos, sin, seqlen_offsets=2, cu_seqlens=cu, max_seqlen=5)
        self.assertClose(out, reference.rotary(x, cos, sin, False, [2, 3, 4, 5, 2, 3, 4, 5, 6]))
        out = ops.apply_rotary_emb(x, cos, sin, seqlen_offsets=torch.tensor([1, 3]),
                                   cu_seqlens=cu, max_seqlen=5)
        self.assertClose(out, reference.rotary(x, cos, sin, False, [1, 2, 3, 4, 3, 4, 5, 6, 7]))

    def test_inplace(self):
        x = randn(1, 3, 2, 8)
        expected = reference.rotary(x, *reference.rotary_tables(3, 8), False, range(3))
        out = ops.apply_rotary_emb(x, *reference.rotary_tables(3, 8), inplace=True)
        self.assertIs(out, x)
        self.assertClose(x, expected)

    def test_rotary_dim_too_large(self):
        with self.assertRaises(ValueError):
            ops.apply_rotary_emb(randn(1, 3, 2, 4), *reference.rotary_tables(3, 8))


class SwiGlu(Case):
    def test_last_and_other_dims(self):
        x = randn(3, 4, 10)
        self.assertClose(ops.swiglu(x), reference.swiglu(x, -1))
        self.assertClose(ops.swiglu(x, dim=1), reference.swiglu(x, 1))

    def test_half_input(self):
        x = randn(3, 10, dtype=torch.bfloat16)
        out = ops.swiglu(x)
        self.assertEqual(out.dtype, torch.bfloat16)
        self.assertClose(out, reference.swiglu(x, -1), atol=3e-2, rtol=3e-2)

    def test_odd_size(self):
        with self.assertRaises(ValueError):
            ops.swiglu(randn(3, 5))


class PathChoice(Case):
    def test_cpu_tensors_never_touch_torch_npu(self):
        import sys
        self.assertNotIn("torch_npu", sys.modules)
        q = randn(1, 2, 2, 8)
        ops.flash_attn_func(q, q, q, causal=True)
        ops.memory_efficient_attention(q, q, q)
        ops.rms_norm(q, randn(8))
        ops.swiglu(q)
        self.assertFalse(ops.on_npu(q))
        self.assertNotIn("torch_npu", sys.modules)


if __name__ == "__main__":
    unittest.main()
