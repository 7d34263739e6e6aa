"""Device helpers.

Everything GPU-specific funnels through here so the rest of the code can ask
simple questions ("is bf16 fast here?") instead of calling torch.cuda.* all
over the place. On a CPU-only machine every helper degrades gracefully: no
torch.cuda.synchronize(), no NVML, float32 everywhere.
"""

import logging
import os

import torch

try:
    import pynvml
    HAS_NVML = True
except ImportError:
    pynvml = None
    HAS_NVML = False

logger = logging.getLogger(__name__)

# Compiled-kernel objects keyed by name. The name is historical: the cache
# holds Triton launchers and Python callables alike, it touches no CUDA API.
cuda_kernel_cache = {}


def cached_kernel(name, builder):
    """Build a kernel object once and reuse it."""
    if name not in cuda_kernel_cache:
        cuda_kernel_cache[name] = builder()
    return cuda_kernel_cache[name]


def is_cuda_graph_enabled(config=None) -> bool:
    """Whether the user asked for graph capture (config flag or GPT_GRAPHS=1).

    Only reports the request; infer.py still checks that a GPU is present
    before it captures anything.
    """
    if config is not None and getattr(config, "use_cuda_graphs", False):
        return True
    return os.environ.get("GPT_GRAPHS", "0") == "1"


def gpu_available() -> bool:
    return torch.cuda.is_available()


def visible_devices():
    """The CUDA_VISIBLE_DEVICES list as strings, or None when unset."""
    value = os.environ.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return None
    return [d for d in value.split(",") if d.strip()]


def device_count() -> int:
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def setup_device(requested: str, local_rank: int = 0) -> torch.device:
    """Turn a --device string into a torch.device and bind this process to it.

    "cuda" means "the GPU of my local rank"; "cpu" is always honoured.
    """
    if requested == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise RuntimeError(f"--device {requested} requested but no CUDA device is available; "
                           "pass --device cpu")
    if local_rank >= torch.cuda.device_count():
        raise RuntimeError(f"LOCAL_RANK={local_rank} but only {torch.cuda.device_count()} GPUs "
                           f"are visible (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')})")
    torch.cuda.set_device(local_rank)
    return torch.device(f"cuda:{local_rank}")


def compute_capability():
    """(major, minor) of GPU 0, or (0, 0) without a GPU."""
    if not torch.cuda.is_available():
        return 0, 0
    major, minor = torch.cuda.get_device_capability()
    return major, minor


def supports_flash_attention() -> bool:
    # flash-attn 2 needs Ampere (sm_80) or newer.
    major, _ = compute_capability()
    return major >= 8


def num_multiprocessors() -> int:
    if not torch.cuda.is_available():
        return 0
    return torch.cuda.get_device_properties(0).multi_processor_count


def autocast_dtype(device: torch.device) -> torch.dtype:
    """bf16 on GPUs that support it, fp16 on older GPUs, fp32 on the CPU."""
    if device.type != "cuda":
        return torch.float32
    if torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float16


def gpu_memory_info(index: int = 0):
    """(used_bytes, total_bytes) from NVML, or None when NVML is unavailable."""
    if not HAS_NVML:
        return None
    try:
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        info = pynvml.nvmlDeviceGetMemoryInfo(handle)
        return info.used, info.total
    except pynvml.NVMLError as exc:
        logger.debug("NVML query failed: %s", exc)
        return None
    finally:
        try:
            pynvml.nvmlShutdown()
        except pynvml.NVMLError:
            pass


def configure_backends(deterministic: bool = True, allow_tf32: bool = False) -> None:
    """Set cuDNN / cuBLAS knobs. Harmless on a CPU-only build."""
    torch.backends.cudnn.benchmark = not deterministic
    torch.backends.cudnn.deterministic = deterministic
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    torch.backends.cudnn.allow_tf32 = allow_tf32
    if deterministic:
        # cuBLAS needs a fixed workspace for reproducible GEMMs.
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)


def synchronize(device: torch.device) -> None:
    """Wait for queued GPU work; a no-op on the CPU."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def describe(device: torch.device) -> str:
    """One-line summary for the log, e.g. 'cuda:0 (A100, sm_80, 108 SMs)'."""
    if device.type != "cuda":
        logger.info("running on CPU: cuda kernels, NVML and torch.cuda.synchronize() are skipped")
        return "cpu"
    major, minor = compute_capability()
    name = torch.cuda.get_device_name(device)
    return f"{device} ({name}, sm_{major}{minor}, {num_multiprocessors()} SMs)"
