"""Inference entry point."""
import torch

from model.net import Net

if __name__ == "__main__":
    x = torch.zeros(1).cuda()
    Net()
