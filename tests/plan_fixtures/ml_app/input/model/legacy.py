"""Old code nothing imports any more."""
import torch


def old():
    torch.cuda.empty_cache()
