"""CPU tests for the tiny GPT. Run from the project root:

    python -m unittest discover -s tests -v
"""

import contextlib
import io
import json
import logging
import math
import os
import sys
import tempfile
import unittest

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from gpt import GPT, GPTConfig  # noqa: E402
from gpt.attention import attention, math_attention, resolve_backend  # noqa: E402
from gpt.data import VOCAB, build_loaders, decode, encode, make_corpus  # noqa: E402
from gpt.device import cached_kernel, cuda_kernel_cache, is_cuda_graph_enabled  # noqa: E402
from gpt.kernels import rms_norm, rms_norm_reference  # noqa: E402
from gpt.model import RMSNorm  # noqa: E402
from gpt.ops import (bias_gelu_backward_reference, bias_gelu_reference,  # noqa: E402
                     fused_bias_gelu)
from gpt.rope import (apply_rotary_emb, apply_rotary_real, precompute_freqs_cis,  # noqa: E402
                      rope_cos_sin)

import infer  # noqa: E402
import train  # noqa: E402


def tiny_config(**overrides):
    cfg = dict(vocab_size=len(VOCAB), block_size=16, n_layer=2, n_head=2, n_embd=32,
               device="cpu")
    cfg.update(overrides)
    return GPTConfig(**cfg)


def reference_attention(q, k, v, scale):
    """Causal attention one query at a time with explicit softmax."""
    batch, seq_len, n_head, _ = q.shape
    out = torch.zeros_like(q)
    for b in range(batch):
        for h in range(n_head):
            for t in range(seq_len):
                scores = torch.stack([(q[b, t, h] * k[b, s, h]).sum() * scale
                                      for s in range(t + 1)])
                weights = torch.exp(scores - scores.max())
                weights = weights / weights.sum()
                out[b, t, h] = (weights.unsqueeze(-1) * v[b, :t + 1, h]).sum(dim=0)
    return out


class ModelTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def test_forward_shapes(self):
        model = GPT(tiny_config())
        idx = torch.randint(0, len(VOCAB), (3, 10))
        logits, loss = model(idx)
        self.assertEqual(tuple(logits.shape), (3, 10, len(VOCAB)))
        self.assertIsNone(loss)
        logits, loss = model(idx, idx)
        self.assertEqual(loss.dim(), 0)
        self.assertTrue(math.isfinite(loss.item()))
        # Untrained model: loss close to log(vocab).
        self.assertLess(abs(loss.item() - math.log(len(VOCAB))), 0.5)

    def test_gelu_mlp_variant(self):
        model = GPT(tiny_config(mlp_type="gelu"))
        idx = torch.randint(0, len(VOCAB), (2, 8))
        _, loss = model(idx, idx)
        loss.backward()
        self.assertIsNotNone(model.blocks[0].mlp.act.bias.grad)

    def test_config_defaults_target_gpu(self):
        self.assertEqual(GPTConfig().device, "cuda")
        restored = GPTConfig.from_dict(dict(tiny_config().to_dict(), unknown_key=1))
        self.assertEqual(restored.n_embd, 32)
        with self.assertRaises(ValueError):
            GPT(GPTConfig(n_embd=30, n_head=4))

    def test_too_long_sequence(self):
        model = GPT(tiny_config())
        with self.assertRaises(ValueError):
            model(torch.zeros((1, 17), dtype=torch.long))

    def test_rmsnorm_matches_reference(self):
        norm = RMSNorm(32, eps=1e-6, use_triton=True)
        with torch.no_grad():
            norm.weight.copy_(torch.linspace(0.5, 1.5, 32))
        x = torch.randn(4, 7, 32)
        expected = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * norm.weight
        torch.testing.assert_close(norm(x), expected)
        with torch.no_grad():
            torch.testing.assert_close(rms_norm(x, norm.weight, 1e-6), expected)
        self.assertEqual(rms_norm_reference(x.bfloat16(), norm.weight.bfloat16(), 1e-6).dtype,
                         torch.bfloat16)


class RopeTest(unittest.TestCase):
    def test_table_is_double_precision(self):
        freqs = precompute_freqs_cis(8, 16)
        self.assertEqual(freqs.dtype, torch.complex128)
        self.assertEqual(tuple(freqs.shape), (16, 4))
        torch.testing.assert_close(freqs.abs(), torch.ones(16, 4, dtype=torch.float64))

    def test_matches_real_formulation_and_keeps_norm(self):
        q = torch.randn(2, 12, 3, 8)
        k = torch.randn(2, 12, 3, 8)
        q_rot, k_rot = apply_rotary_emb(q, k, precompute_freqs_cis(8, 16))
        cos, sin = rope_cos_sin(8, 16)
        torch.testing.assert_close(q_rot, apply_rotary_real(q, cos, sin).float())
        torch.testing.assert_close(k_rot.norm(dim=-1), k.norm(dim=-1))
        self.assertEqual(q_rot.dtype, q.dtype)

    def test_scores_depend_on_relative_position(self):
        freqs = precompute_freqs_cis(8, 32)
        q = torch.randn(1, 1, 1, 8).expand(1, 32, 1, 8).contiguous()
        k = torch.randn(1, 1, 1, 8).expand(1, 32, 1, 8).contiguous()
        q_rot, k_rot = apply_rotary_emb(q.double(), k.double(), freqs)
        score = (q_rot[0, :, 0] @ k_rot[0, :, 0].T)
        # Same offset m - n gives the same score anywhere in the sequence.
        torch.testing.assert_close(score[10, 7], score[25, 22])
        torch.testing.assert_close(score[3, 3], score[30, 30])


class AttentionTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(1)
        self.q, self.k, self.v = (torch.randn(2, 6, 2, 4, dtype=torch.float64) for _ in range(3))

    def test_cpu_backend_is_math(self):
        self.assertIn(resolve_backend("auto", self.q), ("math", "sdpa"))
        self.assertIn(resolve_backend("flash", self.q), ("math", "sdpa"))

    def test_fallback_matches_reference(self):
        scale = 0.5
        out = attention(self.q, self.k, self.v, backend="math", softmax_scale=scale)
        torch.testing.assert_close(out, reference_attention(self.q, self.k, self.v, scale))

    def test_packed_sequences(self):
        # Two sequences of length 2 and 4 packed into one row must not see each other.
        q, k, v = (t[:1] for t in (self.q, self.k, self.v))
        cu_seqlens = torch.tensor([0, 2, 6], dtype=torch.int32)
        packed = math_attention(q, k, v, cu_seqlens=cu_seqlens)
        first = math_attention(q[:, :2], k[:, :2], v[:, :2])
        second = math_attention(q[:, 2:], k[:, 2:], v[:, 2:])
        torch.testing.assert_close(packed, torch.cat([first, second], dim=1))

    def test_future_tokens_do_not_leak(self):
        model = GPT(tiny_config()).eval()
        idx = torch.randint(0, len(VOCAB), (1, 12))
        changed = idx.clone()
        changed[0, 8:] = (changed[0, 8:] + 1) % len(VOCAB)
        with torch.no_grad():
            a, _ = model(idx)
            b, _ = model(changed)
        torch.testing.assert_close(a[:, :8], b[:, :8])


class OpsTest(unittest.TestCase):
    def test_forward_matches_torch_gelu(self):
        x = torch.randn(5, 16)
        bias = torch.randn(16)
        expected = F.gelu(x + bias, approximate="tanh")
        torch.testing.assert_close(bias_gelu_reference(x, bias), expected)
        torch.testing.assert_close(fused_bias_gelu(x, bias), expected)

    def test_backward_matches_autograd(self):
        x = torch.randn(3, 4, 8, dtype=torch.float64, requires_grad=True)
        bias = torch.randn(8, dtype=torch.float64, requires_grad=True)
        self.assertTrue(torch.autograd.gradcheck(fused_bias_gelu, (x, bias)))
        grad = torch.randn(3, 4, 8, dtype=torch.float64)
        F.gelu(x + bias, approximate="tanh").backward(grad)
        grad_x, grad_bias = bias_gelu_backward_reference(grad, x.detach(), bias.detach())
        torch.testing.assert_close(grad_x, x.grad)
        torch.testing.assert_close(grad_bias, bias.grad)


class HelpersTest(unittest.TestCase):
    def test_data_is_deterministic(self):
        self.assertEqual(make_corpus(seed=3), make_corpus(seed=3))
        self.assertEqual(decode(encode("the cat sees a dog.")), "the cat sees a dog.")
        first = next(iter(build_loaders(16, 4, seed=5)[0]))
        second = next(iter(build_loaders(16, 4, seed=5)[0]))
        torch.testing.assert_close(first[0], second[0])
        torch.testing.assert_close(first[0][:, 1:], first[1][:, :-1])

    def test_name_only_helpers(self):
        self.assertEqual(cached_kernel("square", lambda: (lambda t: t * t))(3), 9)
        self.assertIn("square", cuda_kernel_cache)
        self.assertTrue(is_cuda_graph_enabled(GPTConfig(use_cuda_graphs=True)))


class TrainInferTest(unittest.TestCase):
    def setUp(self):
        logging.disable(logging.INFO)
        self.addCleanup(logging.disable, logging.NOTSET)

    def test_two_step_training_and_inference(self):
        with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
            args = ["--device", "cpu", "--steps", "2", "--seed", "0", "--batch-size", "4",
                    "--n-layer", "1", "--n-embd", "32", "--block-size", "16"]
            first = train.main(args + ["--out-dir", os.path.join(tmp, "a")])
            second = train.main(args + ["--out-dir", os.path.join(tmp, "b")])
            self.assertEqual(len(first["losses"]), 2)
            self.assertTrue(all(math.isfinite(v) for v in first["losses"]))
            self.assertEqual(first["losses"], second["losses"])
            with open(os.path.join(tmp, "a", "losses.json")) as f:
                self.assertEqual(json.load(f)["losses"], first["losses"])

            ckpt = os.path.join(tmp, "a", "ckpt.pt")
            out = os.path.join(tmp, "infer.json")
            result = infer.main(["--device", "cpu", "--checkpoint", ckpt, "--output", out,
                                 "--max-new-tokens", "5"])
            self.assertEqual(len(result["generated_ids"]), 5)
            self.assertEqual(result["logits"]["shape"], [5, len(VOCAB)])
            again = infer.main(["--device", "cpu", "--checkpoint", ckpt,
                                "--max-new-tokens", "5"])
            self.assertEqual(result, again)


if __name__ == "__main__":
    unittest.main()
