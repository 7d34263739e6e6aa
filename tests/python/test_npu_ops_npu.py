"""npu_ops' NPU paths, driven through the recording FAKE torch_npu (tests/python/fake_torch_npu).

The wrappers are made to believe their tensors live on an NPU by replacing npu_ops.on_npu (the
documented dispatch function); the fake asserts every argument against torch_npu's documented
signature and semantics and computes the documented result, which is compared with the
reference implementations."""

import math
import unittest
import warnings
from unittest import mock

import torch

import reference
import support

_rendered = None
ops = None


def setUpModule():
    global _rendered, ops
    _rendered = support.RenderedModule()
    ops = support.load_module(_rendered.npu_ops, "npu_ops_npu")


def tearDownModule():
    _rendered.cleanup()


class NpuCase(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(4321)
        self.fake = self.enterContext(support.installed_fake())
        self.enterContext(mock.patch.object(ops, "on_npu", lambda tensor: True))

    def enterContext(self, manager):  # unittest.TestCase.enterContext is Python 3.11+
        value = manager.__enter__()
        self.addCleanup(manager.__exit__, None, None, None)
        return value

    def only_call(self, name):
        calls = self.fake.calls_to(name)
        self.assertEqual(len(calls), 1, self.fake.calls)
        self.assertEqual(len(self.fake.calls), 1, self.fake.calls)
        return calls[0].arguments

    def assertClose(self, actual, expected, atol=1e-5):
        self.assertEqual(tuple(actual.shape), tuple(expected.shape))
        self.assertTrue(torch.allclose(actual.double(), expected.double(), atol=atol),
                        "max abs difference %g" % (actual.double() - expected.double()).abs().max())

    def assertCausalMask(self, mask):
        self.assertEqual(mask.dtype, torch.bool)
        self.assertEqual(tuple(mask.shape), (2048, 2048))
        self.assertTrue(bool(mask[0, 1]) and not bool(mask[1, 0]) and not bool(mask[0, 0]))
        self.assertTrue(torch.equal(mask, torch.ones(2048, 2048, dtype=torch.bool).triu(1)))


def qkv(seqlen_q=5, seqlen_k=5, heads=4, kv_heads=4, dim=16, batch=2):
    return (torch.randn(batch, seqlen_q, heads, dim), torch.randn(batch, seqlen_k, kv_heads, dim),
            torch.randn(batch, seqlen_k, kv_heads, dim))


class FlashAttnOnNpu(NpuCase):
    def test_full_attention(self):
        q, k, v = qkv()
        out = ops.flash_attn_func(q, k, v)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["input_layout"], "BSND")
        self.assertIs(type(a["head_num"]), int)
        self.assertEqual(a["head_num"], 4)
        self.assertEqual(a["scale"], 1.0 / math.sqrt(16))  # passed although it is the default
        self.assertEqual(a["keep_prob"], 1.0)
        self.assertIsNone(a["atten_mask"])
        self.assertEqual(a["sparse_mode"], 0)
        self.assertEqual(a["query"].data_ptr(), q.data_ptr())  # already BSND: no transpose
        self.assertTrue(torch.is_tensor(out))  # element 0 of the 7 outputs
        self.assertClose(out, reference.attention(q, k, v, 0.25))

    def test_causal_is_bottom_right_sparse_mode_3(self):
        q, k, v = qkv(seqlen_q=3, seqlen_k=7)
        out = ops.flash_attn_func(q, k, v, causal=True)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["sparse_mode"], 3)
        self.assertCausalMask(a["atten_mask"])
        self.assertClose(out, reference.attention(q, k, v, 0.25, reference.causal_bottom_right))

    def test_scale_and_dropout(self):
        q, k, v = qkv()
        ops.flash_attn_func(q, k, v, dropout_p=0.1, softmax_scale=0.5)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["scale"], 0.5)
        self.assertAlmostEqual(a["keep_prob"], 0.9, places=12)

    def test_gqa_keeps_key_value_heads(self):
        q, k, v = qkv(heads=8, kv_heads=2)
        out = ops.flash_attn_func(q, k, v, causal=True)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["head_num"], 8)
        self.assertEqual(a["key"].shape[2], 2)
        self.assertEqual(a["value"].shape[2], 2)
        self.assertClose(out, reference.attention(q, k, v, 0.25, reference.causal_bottom_right))

    def test_half_precision_passes_through(self):
        q, k, v = (t.to(torch.bfloat16) for t in qkv())
        out = ops.flash_attn_func(q, k, v)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["query"].dtype, torch.bfloat16)
        self.assertEqual(out.dtype, torch.bfloat16)

    def test_packed_variants(self):
        q, k, v = qkv()
        out = ops.flash_attn_qkvpacked_func(torch.stack([q, k, v], dim=2), causal=True)
        self.assertEqual(self.only_call("npu_fusion_attention")["sparse_mode"], 3)
        self.assertClose(out, reference.attention(q, k, v, 0.25, reference.causal_bottom_right))
        self.fake.reset()
        out = ops.flash_attn_kvpacked_func(q, torch.stack([k, v], dim=2))
        self.assertEqual(self.only_call("npu_fusion_attention")["sparse_mode"], 0)
        self.assertClose(out, reference.attention(q, k, v, 0.25))

    def test_unsupported_arguments_raise(self):
        q, k, v = qkv()
        for name, value in (("window_size", (4, 0)), ("alibi_slopes", torch.ones(4)),
                            ("softcap", 30.0), ("return_attn_probs", True)):
            with self.assertRaisesRegex(NotImplementedError, name):
                ops.flash_attn_func(q, k, v, **{name: value})
        self.assertEqual(self.fake.calls, [])

    def test_head_dim_limit(self):
        q, k, v = qkv(dim=800, seqlen_q=1, seqlen_k=1, batch=1, heads=1, kv_heads=1)
        with self.assertRaisesRegex(NotImplementedError, "head_dim"):
            ops.flash_attn_func(q, k, v)


class FlashAttnVarlenOnNpu(NpuCase):
    cu_q = [0, 3, 7, 12]
    cu_k = [0, 4, 6, 12]

    def packed(self, heads=4, kv_heads=4, total_q=12, total_k=12):
        return (torch.randn(total_q, heads, 16), torch.randn(total_k, kv_heads, 16),
                torch.randn(total_k, kv_heads, 16))

    def test_tnd_with_cumulative_lengths_without_leading_zero(self):
        q, k, v = self.packed(heads=6, kv_heads=2)
        cu_q = torch.tensor(self.cu_q, dtype=torch.int32)
        cu_k = torch.tensor(self.cu_k, dtype=torch.int32)
        out = ops.flash_attn_varlen_func(q, k, v, cu_q, cu_k, 5, 6, causal=True)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["input_layout"], "TND")
        self.assertEqual(a["actual_seq_qlen"], [3, 7, 12])
        self.assertEqual(a["actual_seq_kvlen"], [4, 6, 12])
        self.assertTrue(all(type(x) is int for x in a["actual_seq_qlen"] + a["actual_seq_kvlen"]))
        self.assertEqual(a["head_num"], 6)
        self.assertEqual(a["sparse_mode"], 3)
        self.assertCausalMask(a["atten_mask"])
        self.assertClose(out, reference.varlen_attention(q, k, v, self.cu_q, self.cu_k, 0.25,
                                                         reference.causal_bottom_right))

    def test_not_causal(self):
        q, k, v = self.packed()
        out = ops.flash_attn_varlen_func(q, k, v, self.cu_q, self.cu_k, 5, 6, dropout_p=0.0)
        a = self.only_call("npu_fusion_attention")
        self.assertIsNone(a["atten_mask"])
        self.assertEqual(a["sparse_mode"], 0)
        self.assertClose(out, reference.varlen_attention(q, k, v, self.cu_q, self.cu_k, 0.25))

    def test_trailing_tokens(self):
        q, k, v = self.packed(total_q=14, total_k=13)
        out = ops.flash_attn_varlen_func(q, k, v, self.cu_q, self.cu_k, 5, 6)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["query"].shape[0], 12)
        self.assertEqual(a["key"].shape[0], 12)
        self.assertEqual(tuple(out.shape), (14, 4, 16))
        self.assertEqual(float(out[12:].abs().max()), 0.0)

    def test_packed_variants(self):
        q, k, v = self.packed()
        cu = torch.tensor(self.cu_q, dtype=torch.int32)
        out = ops.flash_attn_varlen_qkvpacked_func(torch.stack([q, k, v], dim=1), cu, 5,
                                                   causal=True)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["actual_seq_qlen"], [3, 7, 12])
        self.assertEqual(a["actual_seq_kvlen"], [3, 7, 12])
        self.assertClose(out, reference.varlen_attention(q, k, v, self.cu_q, self.cu_q, 0.25,
                                                         reference.causal_bottom_right))
        self.fake.reset()
        out = ops.flash_attn_varlen_kvpacked_func(q, torch.stack([k, v], dim=1), cu, cu, 5, 5)
        self.assertEqual(self.only_call("npu_fusion_attention")["input_layout"], "TND")

    def test_unsupported_arguments_raise(self):
        q, k, v = self.packed()
        with self.assertRaisesRegex(NotImplementedError, "window_size"):
            ops.flash_attn_varlen_func(q, k, v, self.cu_q, self.cu_k, 5, 6, window_size=(2, 2))
        with self.assertRaisesRegex(NotImplementedError, "return_attn_probs"):
            ops.flash_attn_varlen_func(q, k, v, self.cu_q, self.cu_k, 5, 6,
                                       return_attn_probs=True)
        self.assertEqual(self.fake.calls, [])


class XformersOnNpu(NpuCase):
    def test_no_bias(self):
        q, k, v = qkv(seqlen_q=4, seqlen_k=6)
        out = ops.memory_efficient_attention(q, k, v, p=0.25)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual((a["input_layout"], a["sparse_mode"], a["atten_mask"]), ("BSND", 0, None))
        self.assertEqual(a["keep_prob"], 0.75)
        self.assertEqual(a["scale"], 0.25)
        self.assertEqual(tuple(out.shape), (2, 4, 4, 16))

    def test_lower_triangular_is_sparse_mode_2(self):
        q, k, v = qkv(seqlen_q=4, seqlen_k=6)
        out = ops.memory_efficient_attention(q, k, v, attn_bias=ops.LowerTriangularMask())
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["sparse_mode"], 2)
        self.assertCausalMask(a["atten_mask"])
        self.assertClose(out, reference.attention(q, k, v, 0.25, reference.causal_top_left))

    def test_from_bottom_right_is_sparse_mode_3(self):
        q, k, v = qkv(seqlen_q=4, seqlen_k=6)
        out = ops.memory_efficient_attention(q, k, v, ops.LowerTriangularFromBottomRightMask())
        self.assertEqual(self.only_call("npu_fusion_attention")["sparse_mode"], 3)
        self.assertClose(out, reference.attention(q, k, v, 0.25, reference.causal_bottom_right))

    def test_mask_bias_becomes_inverted_bool_mask(self):
        q, k, v = qkv(seqlen_q=4, seqlen_k=6, heads=3, kv_heads=3)
        for shape, expected in (((4, 6), (4, 6)), ((1, 1, 4, 6), (4, 6)),
                                ((2, 1, 4, 6), (2, 1, 4, 6)), ((1, 3, 4, 6), (2, 3, 4, 6)),
                                ((2, 3, 4, 6), (2, 3, 4, 6))):
            self.fake.reset()
            bias = torch.zeros(shape)
            bias[torch.rand(shape) < 0.4] = float("-inf")
            out = ops.memory_efficient_attention(q, k, v, bias)
            a = self.only_call("npu_fusion_attention")
            mask = a["atten_mask"]
            self.assertEqual(mask.dtype, torch.bool)
            self.assertEqual(tuple(mask.shape), expected)
            expected_mask = torch.isneginf(bias).expand(2, 3, 4, 6)  # True where the bias is -inf
            if len(expected) == 2:
                expected_mask = expected_mask[0, 0]
            elif expected[1] == 1:
                expected_mask = expected_mask[:, :1]
            self.assertTrue(torch.equal(mask, expected_mask))
            self.assertEqual(a["sparse_mode"], 0)
            self.assertClose(out, reference.attention(q, k, v, 0.25, bias=bias))

    def test_other_bias_values_run_unfused_with_a_warning(self):
        q, k, v = qkv(seqlen_q=4, seqlen_k=6)
        bias = torch.randn(1, 4, 4, 6)
        ops._WARNED.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = ops.memory_efficient_attention(q, k, v, bias)
        self.assertEqual(self.fake.calls, [])
        self.assertTrue(any("attn_bias" in str(w.message) for w in caught))
        self.assertClose(out, reference.attention(q, k, v, 0.25, bias=bias))

    def test_three_and_five_dimensional_inputs(self):
        q, k, v = (t[:, :, 0] for t in qkv())
        out = ops.memory_efficient_attention(q, k, v)
        self.assertEqual(self.only_call("npu_fusion_attention")["head_num"], 1)
        self.assertEqual(tuple(out.shape), (2, 5, 16))
        self.fake.reset()
        q5 = torch.randn(2, 4, 2, 3, 16)
        k5 = torch.randn(2, 6, 2, 1, 16).expand(2, 6, 2, 3, 16)
        v5 = torch.randn(2, 6, 2, 1, 16).expand(2, 6, 2, 3, 16)
        out = ops.memory_efficient_attention(q5, k5, v5)
        a = self.only_call("npu_fusion_attention")
        self.assertEqual(a["head_num"], 6)
        self.assertEqual(a["key"].shape[2], 2)  # grouped key/value heads, not expanded
        self.assertClose(out.reshape(2, 4, 6, 16), reference.attention(
            q5.reshape(2, 4, 6, 16), k5[:, :, :, 0], v5[:, :, :, 0], 0.25))


class FusedOpsOnNpu(NpuCase):
    def test_rms_norm(self):
        x, w = torch.randn(2, 3, 16), torch.randn(16)
        out = ops.rms_norm(x, w, 1e-5)
        a = self.only_call("npu_rms_norm")
        self.assertIs(a["x"], x)
        self.assertIs(a["gamma"], w)
        self.assertEqual(a["epsilon"], 1e-5)
        self.assertTrue(torch.is_tensor(out))  # element 0 of (y, rstd)
        self.assertClose(out, reference.rms_norm(x, w, 1e-5))

    def test_rms_norm_module(self):
        norm = ops.RMSNorm(16)
        x = torch.randn(4, 16)
        self.assertClose(norm(x), reference.rms_norm(x, norm.weight.detach(), 1e-6))
        self.assertEqual(self.only_call("npu_rms_norm")["epsilon"], 1e-6)

    def test_rms_norm_mixed_dtypes_stay_unfused(self):
        x, w = torch.randn(4, 16).to(torch.bfloat16), torch.randn(16)
        out = ops.rms_norm(x, w)
        self.assertEqual(self.fake.calls, [])
        self.assertEqual(out.dtype, torch.float32)

    def test_rotary(self):
        x = torch.randn(2, 5, 3, 8)
        cos, sin = (t.float() for t in reference.rotary_tables(9, 8))
        for interleaved, mode in ((False, "half"), (True, "interleave")):
            self.fake.reset()
            out = ops.apply_rotary_emb(x, cos, sin, interleaved=interleaved, seqlen_offsets=2)
            a = self.only_call("npu_rotary_mul")
            self.assertEqual(a["rotary_mode"], mode)
            self.assertIs(a["input"], x)
            self.assertEqual(tuple(a["r1"].shape), (1, 5, 1, 8))
            self.assertEqual(a["r1"].dtype, x.dtype)
            self.assertClose(out, reference.rotary(x, cos, sin, interleaved, range(2, 7)))

    def test_rotary_forms_without_a_fused_equivalent(self):
        cos, sin = (t.float() for t in reference.rotary_tables(9, 8))
        x = torch.randn(2, 5, 3, 12)  # rotary_dim 8 < head_dim 12
        out = ops.apply_rotary_emb(x, cos, sin)
        self.assertClose(out, reference.rotary(x, cos, sin, False, range(5)))
        packed = torch.randn(7, 3, 8)
        ops.apply_rotary_emb(packed, cos, sin, cu_seqlens=torch.tensor([0, 3, 7]))
        ops.apply_rotary_emb(torch.randn(2, 5, 3, 8), cos, sin,
                             seqlen_offsets=torch.tensor([0, 2]))
        self.assertEqual(self.fake.calls, [])

    def test_rotary_inplace(self):
        x = torch.randn(1, 4, 2, 8)
        cos, sin = (t.float() for t in reference.rotary_tables(4, 8))
        expected = reference.rotary(x, cos, sin, False, range(4))
        out = ops.apply_rotary_emb(x, cos, sin, inplace=True)
        self.assertIs(out, x)
        self.assertClose(x, expected)
        self.only_call("npu_rotary_mul")

    def test_swiglu(self):
        x = torch.randn(3, 4, 10)
        out = ops.swiglu(x)
        a = self.only_call("npu_swiglu")
        self.assertIs(a["x"], x)
        self.assertEqual(a["dim"], -1)
        self.assertClose(out, reference.swiglu(x, -1))
        self.fake.reset()
        ops.swiglu(x, dim=1)
        self.assertEqual(self.only_call("npu_swiglu")["dim"], 1)


if __name__ == "__main__":
    unittest.main()
