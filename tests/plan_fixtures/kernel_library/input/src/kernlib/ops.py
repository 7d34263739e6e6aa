import torch
import kernlib_cuda


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    return kernlib_cuda.forward(x, factor)
