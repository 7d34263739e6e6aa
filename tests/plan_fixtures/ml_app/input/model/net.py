"""The network."""
import torch.nn as nn
from flash_attn import flash_attn_func


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, q, k, v):
        return flash_attn_func(q, k, v, causal=True)
