"""An adapted script (CUDA spellings rewritten as the rules' fixes do, npu_compat activated at
the top) prints on this CUDA-less host exactly what its CUDA-spelled original prints: device
choice, seeds, mixed precision, memory queries, distributed names and the errors of
device-only calls. Both run as real /usr/bin/python3 processes.
"""

import os
import tempfile
import textwrap
import unittest

import torch

import support

_CUDA_SCRIPT = '''
import json
import warnings

import torch
import torch.cuda as tc
import torch.distributed as dist

torch.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.cuda.random.manual_seed(0)
report = {"honest_cuda": tc.is_available()}  # an alias: not rewritten by the fixes
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
report["device"] = str(device)
report["count"] = torch.cuda.device_count() if torch.cuda.is_available() else 0
report["backend"] = "nccl" if torch.cuda.is_available() else "gloo"
report["collectives"] = dist.is_available() and dist.is_nccl_available()
report["backend_constant"] = dist.Backend.NCCL == "nccl"
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
if device.type == "cuda":
    model = model.cuda()
    torch.cuda.reset_peak_memory_stats(device)
x = torch.randn(16, 4)
report["on_gpu"] = x.is_cuda
report["bf16"] = device.type == "cuda" and torch.cuda.is_bf16_supported()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scaler = torch.cuda.amp.GradScaler()
    for step in range(3):
        with torch.cuda.amp.autocast(dtype=torch.float16):
            loss = model(x).pow(2).mean()
        with torch.autocast(device_type="cuda"):
            extra = model(x).sum()
        scaler.scale(loss + 0 * extra).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
    with torch.cuda.stream(None):
        report["loss"] = loss.item()
report["warnings"] = sum(1 for w in caught if w.category is UserWarning)
report["memory"] = [torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated(),
                    torch.cuda.memory_reserved(), len(torch.cuda.memory_stats())]
torch.cuda.empty_cache()
report["params"] = [round(p.sum().item(), 6) for p in model.parameters()]
failures = []
for attempt in (torch.cuda.synchronize, lambda: x.cuda(), lambda: torch.cuda.Stream(),
                lambda: torch.cuda.get_device_properties(0), torch.cuda.current_device):
    try:
        attempt()
    except (RuntimeError, AssertionError, TypeError):
        failures.append("raised")
report["failures"] = failures
print(json.dumps(report, sort_keys=True))
'''
# What the device / distributed / precision fixes write for the spellings above.
_FIXES = (("torch.cuda.is_available", "torch.npu.is_available"),
          ("torch.cuda.device_count", "torch.npu.device_count"),
          ("torch.cuda.manual_seed_all", "torch.npu.manual_seed_all"),
          ("torch.cuda.random.manual_seed", "torch.npu.random.manual_seed"),
          ("torch.cuda.reset_peak_memory_stats", "torch.npu.reset_peak_memory_stats"),
          ("torch.cuda.is_bf16_supported", "torch.npu.is_bf16_supported"),
          ("torch.cuda.amp.GradScaler", "torch.npu.amp.GradScaler"),
          ("torch.cuda.amp.autocast", "torch.npu.amp.autocast"),
          ("torch.cuda.stream", "torch.npu.stream"), ("torch.cuda.Stream", "torch.npu.Stream"),
          ("torch.cuda.memory_", "torch.npu.memory_"),
          ("torch.cuda.max_memory_allocated", "torch.npu.max_memory_allocated"),
          ("torch.cuda.empty_cache", "torch.npu.empty_cache"),
          ("torch.cuda.synchronize", "torch.npu.synchronize"),
          ("torch.cuda.get_device_properties", "torch.npu.get_device_properties"),
          ("torch.cuda.current_device", "torch.npu.current_device"),
          ("model.cuda()", "model.npu()"), ("x.cuda()", "x.npu()"), ("x.is_cuda", "x.is_npu"),
          ('"cuda"', '"npu"'), ('"nccl"', '"hccl"'), ("Backend.NCCL", "Backend.HCCL"),
          ("is_nccl_available", "is_hccl_available"))


def adapted(source):
    """source with the fixes applied and npu_compat activated at the top, as the emit stage
    writes an adapted file; every fix must apply."""
    for cuda, npu in _FIXES:
        if cuda not in source:
            raise AssertionError("fix %r does not apply" % cuda)
        source = source.replace(cuda, npu)
    return "import npu_compat\nnpu_compat.activate()\n" + source


class AdaptedScriptOnCpu(unittest.TestCase):
    def run_script(self, directory, name, source):
        with open(os.path.join(directory, name), "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(source))
        return support.run_python([name], directory)

    @unittest.skipIf(torch.cuda.is_available(), "the original would run on CUDA here")
    def test_same_output_as_the_cuda_original(self):
        adapted_source = adapted(_CUDA_SCRIPT)
        with tempfile.TemporaryDirectory(prefix="npu_adapted_") as directory:
            support.render_to(directory, "npu_compat.py.mustache", "npu_compat")
            outputs = []
            for name, source in (("original.py", _CUDA_SCRIPT), ("adapted.py", adapted_source)):
                result = self.run_script(directory, name, source)
                self.assertEqual(result.returncode, 0, result.stderr)
                outputs.append(result.stdout)
            inactive = adapted_source.replace("npu_compat.activate()\n", "")
            result = self.run_script(directory, "inactive.py", inactive)
            self.assertIn("has no attribute 'npu'", result.stderr)  # the stand-in is needed
        self.assertEqual(outputs[0], outputs[1])
        self.assertIn('"honest_cuda": false', outputs[1])  # torch.cuda left alone
        self.assertIn('"warnings": 7', outputs[0])  # GradScaler + 2 autocasts x 3 steps
        self.assertIn('"failures": ["raised", "raised", "raised", "raised", "raised"]',
                      outputs[0])


if __name__ == "__main__":
    unittest.main()
