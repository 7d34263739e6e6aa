"""The recording FAKE torch_npu rejects what the documented torch_npu would not accept or would
compute differently, so the NPU-path tests can fail."""

import unittest

import torch

import reference
import support


class FakeRejects(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(99)
        self.fake = support.fake_torch_npu()
        self.fake.reset()
        self.q, self.k, self.v = (torch.randn(2, 3, 4, 16), torch.randn(2, 5, 2, 16),
                                  torch.randn(2, 5, 2, 16))
        self.mask = torch.ones(2048, 2048, dtype=torch.bool).triu(1)

    def call(self, **overrides):
        arguments = dict(query=self.q, key=self.k, value=self.v, head_num=4, input_layout="BSND",
                         scale=0.25)
        arguments.update(overrides)
        return self.fake.npu_fusion_attention(**arguments)

    def assertRejected(self, **overrides):
        with self.assertRaises(self.fake.FakeArgumentError):
            self.call(**overrides)

    def test_a_valid_call_returns_seven_values(self):
        outputs = self.call(atten_mask=self.mask, sparse_mode=3)
        self.assertEqual(len(outputs), 7)
        self.assertTrue(torch.allclose(outputs[0].double(), reference.attention(
            self.q, self.k, self.v, 0.25, reference.causal_bottom_right), atol=1e-5))
        self.assertEqual(len(self.fake.calls_to("npu_fusion_attention")), 1)

    def test_signature(self):
        self.assertRejected(softmax_scale=0.25)  # flash-attn's keyword, not torch_npu's
        self.assertRejected(dropout_p=0.1)
        with self.assertRaises(self.fake.FakeArgumentError):
            self.fake.npu_fusion_attention(self.q, self.k, self.v, 4)  # no input_layout

    def test_argument_types(self):
        self.assertRejected(head_num=torch.tensor(4))
        self.assertRejected(head_num=2)
        self.assertRejected(scale=torch.tensor(0.25))
        self.assertRejected(scale=1)
        self.assertRejected(keep_prob=0.0)
        self.assertRejected(input_layout="BHSD")

    def test_masks(self):
        self.assertRejected(sparse_mode=3)  # no mask: torch_npu would ignore sparse_mode
        self.assertRejected(atten_mask=~self.mask, sparse_mode=3)  # SDPA polarity
        self.assertRejected(atten_mask=self.mask.float(), sparse_mode=3)
        self.assertRejected(atten_mask=torch.zeros(3, 5), sparse_mode=0)

    def test_mask_shapes_for_sparse_mode_0(self):
        for shape in ((3, 5), (1, 1, 3, 5), (2, 1, 3, 5), (2, 4, 3, 5)):
            self.call(atten_mask=torch.zeros(shape, dtype=torch.bool))
        self.assertRejected(atten_mask=torch.zeros(1, 4, 3, 5, dtype=torch.bool))

    def test_sparse_modes_differ(self):
        top_left = self.call(atten_mask=self.mask, sparse_mode=2)[0]
        bottom_right = self.call(atten_mask=self.mask, sparse_mode=3)[0]
        self.assertFalse(torch.allclose(top_left, bottom_right))

    def test_tnd_lengths(self):
        q, k, v = torch.randn(7, 4, 16), torch.randn(7, 2, 16), torch.randn(7, 2, 16)
        base = dict(query=q, key=k, value=v, head_num=4, input_layout="TND", scale=0.25)
        self.fake.npu_fusion_attention(actual_seq_qlen=[3, 7], actual_seq_kvlen=[2, 7], **base)
        for bad in ([0, 3, 7], [3, 6], torch.tensor([3, 7]), [3.0, 7.0], (7, 3)):
            with self.assertRaises(self.fake.FakeArgumentError, msg=repr(bad)):
                self.fake.npu_fusion_attention(actual_seq_qlen=bad, actual_seq_kvlen=[2, 7], **base)
        with self.assertRaises(self.fake.FakeArgumentError):
            self.fake.npu_fusion_attention(**base)

    def test_fused_ops(self):
        x = torch.randn(2, 3, 8)
        with self.assertRaises(self.fake.FakeArgumentError):
            self.fake.npu_rms_norm(x, torch.ones(8), eps=1e-6)
        with self.assertRaises(self.fake.FakeArgumentError):
            self.fake.npu_rms_norm(x, torch.ones(8, dtype=torch.float64))
        y, rstd = self.fake.npu_rms_norm(x, torch.ones(8))
        self.assertTrue(torch.allclose(y.double(), reference.rms_norm(x, None, 1e-6)))
        x4 = torch.randn(1, 3, 2, 8)
        with self.assertRaises(self.fake.FakeArgumentError):
            self.fake.npu_rotary_mul(x4, torch.ones(1, 3, 1, 8), torch.ones(1, 3, 1, 8),
                                     rotary_mode="interleaved")
        with self.assertRaises(self.fake.FakeArgumentError):
            self.fake.npu_rotary_mul(x4, torch.ones(1, 3, 1, 4), torch.ones(1, 3, 1, 4))
        with self.assertRaises(self.fake.FakeArgumentError):
            self.fake.npu_swiglu(torch.randn(3, 5))
        with self.assertRaises(self.fake.FakeArgumentError):
            self.fake.npu_swiglu(torch.randn(3, 4), axis=-1)

    def test_rotary_formula(self):
        x = torch.randn(1, 3, 2, 8)
        cos, sin = (t.float() for t in reference.rotary_tables(3, 8))
        for interleaved, mode in ((False, "half"), (True, "interleave")):
            expand = ((lambda t: t.repeat_interleave(2, -1)) if interleaved
                      else (lambda t: torch.cat([t, t], -1)))
            r1 = expand(cos).view(1, 3, 1, 8)
            r2 = expand(sin).view(1, 3, 1, 8)
            out = self.fake.npu_rotary_mul(x, r1, r2, rotary_mode=mode)
            self.assertTrue(torch.allclose(out.double(), reference.rotary(
                x, cos, sin, interleaved, range(3)), atol=1e-6))
        self.assertEqual(len(self.fake.calls_to("npu_rotary_mul")), 2)


if __name__ == "__main__":
    unittest.main()
