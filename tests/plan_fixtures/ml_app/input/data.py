"""Data loading."""
import torch


def load():
    return torch.ones(2, device="cuda")
