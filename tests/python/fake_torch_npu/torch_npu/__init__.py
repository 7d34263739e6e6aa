"""RECORDING FAKE of torch_npu, for the template tests only. THIS IS NOT torch_npu.

It lets tests on a CPU-only machine drive the NPU paths of the generated npu_ops.py and
npu_compat.py. Every operator:
- binds its arguments to the documented signature (an unknown keyword or a missing argument is
  an error) and records the call in ``calls``;
- asserts the arguments against the documented semantics (shared/knowledge/ascend-facts.md):
  layouts, head_num, Python-float scale / keep_prob, bool/uint8 atten_mask with True = masked,
  the compressed 2048 x 2048 causal mask for sparse_mode 2 / 3, cumulative sequence lengths as
  Python ints WITHOUT the leading 0, GQA head ratios;
- computes the documented result on the CPU from the recorded arguments, so the caller's
  post-processing (taking element 0 of the 7 outputs, reshapes) is checked numerically.
Violations raise FakeArgumentError (an AssertionError).

Device side: ``npu.device_count()`` is FAKE_TORCH_NPU_DEVICE_COUNT (environment, default 1) or
what reset(device_count=...) set; Tensor.npu() / Module.npu() record and return the object
unchanged (on the CPU). Importing the module registers torch.npu, Tensor.npu and Module.npu
as torch_npu does; the environment seen at import time is kept in IMPORT_ENVIRON.
"""

import inspect
import os
import types

import torch

__version__ = "0.0.0+FAKE"
IS_RECORDING_FAKE = True
IMPORT_ENVIRON = {"ASCEND_RT_VISIBLE_DEVICES": os.environ.get("ASCEND_RT_VISIBLE_DEVICES"),
                  "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES")}
LAYOUTS = ("BSH", "SBH", "BSND", "BNSD", "TND")

calls = []
_config = {"device_count": int(os.environ.get("FAKE_TORCH_NPU_DEVICE_COUNT", "1"))}


class FakeArgumentError(AssertionError):
    """A call that does not match torch_npu's documented signature or semantics."""


class Call:
    def __init__(self, name, arguments):
        self.name = name
        self.arguments = arguments

    def __repr__(self):
        return "Call(%s, %s)" % (self.name, sorted(self.arguments))


def reset(device_count=None):
    """Forget recorded calls; optionally change the number of fake devices."""
    del calls[:]
    if device_count is not None:
        _config["device_count"] = device_count


def calls_to(name):
    return [call for call in calls if call.name == name]


def _require(condition, message, *values):
    if not condition:
        raise FakeArgumentError("fake torch_npu: " + (message % values if values else message))


def _bind(name, documented, args, kwargs):
    try:
        bound = inspect.signature(documented).bind(*args, **kwargs)
    except TypeError as exc:
        raise FakeArgumentError("fake torch_npu: %s called against its documented signature: %s"
                                % (name, exc))
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    calls.append(Call(name, arguments))
    return arguments


def _is_int(value):
    return type(value) is int


# --- attention ---------------------------------------------------------------------------------

def _documented_npu_fusion_attention(query, key, value, head_num, input_layout, pse=None,
                                     padding_mask=None, atten_mask=None, scale=1.0,
                                     keep_prob=1.0, pre_tockens=2147483647,
                                     next_tockens=2147483647, inner_precise=0, prefix=None,
                                     actual_seq_qlen=None, actual_seq_kvlen=None, sparse_mode=0,
                                     gen_mask_parallel=True, sync=False):
    pass


def compressed_causal_mask():
    """The 2048 x 2048 mask documented for sparse_mode 2 and 3 (True above the diagonal)."""
    return torch.triu(torch.ones(2048, 2048, dtype=torch.bool), diagonal=1)


def _check_lengths(values, total, name):
    _require(isinstance(values, (list, tuple)), "%s must be a list of Python ints, got %r",
             name, type(values))
    _require(all(_is_int(v) for v in values), "%s must hold Python ints, got %r", name, values)
    _require(len(values) >= 1, "%s is empty", name)
    _require(values[0] != 0, "%s must not start with flash-attn's leading 0: %r", name, values)
    _require(all(b >= a for a, b in zip(values, values[1:])), "%s must be non-decreasing: %r",
             name, values)
    _require(values[-1] == total, "%s must end at the token count %d: %r", name, total, values)


def _attend(q, k, v, sparse_mode, atten_mask, scale, keep_prob):
    """q (B, N, Sq, D), k/v (B, Nkv, Skv, D) -> (B, N, Sq, D) in float32 (documented maths)."""
    batch, heads, seqlen_q = q.shape[0], q.shape[1], q.shape[2]
    seqlen_k = k.shape[2]
    groups = heads // k.shape[1]
    k = k.repeat_interleave(groups, dim=1).float()
    v = v.repeat_interleave(groups, dim=1).float()
    scores = torch.matmul(q.float(), k.transpose(-2, -1)) * scale
    i = torch.arange(seqlen_q).unsqueeze(1)
    j = torch.arange(seqlen_k).unsqueeze(0)
    if sparse_mode == 2:  # leftUpCausal
        masked = j > i
    elif sparse_mode == 3:  # rightDownCausal
        masked = j > i + (seqlen_k - seqlen_q)
    elif atten_mask is not None:
        masked = atten_mask.bool()
    else:
        masked = torch.zeros(seqlen_q, seqlen_k, dtype=torch.bool)
    masked = torch.broadcast_to(masked, (batch, heads, seqlen_q, seqlen_k))
    scores = scores.masked_fill(masked, float("-inf"))
    empty = masked.all(dim=-1, keepdim=True)  # rows that see no key: 0
    probs = torch.softmax(scores.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)
    if keep_prob < 1.0:
        probs = torch.nn.functional.dropout(probs, p=1.0 - keep_prob, training=True)
    return torch.matmul(probs, v)


def npu_fusion_attention(*args, **kwargs):
    a = _bind("npu_fusion_attention", _documented_npu_fusion_attention, args, kwargs)
    q, k, v, layout = a["query"], a["key"], a["value"], a["input_layout"]
    _require(all(torch.is_tensor(t) for t in (q, k, v)), "query/key/value must be tensors")
    _require(layout in LAYOUTS, "input_layout %r is not one of %s", layout, LAYOUTS)
    _require(layout in ("BSND", "TND"), "the fake models only BSND and TND, not %r", layout)
    _require(_is_int(a["head_num"]), "head_num must be a Python int, got %r", a["head_num"])
    _require(type(a["scale"]) is float and a["scale"] > 0, "scale must be a positive Python "
             "float (it defaults to 1.0, not 1/sqrt(D)), got %r", a["scale"])
    _require(type(a["keep_prob"]) is float and 0.0 < a["keep_prob"] <= 1.0,
             "keep_prob must be a Python float in (0, 1] (= 1 - dropout_p), got %r",
             a["keep_prob"])
    for name in ("pse", "padding_mask", "prefix"):
        _require(a[name] is None, "%s is not modelled by the fake", name)
    _require(a["pre_tockens"] == 2147483647 and a["next_tockens"] == 2147483647,
             "pre_tockens / next_tockens are not modelled by the fake")
    sparse_mode, mask = a["sparse_mode"], a["atten_mask"]
    _require(sparse_mode in (0, 2, 3), "sparse_mode %r is not modelled by the fake", sparse_mode)
    if mask is not None:
        _require(torch.is_tensor(mask) and mask.dtype in (torch.bool, torch.uint8),
                 "atten_mask must be a bool/uint8 tensor (True = masked out), got %r",
                 getattr(mask, "dtype", type(mask)))
    if sparse_mode in (2, 3):
        _require(mask is not None and tuple(mask.shape) == (2048, 2048)
                 and torch.equal(mask.bool().cpu(), compressed_causal_mask()),
                 "sparse_mode %d needs the compressed 2048x2048 causal atten_mask "
                 "triu(ones, diagonal=1) (True = masked out)", sparse_mode)
    _require(not (sparse_mode != 0 and mask is None), "sparse_mode %d without atten_mask is "
             "ignored by torch_npu: full attention would be computed", sparse_mode)
    if layout == "BSND":
        _require(q.dim() == 4 and k.dim() == 4 and v.dim() == 4, "BSND needs 4-D query/key/value")
        batch, seqlen_q, heads, _ = q.shape
        _require(k.shape[0] == batch and v.shape[:3] == k.shape[:3], "key/value shapes %s %s "
                 "do not match query %s", tuple(k.shape), tuple(v.shape), tuple(q.shape))
        _require(a["head_num"] == heads, "head_num %r must be the query's N (%d)",
                 a["head_num"], heads)
        _require(heads % k.shape[2] == 0, "query heads %d not a multiple of key heads %d",
                 heads, k.shape[2])
        _require(a["actual_seq_qlen"] is None and a["actual_seq_kvlen"] is None,
                 "actual_seq_qlen/kvlen belong to the TND layout")
        if mask is not None and sparse_mode == 0:
            shape, seqlen_k = tuple(mask.shape), k.shape[1]
            allowed = [(batch, heads, seqlen_q, seqlen_k), (batch, 1, seqlen_q, seqlen_k),
                       (1, 1, seqlen_q, seqlen_k), (seqlen_q, seqlen_k)]
            _require(shape in allowed, "atten_mask shape %s is not BNSS, B1SS, 11SS or SS (%s)",
                     shape, allowed)
        out = _attend(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), sparse_mode,
                      mask, a["scale"], a["keep_prob"]).transpose(1, 2)
        stats_shape = (batch, heads, seqlen_q, 8)
    else:
        _require(q.dim() == 3 and k.dim() == 3 and v.dim() == 3, "TND needs 3-D query/key/value")
        total, heads, _ = q.shape
        _require(a["head_num"] == heads, "head_num %r must be the query's N (%d)",
                 a["head_num"], heads)
        _require(heads % k.shape[1] == 0, "query heads %d not a multiple of key heads %d",
                 heads, k.shape[1])
        _require(a["actual_seq_qlen"] is not None and a["actual_seq_kvlen"] is not None,
                 "TND needs actual_seq_qlen and actual_seq_kvlen")
        _check_lengths(a["actual_seq_qlen"], total, "actual_seq_qlen")
        _check_lengths(a["actual_seq_kvlen"], k.shape[0], "actual_seq_kvlen")
        _require(len(a["actual_seq_qlen"]) == len(a["actual_seq_kvlen"]),
                 "actual_seq_qlen and actual_seq_kvlen describe different batch sizes")
        _require(mask is None or sparse_mode != 0, "TND with an explicit mask is not modelled")
        out = torch.zeros(total, heads, v.shape[-1])
        q_ends, k_ends = [0] + list(a["actual_seq_qlen"]), [0] + list(a["actual_seq_kvlen"])
        for index in range(len(q_ends) - 1):
            q0, q1, k0, k1 = q_ends[index], q_ends[index + 1], k_ends[index], k_ends[index + 1]
            seg = _attend(q[q0:q1].transpose(0, 1).unsqueeze(0),
                          k[k0:k1].transpose(0, 1).unsqueeze(0),
                          v[k0:k1].transpose(0, 1).unsqueeze(0), sparse_mode, None, a["scale"],
                          a["keep_prob"])
            out[q0:q1] = seg[0].transpose(0, 1)
        stats_shape = (total, heads, 8)
    softmax_max = torch.zeros(stats_shape, dtype=torch.float32)
    softmax_sum = torch.ones(stats_shape, dtype=torch.float32)
    softmax_out = torch.empty(0, dtype=q.dtype)
    return out.to(q.dtype), softmax_max, softmax_sum, softmax_out, 0, 0, 0


# --- fused element-wise operators ---------------------------------------------------------------

def _documented_npu_rms_norm(x, gamma, epsilon=1e-6):
    pass


def npu_rms_norm(*args, **kwargs):
    a = _bind("npu_rms_norm", _documented_npu_rms_norm, args, kwargs)
    x, gamma, eps = a["x"], a["gamma"], a["epsilon"]
    _require(torch.is_tensor(x) and torch.is_tensor(gamma), "x and gamma must be tensors")
    _require(tuple(gamma.shape) == tuple(x.shape[x.dim() - gamma.dim():]),
             "gamma %s must match the last dimensions of x %s", tuple(gamma.shape),
             tuple(x.shape))
    _require(gamma.dtype == x.dtype, "gamma dtype %s differs from x %s", gamma.dtype, x.dtype)
    _require(isinstance(eps, float), "epsilon must be a float, got %r", eps)
    dims = tuple(range(-gamma.dim(), 0))
    rstd = torch.rsqrt(x.float().pow(2).mean(dim=dims, keepdim=True) + eps)
    return (x.float() * rstd * gamma.float()).to(x.dtype), rstd


def _documented_npu_rotary_mul(input, r1, r2, rotary_mode="half"):  # noqa: A002 (documented)
    pass


def npu_rotary_mul(*args, **kwargs):
    a = _bind("npu_rotary_mul", _documented_npu_rotary_mul, args, kwargs)
    x, r1, r2, mode = a["input"], a["r1"], a["r2"], a["rotary_mode"]
    _require(mode in ("half", "interleave"), "rotary_mode %r is not 'half' or 'interleave'", mode)
    _require(x.dim() == 4 and r1.dim() == 4 and r2.dim() == 4, "input, r1, r2 must be 4-D")
    _require(tuple(r1.shape) == tuple(r2.shape), "r1 %s and r2 %s differ", tuple(r1.shape),
             tuple(r2.shape))
    _require(r1.shape[-1] == x.shape[-1] and x.shape[-1] % 2 == 0,
             "r1/r2 must cover the whole (even) last dimension %d, got %d", x.shape[-1],
             r1.shape[-1])
    _require(r1.dtype == x.dtype and r2.dtype == x.dtype, "r1/r2 dtype must be input's")
    torch.broadcast_shapes(tuple(r1.shape), tuple(x.shape))
    xf = x.float()
    if mode == "half":
        x1, x2 = torch.chunk(xf, 2, dim=-1)
        rotated = torch.cat((-x2, x1), dim=-1)
    else:
        x1, x2 = xf[..., ::2], xf[..., 1::2]
        rotated = torch.stack((-x2, x1), dim=-1).flatten(-2)
    return (r1.float() * xf + r2.float() * rotated).to(x.dtype)


def _documented_npu_swiglu(x, dim=-1):
    pass


def npu_swiglu(*args, **kwargs):
    a = _bind("npu_swiglu", _documented_npu_swiglu, args, kwargs)
    x, dim = a["x"], a["dim"]
    _require(_is_int(dim), "dim must be an int, got %r", dim)
    _require(x.shape[dim] % 2 == 0, "dimension %d of x must be even, got %d", dim, x.shape[dim])
    first, second = x.float().chunk(2, dim=dim)
    return (torch.nn.functional.silu(first) * second).to(x.dtype)


# --- device layer (torch_npu.npu, the same object as torch.npu) ---------------------------------

def _record(name, **arguments):
    calls.append(Call(name, arguments))


class _FakeAutocast:
    def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
        _record("npu.amp.autocast", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
        self.enabled, self.dtype = enabled, dtype

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _FakeGradScaler:
    def __init__(self, **kwargs):
        _record("npu.amp.GradScaler", **kwargs)
        self.kwargs = kwargs

    def is_enabled(self):
        return self.kwargs.get("enabled", True)


def _device_count():
    return _config["device_count"]


def _is_available():
    return _device_count() > 0


def _set_device(device):
    _record("npu.set_device", device=device)


def _synchronize(device=None):
    _record("npu.synchronize", device=device)


def _manual_seed_all(seed):
    _record("npu.manual_seed_all", seed=seed)


npu = types.ModuleType("torch_npu.npu")
npu.device_count = _device_count
npu.is_available = _is_available
npu.current_device = lambda: 0
npu.set_device = _set_device
npu.synchronize = _synchronize
npu.manual_seed_all = _manual_seed_all
npu.get_device_name = lambda device=None: "Ascend-FAKE"
npu.amp = types.SimpleNamespace(autocast=_FakeAutocast, GradScaler=_FakeGradScaler)


def _tensor_npu(self, device=None, non_blocking=False):
    _record("Tensor.npu", device=device, non_blocking=non_blocking)
    return self


def _module_npu(self, device=None):
    _record("Module.npu", device=device)
    return self


def _register():
    torch.npu = npu
    torch.Tensor.npu = _tensor_npu
    torch.nn.Module.npu = _module_npu


def _unregister():
    for owner, name in ((torch, "npu"), (torch.Tensor, "npu"), (torch.nn.Module, "npu")):
        if name in vars(owner):
            delattr(owner, name)


_register()
