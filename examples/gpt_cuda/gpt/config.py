"""Model and run configuration."""

from dataclasses import asdict, dataclass, fields


@dataclass
class GPTConfig:
    # Model shape. The defaults are tiny on purpose so the example trains in
    # seconds; real runs override them from the command line.
    vocab_size: int = 32
    block_size: int = 32
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    mlp_multiple_of: int = 16
    dropout: float = 0.0
    norm_eps: float = 1e-6
    rope_theta: float = 10000.0

    # Kernel choices.
    attn_backend: str = "auto"      # auto | flash | xformers | sdpa | math
    mlp_type: str = "swiglu"        # swiglu | gelu (gelu uses the fused bias+GELU op)
    use_triton_norm: bool = True    # Triton RMSNorm for inference on GPU
    use_cuda_graphs: bool = False   # capture the decode step in infer.py

    # Where and how to run. The project targets GPUs, hence the default.
    device: str = "cuda"
    dtype: str = "bfloat16"

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head

    @property
    def mlp_hidden(self) -> int:
        # LLaMA-style SwiGLU width: 2/3 of 4*d, rounded up to a multiple.
        hidden = int(2 * (4 * self.n_embd) / 3)
        m = self.mlp_multiple_of
        return m * ((hidden + m - 1) // m)

    def validate(self) -> None:
        if self.n_embd % self.n_head != 0:
            raise ValueError("n_embd must be divisible by n_head")
        if self.head_dim % 2 != 0:
            raise ValueError("rotary embeddings need an even head dimension")
        if self.attn_backend not in ("auto", "flash", "xformers", "sdpa", "math"):
            raise ValueError(f"unknown attention backend {self.attn_backend!r}")
        if self.mlp_type not in ("swiglu", "gelu"):
            raise ValueError(f"unknown mlp type {self.mlp_type!r}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "GPTConfig":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})
