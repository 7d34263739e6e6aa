"""Runs the bundled example's gpt/attention.py on the CPU, original or adapted.

Usage: check_adapted_example.py TREE MODE, TREE being examples/gpt_cuda or its adapted copy
(npu_ops.py at its root).
  digest        prints, per backend request, the backend chosen and a SHA-256 of the output:
                the original and the adapted tree must print the same lines.
  npu-branches  adapted tree only: takes the flash-attn and xformers branches, which now call
                npu_ops, on the CPU and compares them with the example's own math_attention.
"""

import hashlib
import sys

import torch


def inputs(batch, seqlen):
    generator = torch.Generator().manual_seed(1234)
    return [torch.randn(batch, seqlen, 2, 8, generator=generator) for _ in range(3)]


def digest(attention_module):
    q, k, v = inputs(2, 6)
    for backend in ("auto", "flash", "xformers", "sdpa", "math"):
        out = attention_module.attention(q, k, v, backend=backend)
        chosen = attention_module.resolve_backend(backend, q)
        print(backend, chosen, hashlib.sha256(out.contiguous().numpy().tobytes()).hexdigest())
    q, k, v = inputs(1, 8)
    cu_seqlens = torch.tensor([0, 3, 8], dtype=torch.int32)
    for backend in ("auto", "flash"):
        out = attention_module.attention(q, k, v, backend=backend, cu_seqlens=cu_seqlens, max_seqlen=5)
        print(backend, "varlen", hashlib.sha256(out.contiguous().numpy().tobytes()).hexdigest())


def npu_branches(attention_module):
    import npu_ops

    assert attention_module.flash_attn_func is npu_ops.flash_attn_func
    assert attention_module.flash_attn_varlen_func is npu_ops.flash_attn_varlen_func
    # What an NPU host would choose (q.is_npu there); on the CPU the wrappers' PyTorch path runs.
    attention_module._usable = lambda backend, q: backend in ("flash", "xformers")
    q, k, v = inputs(2, 6)
    expected = attention_module.math_attention(q, k, v, causal=True, softmax_scale=0.25)
    for backend in ("flash", "xformers"):
        out = attention_module.attention(q, k, v, backend=backend, softmax_scale=0.25)
        torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    q, k, v = inputs(1, 8)
    cu_seqlens = torch.tensor([0, 3, 8], dtype=torch.int32)
    expected = attention_module.math_attention(q, k, v, causal=True, cu_seqlens=cu_seqlens)
    out = attention_module.attention(q, k, v, backend="flash", cu_seqlens=cu_seqlens, max_seqlen=5)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    print("flash, flash varlen and xformers branches match math_attention")


def main():
    tree, mode = sys.argv[1], sys.argv[2]
    sys.path.insert(0, tree)
    from gpt import attention as attention_module

    if mode == "digest":
        digest(attention_module)
    elif mode == "npu-branches":
        npu_branches(attention_module)
    else:
        sys.exit("unknown mode %r" % mode)


if __name__ == "__main__":
    main()
