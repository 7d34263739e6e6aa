"""Decoder-only transformer: embeddings, pre-norm blocks, tied LM head."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from gpt.attention import CausalSelfAttention
from gpt.config import GPTConfig
from gpt.kernels.triton_rmsnorm import HAS_TRITON, triton_rms_norm
from gpt.ops import BiasGeLU
from gpt.rope import precompute_freqs_cis


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6, use_triton: bool = False):
        super().__init__()
        self.eps = eps
        self.use_triton = use_triton
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        if self.use_triton and HAS_TRITON and x.is_cuda and not torch.is_grad_enabled():
            return triton_rms_norm(x, self.weight, self.eps)
        # Normalise in float32 even under fp16/bf16 autocast.
        out = x.float()
        out = out * torch.rsqrt(out.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return out.type_as(x) * self.weight


class SwiGLU(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        hidden = config.mlp_hidden
        self.w_gate = nn.Linear(config.n_embd, hidden, bias=False)
        self.w_up = nn.Linear(config.n_embd, hidden, bias=False)
        self.w_down = nn.Linear(hidden, config.n_embd, bias=False)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.drop(self.w_down(F.silu(self.w_gate(x)) * self.w_up(x)))


class GeLUMLP(nn.Module):
    """Classic GPT-2 MLP whose bias+GELU runs through the fused op."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        hidden = 4 * config.n_embd
        self.fc = nn.Linear(config.n_embd, hidden, bias=False)
        self.act = BiasGeLU(hidden)
        self.proj = nn.Linear(hidden, config.n_embd, bias=False)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.drop(self.proj(self.act(self.fc(x))))


class Block(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.norm_attn = RMSNorm(config.n_embd, config.norm_eps, config.use_triton_norm)
        self.attn = CausalSelfAttention(config)
        self.norm_mlp = RMSNorm(config.n_embd, config.norm_eps, config.use_triton_norm)
        self.mlp = SwiGLU(config) if config.mlp_type == "swiglu" else GeLUMLP(config)

    def forward(self, x, freqs_cis, cu_seqlens=None, max_seqlen=None):
        x = x + self.attn(self.norm_attn(x), freqs_cis, cu_seqlens, max_seqlen)
        return x + self.mlp(self.norm_mlp(x))


class GPT(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        config.validate()
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, config.n_embd)
        self.pos_emb = nn.Embedding(config.block_size, config.n_embd)
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.norm_f = RMSNorm(config.n_embd, config.norm_eps, config.use_triton_norm)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.weight = self.tok_emb.weight  # weight tying
        freqs = precompute_freqs_cis(config.head_dim, config.block_size, config.rope_theta)
        self.register_buffer("freqs_cis", freqs, persistent=False)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx, targets=None, cu_seqlens=None, max_seqlen=None):
        batch, seq_len = idx.shape
        if seq_len > self.config.block_size:
            raise ValueError(f"sequence of {seq_len} exceeds block_size {self.config.block_size}")
        pos = torch.arange(seq_len, device=idx.device)
        x = self.drop(self.tok_emb(idx) + self.pos_emb(pos))
        for block in self.blocks:
            x = block(x, self.freqs_cis, cu_seqlens, max_seqlen)
        logits = self.lm_head(self.norm_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.float().view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss
