"""Train the tiny GPT on the synthetic corpus.

Single GPU:   python train.py
Multi GPU:    torchrun --nproc_per_node=8 train.py   (see scripts/train.sh)
CPU smoke:    python train.py --device cpu --steps 3 --seed 0 --out-dir /tmp/gpt_out
"""

import argparse
import inspect
import json
import logging
import math
import os
import random
import time
from contextlib import nullcontext

import numpy as np
import torch
from torch.cuda.amp import GradScaler

from gpt.config import GPTConfig
from gpt.data import VOCAB, build_loaders
from gpt.device import autocast_dtype, configure_backends, describe, gpu_memory_info
from gpt.distributed import (ProcessGroupManager, all_reduce_mean, barrier, unwrap,
                             wrap_ddp)
from gpt.model import GPT

try:
    from apex.optimizers import FusedAdam
    HAS_APEX = True
except ImportError:
    FusedAdam = None
    HAS_APEX = False

try:
    import bitsandbytes as bnb
    HAS_BNB = True
except ImportError:
    bnb = None
    HAS_BNB = False

logger = logging.getLogger("train")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Train a tiny GPT (CUDA by default, CPU for tests).")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                   help="'cuda' (the GPU of this rank), 'cuda:N' or 'cpu'")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--seed", type=int, default=1337)
    p.add_argument("--out-dir", default="out")
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--warmup-steps", type=int, default=10)
    p.add_argument("--grad-clip", type=float, default=1.0)
    p.add_argument("--optimizer", choices=["adamw", "fused_adam", "adamw8bit"], default="adamw",
                   help="fused_adam needs NVIDIA apex, adamw8bit needs bitsandbytes (CUDA only)")
    p.add_argument("--compile", action="store_true", help="wrap the model in torch.compile")
    p.add_argument("--amp", action="store_true",
                   help="mixed precision with torch.cuda.amp (ignored on cpu)")
    p.add_argument("--amp-dtype", choices=["fp16", "bf16"], default="bf16")
    p.add_argument("--attn-backend", default="auto",
                   choices=["auto", "flash", "xformers", "sdpa", "math"])
    p.add_argument("--mlp-type", default="swiglu", choices=["swiglu", "gelu"])
    p.add_argument("--n-layer", type=int, default=2)
    p.add_argument("--n-embd", type=int, default=64)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--block-size", type=int, default=32)
    p.add_argument("--log-interval", type=int, default=1)
    return p.parse_args(argv)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def resolve_device(name: str, local_rank: int) -> torch.device:
    if name == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise SystemExit(f"--device {name}: CUDA is not available on this machine, use --device cpu")
    device = torch.device(f"cuda:{local_rank}") if name == "cuda" else torch.device(name)
    torch.cuda.set_device(device)
    return device


def build_optimizer(model, args, device):
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}]
    if args.optimizer == "fused_adam" and HAS_APEX and device.type == "cuda":
        return FusedAdam(groups, lr=args.lr, betas=(0.9, 0.95))
    if args.optimizer == "adamw8bit" and HAS_BNB and device.type == "cuda":
        return bnb.optim.AdamW8bit(groups, lr=args.lr, betas=(0.9, 0.95))
    if args.optimizer != "adamw":
        logger.warning("optimizer %s unavailable here, using torch AdamW", args.optimizer)
    # The fused AdamW kernel exists from torch 2.0 on and only for GPU tensors.
    extra = {}
    if device.type == "cuda" and "fused" in inspect.signature(torch.optim.AdamW).parameters:
        extra["fused"] = True
    return torch.optim.AdamW(groups, lr=args.lr, betas=(0.9, 0.95), **extra)


def lr_at(step: int, args) -> float:
    if step < args.warmup_steps:
        return args.lr * (step + 1) / args.warmup_steps
    progress = (step - args.warmup_steps) / max(1, args.steps - args.warmup_steps)
    return args.lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress))))


class CUDAPrefetcher:
    """Copies the next batch to the GPU on a side stream while the current step runs."""

    def __init__(self, loader):
        self.loader = loader
        self.stream = torch.cuda.Stream()
        self.iterator = iter(loader)
        self.pending = None
        self._preload()

    def _preload(self):
        try:
            x, y = next(self.iterator)
        except StopIteration:
            self.iterator = iter(self.loader)
            x, y = next(self.iterator)
        with torch.cuda.stream(self.stream):
            self.pending = (x.cuda(non_blocking=True), y.cuda(non_blocking=True))

    def next(self):
        current = torch.cuda.current_stream()
        current.wait_stream(self.stream)
        x, y = self.pending
        x.record_stream(current)
        y.record_stream(current)
        self._preload()
        return x, y


class HostBatches:
    """Same interface as CUDAPrefetcher for the CPU path."""

    def __init__(self, loader, device):
        self.loader = loader
        self.device = device
        self.iterator = iter(loader)

    def next(self):
        try:
            x, y = next(self.iterator)
        except StopIteration:
            self.iterator = iter(self.loader)
            x, y = next(self.iterator)
        return x.to(self.device), y.to(self.device)


@torch.no_grad()
def evaluate(model, loader, device, max_batches=4):
    model.eval()
    # Evaluation always uses bf16 autocast on GPUs; exact fp32 on the CPU.
    if device.type == "cuda" and torch.cuda.is_bf16_supported():
        ctx = torch.autocast(device_type="cuda", dtype=torch.bfloat16)
    else:
        ctx = nullcontext()
    losses = []
    for i, (x, y) in enumerate(loader):
        if i >= max_batches:
            break
        with ctx:
            _, loss = model(x.to(device), y.to(device))
        losses.append(all_reduce_mean(loss.detach()).item())
    model.train()
    return sum(losses) / max(1, len(losses))


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    pg = ProcessGroupManager()
    info = pg.init_process_group()
    device = resolve_device(args.device, info.local_rank)
    logger.info("device: %s", describe(device))
    seed_everything(args.seed + info.rank)
    configure_backends(deterministic=True, allow_tf32=False)

    config = GPTConfig(vocab_size=len(VOCAB), block_size=args.block_size, n_layer=args.n_layer,
                       n_head=args.n_head, n_embd=args.n_embd, attn_backend=args.attn_backend,
                       mlp_type=args.mlp_type, device=str(device),
                       dtype=str(autocast_dtype(device)).replace("torch.", ""))
    model = GPT(config)
    if device.type == "cuda":
        model = model.cuda()
    else:
        model = model.to(device)
    logger.info("model has %d parameters", unwrap(model).num_parameters())

    optimizer = build_optimizer(model, args, device)
    model = wrap_ddp(model, info)
    if args.compile:
        if hasattr(torch, "compile"):
            model = torch.compile(model)
        else:
            logger.warning("torch.compile needs torch >= 2.0, running eagerly")

    use_amp = args.amp and device.type == "cuda"
    amp_dtype = torch.float16 if args.amp_dtype == "fp16" else torch.bfloat16
    amp_ctx = torch.cuda.amp.autocast(dtype=amp_dtype) if use_amp else nullcontext()
    scaler = GradScaler(enabled=use_amp and amp_dtype == torch.float16)

    train_loader, val_loader = build_loaders(config.block_size, args.batch_size, seed=args.seed,
                                             rank=info.rank, world_size=info.world_size)
    batches = CUDAPrefetcher(train_loader) if device.type == "cuda" else HostBatches(train_loader, device)

    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        start_evt = torch.cuda.Event(enable_timing=True)
        stop_evt = torch.cuda.Event(enable_timing=True)

    losses = []
    model.train()
    for step in range(args.steps):
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, args)
        if device.type == "cuda":
            start_evt.record()
        else:
            t0 = time.perf_counter()

        x, y = batches.next()
        with amp_ctx:
            _, loss = model(x, y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)

        if device.type == "cuda":
            stop_evt.record()
            torch.cuda.synchronize()
            elapsed_ms = start_evt.elapsed_time(stop_evt)
        else:
            elapsed_ms = (time.perf_counter() - t0) * 1000.0
        loss_value = all_reduce_mean(loss.detach().float()).item()
        losses.append(loss_value)
        if info.is_main and step % args.log_interval == 0:
            logger.info("step %d loss %.4f (%.1f ms)", step, loss_value, elapsed_ms)

    val_loss = evaluate(model, val_loader, device)
    summary = {"seed": args.seed, "steps": args.steps, "device": device.type,
               "losses": losses, "val_loss": val_loss}

    if device.type == "cuda":
        logger.info("peak memory %.1f MiB", torch.cuda.max_memory_allocated(device) / 2 ** 20)
        nvml = gpu_memory_info(info.local_rank)
        if nvml is not None:
            logger.info("NVML: %.1f / %.1f GiB in use", nvml[0] / 2 ** 30, nvml[1] / 2 ** 30)
        torch.cuda.empty_cache()

    if info.is_main:
        os.makedirs(args.out_dir, exist_ok=True)
        ckpt_path = os.path.join(args.out_dir, "ckpt.pt")
        torch.save({"model": unwrap(model).state_dict(), "optimizer": optimizer.state_dict(),
                    "config": config.to_dict(), "step": args.steps}, ckpt_path)
        with open(os.path.join(args.out_dir, "losses.json"), "w") as f:
            json.dump(summary, f, indent=2, sort_keys=True)
            f.write("\n")
        logger.info("saved %s (final loss %.4f, val loss %.4f)", ckpt_path, losses[-1], val_loss)
    barrier(info.local_rank)
    pg.shutdown()
    return summary


if __name__ == "__main__":
    main()
