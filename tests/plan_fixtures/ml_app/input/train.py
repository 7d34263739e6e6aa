"""Training entry point."""
import torch

from data import load
from model.net import Net


def main():
    net = Net()
    batch = load()
    torch.cuda.synchronize()
    return net, batch


if __name__ == "__main__":
    main()
