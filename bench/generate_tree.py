#!/usr/bin/env python3
"""Generates a large, deterministic PyTorch/CUDA-like source tree for the analysis benchmark.

Each Python module mixes ordinary code with CUDA API uses, aliases, strings in device
positions, comments and docstrings, so the benchmark exercises the same paths as real code.
"""
import argparse
import os
import random

HEADER = '''"""Module {idx}: generated benchmark input (mentions torch.cuda.synchronize() in prose)."""
import os
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.cuda as tc
from torch.cuda import amp
'''

BLOCKS = [
    '''
class Block{n}(nn.Module):
    """A transformer block; runs on "cuda" when available."""

    def __init__(self, dim={dim}, heads=8):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.heads = heads

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        att = F.softmax(att.float(), dim=-1).type_as(x)
        return x + self.proj(att @ v)
''',
    '''
def train_step_{n}(model, batch, optimizer, scaler):
    # move everything to the GPU: torch.cuda.empty_cache() is not called here
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = batch["x"].cuda(non_blocking=True)
    y = batch["y"].to(device)
    with amp.autocast(dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    tc.synchronize()
    return loss.item()
''',
    '''
def setup_{n}(local_rank):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(local_rank)
    torch.cuda.set_device(local_rank)
    torch.backends.cudnn.benchmark = True
    major, minor = torch.cuda.get_device_capability()
    props = torch.cuda.get_device_properties(0)
    print(f"running on cuda:{{local_rank}} with {{props.multi_processor_count}} SMs")
    return torch.device(f"cuda:{{local_rank}}"), major >= 8
''',
    '''
def measure_{n}(fn, *args):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        start.record()
        out = fn(*args)
        end.record()
    torch.cuda.synchronize()
    return out, start.elapsed_time(end), torch.cuda.max_memory_allocated()
''',
    '''
def plain_math_{n}(values):
    total = 0.0
    for i, v in enumerate(values):
        if i % 3 == 0:
            total += math.sin(v) * {dim}
        elif i % 3 == 1:
            total -= math.cos(v)
        else:
            total += v ** 0.5 if v > 0 else 0.0
    return {{"total": total, "count": len(values), "label": "cuda_kernel_cache"}}
''',
]


PLAIN = '''
class Config{n}:
    """Settings of experiment {n}; the device is chosen at run time, not here."""

    def __init__(self, **overrides):
        self.values = {{"lr": 3e-4, "batch": {dim}, "warmup": 100, "name": "exp{n}"}}
        self.values.update(overrides)

    def scaled_lr(self, world_size):
        base = self.values["lr"] * world_size
        return min(base, 1e-2) if world_size > 8 else base

    def describe(self):
        return ", ".join(f"{{k}}={{v}}" for k, v in sorted(self.values.items()))
'''

# Real projects are mostly ordinary code: about one block in three touches CUDA.
CHOICES = BLOCKS + [PLAIN]
WEIGHTS = [1, 1, 1, 1, 4, 4]


def module_text(rng, idx, blocks):
    parts = [HEADER.format(idx=idx)]
    for n in range(blocks):
        block = rng.choices(CHOICES, weights=WEIGHTS)[0]
        parts.append(block.format(n=n, dim=rng.choice([256, 512, 1024])))
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True, help="directory to create")
    ap.add_argument("--files", type=int, default=4000, help="number of Python modules")
    ap.add_argument("--blocks", type=int, default=30, help="code blocks per module")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    total = 0
    for i in range(args.files):
        pkg = os.path.join(args.out, f"pkg{i // 100:03d}")
        os.makedirs(pkg, exist_ok=True)
        text = module_text(rng, i, args.blocks)
        with open(os.path.join(pkg, f"mod{i:05d}.py"), "w") as f:
            f.write(text)
        total += len(text)
    with open(os.path.join(args.out, "requirements.txt"), "w") as f:
        f.write("torch\nflash-attn\n")
    print(f"generated {args.files} files, {total / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
