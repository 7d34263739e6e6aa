"""RMSNorm forward as a Triton kernel.

Only the forward pass is implemented, so the kernel is used for inference
(no autograd). Without Triton, or for tensors that are not on a GPU, the
PyTorch reference below is used instead.
"""

import torch

try:
    import triton
    import triton.language as tl
    HAS_TRITON = True
except ImportError:
    triton = None
    tl = None
    HAS_TRITON = False


def rms_norm_reference(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """y = x / sqrt(mean(x^2) + eps) * weight, accumulated in float32."""
    xf = x.float()
    xf = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)
    return xf.type_as(x) * weight


if HAS_TRITON:

    @triton.jit
    def _rmsnorm_fwd_kernel(X, W, Y, stride_x, stride_y, N, eps,
                            BLOCK_SIZE: tl.constexpr):
        # One program normalises one row.
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
        mean_sq = tl.sum(x * x, axis=0) / N
        rstd = 1.0 / tl.sqrt(mean_sq + eps)
        w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
        y = x * rstd * w
        tl.store(Y + row * stride_y + cols, y.to(Y.dtype.element_ty), mask=mask)

    @triton.autotune(
        configs=[
            triton.Config({"ROWS_PER_PROGRAM": 1}, num_warps=2),
            triton.Config({"ROWS_PER_PROGRAM": 2}, num_warps=4),
            triton.Config({"ROWS_PER_PROGRAM": 4}, num_warps=8),
        ],
        key=["N"],
    )
    @triton.jit
    def _rmsnorm_fwd_kernel_tuned(X, W, Y, stride_x, stride_y, M, N, eps,
                                  BLOCK_SIZE: tl.constexpr, ROWS_PER_PROGRAM: tl.constexpr):
        # Several rows per program; the best split is picked per hidden size.
        pid = tl.program_id(0)
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
        for i in range(ROWS_PER_PROGRAM):
            row = pid * ROWS_PER_PROGRAM + i
            if row < M:
                x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
                rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
                tl.store(Y + row * stride_y + cols, (x * rstd * w).to(Y.dtype.element_ty),
                         mask=mask)


def triton_rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float,
                    autotune: bool = False) -> torch.Tensor:
    """Launch the Triton kernel on a GPU tensor of shape (..., N)."""
    if not HAS_TRITON:
        raise RuntimeError("triton is not installed")
    shape = x.shape
    x2d = x.reshape(-1, shape[-1]).contiguous()
    rows, n_cols = x2d.shape
    y = torch.empty_like(x2d)
    block = triton.next_power_of_2(n_cols)
    with torch.cuda.device(x.device):
        if autotune:
            grid = lambda meta: (triton.cdiv(rows, meta["ROWS_PER_PROGRAM"]),)  # noqa: E731
            _rmsnorm_fwd_kernel_tuned[grid](x2d, weight, y, x2d.stride(0), y.stride(0),
                                            rows, n_cols, eps, BLOCK_SIZE=block)
        else:
            grid = lambda meta: (rows,)  # noqa: E731
            _rmsnorm_fwd_kernel[grid](x2d, weight, y, x2d.stride(0), y.stride(0), n_cols, eps,
                                      BLOCK_SIZE=block, num_warps=4)
    return y.view(shape)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """Use the Triton kernel when it can run (GPU tensor, no autograd), else PyTorch."""
    if HAS_TRITON and x.is_cuda and not torch.is_grad_enabled():
        return triton_rms_norm(x, weight, eps)
    return rms_norm_reference(x, weight, eps)
