"""Greedy generation from a checkpoint written by train.py.

The JSON written to --output is deterministic for a given checkpoint and
device, so a reference run and a migrated run can be compared numerically:
generated token ids must match and the logits summary must agree within a
tolerance.
"""

import argparse
import json
import logging
import os

import torch

from gpt.config import GPTConfig
from gpt.data import decode, encode
from gpt.device import describe, is_cuda_graph_enabled, setup_device, synchronize
from gpt.model import GPT

logger = logging.getLogger("infer")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Greedy decoding with the tiny GPT.")
    p.add_argument("--checkpoint", required=True, help="ckpt.pt written by train.py")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu",
                   help="'cuda' or 'cpu'; on cuda the checkpoint is mapped straight to the GPU")
    p.add_argument("--prompt", default="the cat ")
    p.add_argument("--max-new-tokens", type=int, default=24)
    p.add_argument("--output", default=None, help="write a JSON summary here")
    p.add_argument("--cuda-graphs", action="store_true",
                   help="capture the decode step once with CUDA graphs and replay it")
    return p.parse_args(argv)


def load_model(path: str, device: torch.device) -> GPT:
    if device.type == "cuda":
        ckpt = torch.load(path, map_location="cuda")
    else:
        ckpt = torch.load(path, map_location="cpu")
    config = GPTConfig.from_dict(ckpt["config"])
    config.device = str(device)
    model = GPT(config)
    model.load_state_dict(ckpt["model"])
    return model.to(device).eval()


class EagerStep:
    """Last-position logits for the (cropped) context."""

    def __init__(self, model):
        self.model = model
        self.block_size = model.config.block_size

    def __call__(self, idx):
        logits, _ = self.model(idx[:, -self.block_size:])
        return logits[:, -1, :]


class GraphedStep:
    """Static-shape decode step captured once with torch.cuda.graph.

    The context is right-padded to block_size; the model is causal, so the
    logits at the last real position do not see the padding.
    """

    def __init__(self, model, device):
        self.model = model
        self.block_size = model.config.block_size
        self.static_idx = torch.zeros((1, self.block_size), dtype=torch.long, device=device)
        with torch.no_grad():
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):  # warm up kernels / autotuners outside the capture
                    self.model(self.static_idx)
            torch.cuda.current_stream().wait_stream(side)
            self.cuda_graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.cuda_graph):
                self.static_logits, _ = self.model(self.static_idx)

    def __call__(self, idx):
        ctx = idx[:, -self.block_size:]
        n = ctx.shape[1]
        self.static_idx.zero_()
        self.static_idx[:, :n].copy_(ctx)
        self.cuda_graph.replay()
        return self.static_logits[:, n - 1, :].clone()


@torch.no_grad()
def generate(step_fn, prompt_ids, max_new_tokens, device):
    idx = torch.tensor([prompt_ids], dtype=torch.long, device=device)
    step_logits = []
    for _ in range(max_new_tokens):
        logits = step_fn(idx)
        step_logits.append(logits.double().cpu())
        next_id = torch.argmax(logits, dim=-1, keepdim=True)
        idx = torch.cat([idx, next_id], dim=1)
    synchronize(device)
    return idx[0].tolist(), torch.cat(step_logits, dim=0)


def summarize(prompt, prompt_ids, all_ids, logits, device):
    generated = all_ids[len(prompt_ids):]
    return {
        "device": device.type,
        "prompt": prompt,
        "prompt_ids": prompt_ids,
        "generated_ids": generated,
        "text": decode(all_ids),
        "logits": {
            "shape": list(logits.shape),
            "sum": float(logits.sum()),
            "mean": float(logits.mean()),
            "max_abs": float(logits.abs().max()),
            "first_row": [round(float(v), 6) for v in logits[0, :8]],
        },
    }


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    device = setup_device(args.device, int(os.environ.get("LOCAL_RANK", "0")))
    logger.info("device: %s", describe(device))
    model = load_model(args.checkpoint, device)

    use_graphs = (args.cuda_graphs or is_cuda_graph_enabled(model.config)) and device.type == "cuda"
    if use_graphs:
        step_fn = GraphedStep(model, device)
    else:
        if args.cuda_graphs:
            logger.warning("--cuda-graphs ignored: graph capture needs a cuda device")
        step_fn = EagerStep(model)

    prompt_ids = encode(args.prompt)
    all_ids, logits = generate(step_fn, prompt_ids, args.max_new_tokens, device)
    result = summarize(args.prompt, prompt_ids, all_ids, logits, device)
    print(json.dumps(result["text"]))
    if args.output:
        out_dir = os.path.dirname(args.output)
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
        with open(args.output, "w") as f:
            json.dump(result, f, indent=2, sort_keys=True)
            f.write("\n")
        logger.info("wrote %s", args.output)
    return result


if __name__ == "__main__":
    main()
