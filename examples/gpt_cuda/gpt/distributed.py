"""Multi-GPU training helpers (torchrun + NCCL + DDP).

A single process (WORLD_SIZE unset or 1) never creates a process group, so
the CPU path needs neither NCCL nor gloo.
"""

import logging
import os
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

logger = logging.getLogger(__name__)

# Conservative NCCL defaults; the launcher (scripts/train.sh) may override them.
NCCL_ENV_DEFAULTS = {
    "NCCL_DEBUG": "WARN",
    "NCCL_IB_DISABLE": "1",
    "NCCL_ASYNC_ERROR_HANDLING": "1",
}


@dataclass
class DistInfo:
    rank: int = 0
    local_rank: int = 0
    world_size: int = 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def enabled(self) -> bool:
        return self.world_size > 1


def dist_info_from_env() -> DistInfo:
    return DistInfo(
        rank=int(os.environ.get("RANK", "0")),
        local_rank=int(os.environ.get("LOCAL_RANK", "0")),
        world_size=int(os.environ.get("WORLD_SIZE", "1")),
    )


class ProcessGroupManager:
    """Owns the lifetime of the default process group for train.py.

    ``init_process_group`` here is this class's own method: it reads the
    torchrun environment and only then calls into torch.distributed.
    """

    def __init__(self, timeout_minutes: int = 30):
        self.timeout_minutes = timeout_minutes
        self.info = DistInfo()
        self.started = False

    def init_process_group(self) -> DistInfo:
        self.info = dist_info_from_env()
        if not self.info.enabled:
            return self.info
        if not dist.is_available() or not dist.is_nccl_available():
            raise RuntimeError("WORLD_SIZE > 1 needs torch.distributed with NCCL support")
        for key, value in NCCL_ENV_DEFAULTS.items():
            os.environ.setdefault(key, value)
        torch.cuda.set_device(self.info.local_rank)
        dist.init_process_group(
            backend="nccl",
            init_method="env://",
            rank=self.info.rank,
            world_size=self.info.world_size,
        )
        self.started = True
        logger.info("NCCL process group up: rank %d/%d (local rank %d)",
                    self.info.rank, self.info.world_size, self.info.local_rank)
        return self.info

    def shutdown(self) -> None:
        if self.started and dist.is_initialized():
            dist.destroy_process_group()
            self.started = False


def wrap_ddp(model: torch.nn.Module, info: DistInfo) -> torch.nn.Module:
    if not info.enabled:
        return model
    return DDP(model, device_ids=[info.local_rank], output_device=info.local_rank)


def unwrap(model: torch.nn.Module) -> torch.nn.Module:
    model = getattr(model, "_orig_mod", model)  # torch.compile wrapper
    return model.module if isinstance(model, DDP) else model


def _active() -> bool:
    return dist.is_available() and dist.is_initialized()


def all_reduce_mean(tensor: torch.Tensor) -> torch.Tensor:
    if not _active():
        return tensor
    tensor = tensor.clone()
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    return tensor / dist.get_world_size()


def all_gather(tensor: torch.Tensor) -> torch.Tensor:
    """Concatenate ``tensor`` from every rank along dim 0."""
    if not _active():
        return tensor
    parts = [torch.empty_like(tensor) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, tensor.contiguous())
    return torch.cat(parts, dim=0)


def broadcast(tensor: torch.Tensor, src: int = 0) -> torch.Tensor:
    if _active():
        dist.broadcast(tensor, src=src)
    return tensor


def barrier(local_rank: int = 0) -> None:
    if _active():
        dist.barrier(device_ids=[local_rank])
