"""Checks the precision plugin's manual-work advice on the bundled example, on the CPU.

Usage: check_precision_advice.py OPS_DIR EXAMPLE, OPS_DIR holding the npu_ops.py rendered with
the sections the plugin's emit hook asked for, EXAMPLE the example project (examples/gpt_cuda).
The advice says: RMSNorm's float32 upcast -> npu_ops.rms_norm / npu_ops.RMSNorm; complex RoPE
-> real float32 cos / sin tables and npu_ops.apply_rotary_emb(x, cos, sin, interleaved=True).
Each replacement must compute what the example's own code computes. Exits non-zero otherwise.
"""

import sys
import unittest

import torch


class PrecisionAdvice(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def test_rms_norm_replaces_the_upcasting_module(self):
        import npu_ops
        from gpt.model import RMSNorm

        original = RMSNorm(16, eps=1e-5)
        with torch.no_grad():
            original.weight.copy_(torch.rand(16) + 0.5)
        replacement = npu_ops.RMSNorm(16, eps=1e-5)
        replacement.load_state_dict(original.state_dict())
        for dtype in (torch.float32, torch.bfloat16):
            x = (torch.randn(2, 5, 16) * 3).to(dtype)
            expected = original(x)
            torch.testing.assert_close(replacement(x), expected)
            torch.testing.assert_close(npu_ops.rms_norm(x, original.weight, 1e-5), expected)

    def test_rotary_from_the_complex_table(self):
        import npu_ops
        from gpt import rope

        freqs_cis = rope.precompute_freqs_cis(8, 16)
        q, k = torch.randn(2, 6, 3, 8), torch.randn(2, 6, 3, 8)
        q_expected, k_expected = rope.apply_rotary_emb(q, k, freqs_cis)
        for x, expected in ((q, q_expected), (k, k_expected)):
            out = npu_ops.apply_rotary_emb(x, freqs_cis.real, freqs_cis.imag, interleaved=True)
            torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)

    def test_rotary_from_float32_tables_without_complex_numbers(self):
        import npu_ops
        from gpt import rope

        head_dim, max_seq_len = 8, 16
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        angles = torch.outer(torch.arange(max_seq_len, dtype=torch.float32), inv_freq)
        q, k = torch.randn(2, 6, 3, 8), torch.randn(2, 6, 3, 8)
        q_expected, _ = rope.apply_rotary_emb(q, k, rope.precompute_freqs_cis(head_dim, max_seq_len))
        out = npu_ops.apply_rotary_emb(q, angles.cos(), angles.sin(), interleaved=True)
        self.assertEqual(out.dtype, torch.float32)
        torch.testing.assert_close(out, q_expected, rtol=1e-4, atol=1e-4)


if __name__ == "__main__":
    example = sys.argv.pop(2)
    sys.path[:0] = [sys.argv.pop(1), example]
    unittest.main()
