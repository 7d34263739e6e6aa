"""npu_compat: device detection, mappings, activation and the `python -m npu_compat` runner.

In-process tests use the CPU (no torch_npu) or the recording FAKE torch_npu installed for the
duration of a test; environment-dependent behaviour (visible devices, import side effects,
activate(), the runner) is checked in /usr/bin/python3 subprocesses so the environment is real.
"""

import collections
import json
import os
import sys
import textwrap
import unittest
import warnings
from unittest import mock

import torch

import support

_rendered = None
compat = None
_ENV_KEYS = ("CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES")


def setUpModule():
    global _rendered, compat
    _rendered = support.RenderedModule()
    compat = support.load_module(_rendered.npu_compat, "npu_compat_under_test")


def tearDownModule():
    _rendered.cleanup()


def clean_environ():
    """os.environ without the visible-devices variables, restored afterwards."""
    patcher = mock.patch.dict(os.environ)
    patcher.start()
    for key in _ENV_KEYS:
        os.environ.pop(key, None)
    return patcher


class OnCpu(unittest.TestCase):
    """No torch_npu: the CPU (or CUDA, if this machine had a GPU) is used as is."""

    def setUp(self):
        self.assertNotIn("torch_npu", sys.modules)
        self.expected = "cuda" if torch.cuda.is_available() else "cpu"

    def test_detection(self):
        self.assertFalse(compat.torch_npu_installed())
        self.assertFalse(compat.is_npu_available())
        self.assertEqual(compat.get_device(), self.expected)
        self.assertIn("device=%s" % self.expected, compat.describe())

    def test_to_device(self):
        pair = collections.namedtuple("pair", "a b")
        batch = {"x": torch.ones(2), "rest": [torch.zeros(1), (torch.ones(1), 3)],
                 "pair": pair(torch.ones(1), "label")}
        moved = compat.to_device(batch)
        self.assertEqual(moved["x"].device.type, self.expected)
        self.assertEqual(moved["rest"][1][0].device.type, self.expected)
        self.assertEqual(moved["rest"][1][1], 3)
        self.assertIsInstance(moved["pair"], pair)
        self.assertEqual(moved["pair"].b, "label")
        module = compat.to_device(torch.nn.Linear(2, 2))
        self.assertEqual(module.weight.device.type, self.expected)
        self.assertEqual(compat.to_device(torch.ones(1), "cpu").device.type, "cpu")

    def test_map_device_leaves_everything_alone(self):
        device = torch.device("cuda", 1)
        self.assertIs(compat.map_device(device), device)
        for value in ("cuda", "cuda:1", 2, "cpu"):
            self.assertEqual(compat.map_device(value), value)

    def test_backend(self):
        if not torch.cuda.is_available():
            self.assertEqual(compat.dist_backend(), "gloo")
        self.assertEqual(compat.map_backend("nccl"), "nccl")
        with mock.patch.object(torch.distributed, "init_process_group") as init:
            compat.init_process_group(world_size=1, rank=0)
        init.assert_called_once_with(backend=compat.dist_backend(), world_size=1, rank=0)

    def test_autocast_on_cpu(self):
        a, b = torch.randn(4, 4), torch.randn(4, 4)
        with compat.autocast(dtype=torch.bfloat16, device_type="cpu"):
            self.assertEqual(torch.mm(a, b).dtype, torch.bfloat16)
        with compat.autocast(dtype=torch.bfloat16, device_type="cpu", enabled=False):
            self.assertEqual(torch.mm(a, b).dtype, torch.float32)

    def test_grad_scaler_on_cpu_is_a_no_op(self):
        if torch.cuda.is_available():
            self.skipTest("a CUDA machine gets CUDA's scaler")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = compat.grad_scaler(init_scale=1024.0)
        self.assertEqual([str(w.message) for w in caught], [])  # disabled, not self-disabling
        self.assertFalse(scaler.is_enabled())
        loss = torch.tensor(2.0)
        self.assertIs(scaler.scale(loss), loss)

    def test_activate_routes_nothing_without_npu(self):
        """Only the stand-ins of test_npu_compat_no_npu.py are added; CUDA spellings stay."""
        originals = (torch.Tensor.cuda, torch.Tensor.to, torch.nn.Module.cuda, torch.zeros,
                     torch.load, torch.cuda.is_available, torch.cuda.synchronize,
                     torch.cuda.amp.autocast)
        autocast = torch.autocast
        try:
            self.assertEqual(compat.activate(), self.expected)
            self.assertTrue(compat.is_active())
            self.assertEqual((torch.Tensor.cuda, torch.Tensor.to, torch.nn.Module.cuda,
                              torch.zeros, torch.load, torch.cuda.is_available,
                              torch.cuda.synchronize, torch.cuda.amp.autocast), originals)
            self.assertIsInstance(torch.npu, compat._NoNpu)
            self.assertTrue(issubclass(torch.autocast, autocast))  # adds "npu", keeps the rest
        finally:
            compat.deactivate()
        self.assertFalse(compat.is_active())
        self.assertIs(torch.autocast, autocast)


class VisibleDevices(unittest.TestCase):
    def test_translation(self):
        cases = {"0,1": "0,1", "3,1": "1,3", " 2 , 0 ": "0,2", "2,x,5": "2", "1,1,0": "0,1",
                 "0,-1,3": "0", "": None, "-1": None, "GPU-1a2b3c": None, "MIG-GPU-0/1/0": None}
        for cuda, ascend in cases.items():
            self.assertEqual(compat.ascend_visible_devices(cuda), ascend, cuda)

    def test_mapping_into_an_environment(self):
        with mock.patch.object(compat, "torch_npu_installed", lambda: True):
            environ = {"CUDA_VISIBLE_DEVICES": "0,1"}
            self.assertEqual(compat.map_visible_devices(environ), "0,1")
            self.assertEqual(environ["ASCEND_RT_VISIBLE_DEVICES"], "0,1")
            environ = {"CUDA_VISIBLE_DEVICES": "3,1"}
            with self.assertWarnsRegex(RuntimeWarning, "ascending"):
                self.assertEqual(compat.map_visible_devices(environ), "1,3")
            environ = {"CUDA_VISIBLE_DEVICES": "0,1", "ASCEND_RT_VISIBLE_DEVICES": "4"}
            self.assertEqual(compat.map_visible_devices(environ), "4")  # explicit setting wins
            self.assertEqual(environ["ASCEND_RT_VISIBLE_DEVICES"], "4")
            environ = {"CUDA_VISIBLE_DEVICES": ""}
            with self.assertWarnsRegex(RuntimeWarning, "unset"):
                self.assertIsNone(compat.map_visible_devices(environ))
            self.assertNotIn("ASCEND_RT_VISIBLE_DEVICES", environ)
            self.assertIsNone(compat.map_visible_devices({}))

    def test_no_mapping_without_torch_npu(self):
        environ = {"CUDA_VISIBLE_DEVICES": "0,1"}
        self.assertIsNone(compat.map_visible_devices(environ))
        self.assertEqual(environ, {"CUDA_VISIBLE_DEVICES": "0,1"})


class WithFakeNpu(unittest.TestCase):
    """The recording FAKE torch_npu is importable and reports devices."""

    def setUp(self):
        self.addCleanup(clean_environ().stop)
        manager = support.installed_fake(device_count=2)
        self.fake = manager.__enter__()
        self.addCleanup(manager.__exit__, None, None, None)

    def test_detection(self):
        self.assertTrue(compat.is_npu_available())
        self.assertEqual(compat.get_device(), "npu")
        self.assertEqual(compat.device_count(), 2)
        self.assertIn("device=npu", compat.describe())

    def test_no_device_falls_back(self):
        self.fake.reset(device_count=0)
        self.assertFalse(compat.is_npu_available())
        self.assertEqual(compat.get_device(), "cuda" if torch.cuda.is_available() else "cpu")
        self.assertEqual(compat.map_device("cuda:1"), "cuda:1")
        self.assertEqual(compat.map_backend("nccl"), "nccl")

    def test_map_device(self):
        cases = {"cuda": "npu", "cuda:3": "npu:3", 2: "npu:2", "cpu": "cpu", "meta": "meta",
                 "cudax": "cudax", None: None}
        for value, expected in cases.items():
            self.assertEqual(compat.map_device(value), expected, value)
        cpu = torch.device("cpu")
        self.assertIs(compat.map_device(cpu), cpu)
        try:
            npu1 = torch.device("npu:1")
        except RuntimeError:  # torch 1.13 without torch_npu cannot spell "npu" devices
            with self.assertRaisesRegex(RuntimeError, "npu"):
                compat.map_device(torch.device("cuda", 1))
        else:
            self.assertEqual(compat.map_device(torch.device("cuda", 1)), npu1)

    def test_backend(self):
        self.assertEqual(compat.dist_backend(), "hccl")
        self.assertEqual(compat.map_backend("nccl"), "hccl")
        self.assertEqual(compat.map_backend("cpu:gloo,cuda:nccl"), "cpu:gloo,npu:hccl")
        self.assertEqual(compat.map_backend("gloo"), "gloo")
        with mock.patch.object(torch.distributed, "init_process_group") as init:
            compat.init_process_group()
            compat.init_process_group("nccl", rank=0)
        self.assertEqual(init.call_args_list, [mock.call(backend="hccl"),
                                               mock.call(backend="hccl", rank=0)])

    def test_autocast_and_grad_scaler(self):
        with compat.autocast(dtype=torch.bfloat16) as context:
            self.assertIsInstance(context, self.fake.npu.amp.autocast)
        with compat.autocast():
            pass
        scaler = compat.grad_scaler(init_scale=1024.0)
        self.assertIsInstance(scaler, self.fake.npu.amp.GradScaler)
        recorded = [(c.name, c.arguments) for c in self.fake.calls]
        self.assertEqual(recorded[0], ("npu.amp.autocast", {"enabled": True,
                                                            "dtype": torch.bfloat16,
                                                            "cache_enabled": True}))
        self.assertEqual(recorded[1][1]["dtype"], torch.float16)  # torch_npu's own default
        self.assertEqual(recorded[2], ("npu.amp.GradScaler", {"init_scale": 1024.0}))


class Subprocesses(unittest.TestCase):
    """Real processes: the environment, imports and the runner as a user would meet them."""

    def setUp(self):
        self.dir = _rendered.dir

    def write(self, relative, text):
        path = os.path.join(self.dir, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(textwrap.dedent(text))
        return path

    def run_json(self, args, **kwargs):
        result = support.run_python(args, self.dir, **kwargs)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout.strip().splitlines()[-1]), result

    def test_import_has_no_side_effects(self):
        self.write("probe_import.py", """
            import json, os, sys
            import torch
            import torch.distributed as dist
            def snapshot():
                return [id(x) for x in (torch.cuda.is_available, torch.cuda.device_count,
                        torch.Tensor.cuda, torch.Tensor.to, torch.nn.Module.cuda, torch.zeros,
                        torch.load, torch.autocast, torch.cuda.synchronize,
                        dist.init_process_group)]
            env, before = dict(os.environ), snapshot()
            import npu_compat
            print(json.dumps({"env": env == dict(os.environ), "torch": before == snapshot(),
                              "torch_npu": "torch_npu" in sys.modules,
                              "torch.npu": hasattr(torch, "npu"),
                              "active": npu_compat.is_active()}))
            """)
        report, _ = self.run_json(["probe_import.py"], fake=True,
                                  env_extra={"CUDA_VISIBLE_DEVICES": "1,0"})
        self.assertEqual(report, {"env": True, "torch": True, "torch_npu": False,
                                  "torch.npu": False, "active": False})

    def test_visible_devices_are_mapped_before_torch_npu_loads(self):
        self.write("probe_visible.py", """
            import json, os, sys
            import npu_compat
            device = npu_compat.get_device()
            fake = sys.modules.get("torch_npu")
            print(json.dumps({"device": device,
                              "env": os.environ.get("ASCEND_RT_VISIBLE_DEVICES"),
                              "at_import": fake and fake.IMPORT_ENVIRON["ASCEND_RT_VISIBLE_DEVICES"]}))
            """)
        report, result = self.run_json(["probe_visible.py"], fake=True,
                                       env_extra={"CUDA_VISIBLE_DEVICES": "3,1"})
        self.assertEqual(report, {"device": "npu", "env": "1,3", "at_import": "1,3"})
        self.assertIn("ascending", result.stderr)
        report, _ = self.run_json(["probe_visible.py"], fake=True, env_extra={
            "CUDA_VISIBLE_DEVICES": "0,1", "ASCEND_RT_VISIBLE_DEVICES": "5"})
        self.assertEqual(report, {"device": "npu", "env": "5", "at_import": "5"})
        report, _ = self.run_json(["probe_visible.py"], fake=False,
                                  env_extra={"CUDA_VISIBLE_DEVICES": "0"})
        self.assertEqual(report["env"], None)  # no torch_npu: nothing to map
        self.assertEqual(report["at_import"], None)

    def test_activate_routes_cuda_spellings_to_the_npu(self):
        self.write("probe_activate.py", """
            import json, os
            import torch
            import torch.distributed as dist
            seen = {"to": [], "module_to": [], "zeros": [], "dist": [], "autocast": []}
            def recorder(kind):
                def to(self, *args, **kwargs):
                    seen[kind].append([repr(a) for a in args] + sorted(
                        "%s=%r" % kv for kv in kwargs.items()))
                    return self
                return to
            record_to, record_module_to = recorder("to"), recorder("module_to")
            def record_zeros(*args, **kwargs):
                seen["zeros"].append(repr(kwargs.get("device")))
            def record_init(*args, **kwargs):
                seen["dist"].append([list(args), kwargs])
            class RecordAutocast(torch.autocast):
                def __init__(self, device_type, *args, **kwargs):
                    seen["autocast"].append(device_type)
                    super().__init__("cpu", enabled=False)
            torch.Tensor.to, torch.nn.Module.to = record_to, record_module_to
            torch.zeros, dist.init_process_group = record_zeros, record_init
            torch.autocast = RecordAutocast
            originals = [torch.Tensor.cuda, torch.nn.Module.cuda, torch.cuda.is_available,
                         torch.cuda.synchronize, torch.cuda.amp.autocast]
            is_available = torch.cuda.is_available
            import npu_compat
            device = npu_compat.activate()
            npu_compat.activate()  # a second call changes nothing
            import torch_npu  # the FAKE: it recorded every torch_npu call
            x = torch.ones(2)
            x.cuda(); x.cuda(1, non_blocking=True)
            layer = torch.nn.Linear(2, 2)
            layer.cuda(); layer.cuda(1); layer.to("cuda:0")
            x.to("cuda:1"); x.to(torch.float16); x.to(device="cuda"); x.to(0)
            torch.zeros(2, device="cuda:0"); torch.zeros(2, device="cpu")
            dist.init_process_group("nccl", rank=0, world_size=1)
            dist.init_process_group(backend="cpu:gloo,cuda:nccl")
            torch.cuda.synchronize(); torch.cuda.manual_seed_all(3)
            with torch.cuda.amp.autocast(dtype=torch.bfloat16):
                pass
            with torch.autocast("cuda"):
                pass
            with torch.autocast("cpu"):
                pass
            report = {
                "device": device,
                "is_available_untouched": torch.cuda.is_available is is_available,
                "cuda_available": torch.cuda.is_available(),
                "single_wrap": torch.Tensor.to._npu_compat_original is record_to,
                "npu_calls": [[c.name, {k: repr(v) for k, v in sorted(c.arguments.items())}]
                              for c in torch_npu.calls],
                "seen": seen,
            }
            npu_compat.deactivate()
            report["restored"] = (
                [torch.Tensor.cuda, torch.nn.Module.cuda, torch.cuda.is_available,
                 torch.cuda.synchronize, torch.cuda.amp.autocast] == originals
                and torch.Tensor.to is record_to and torch.nn.Module.to is record_module_to
                and torch.zeros is record_zeros
                and dist.init_process_group is record_init and torch.autocast is RecordAutocast)
            print(json.dumps(report))
            """)
        report, _ = self.run_json(["probe_activate.py"], fake=True,
                                  env_extra={"FAKE_TORCH_NPU_DEVICE_COUNT": "2"})
        self.assertEqual(report["device"], "npu")
        self.assertTrue(report["is_available_untouched"])
        self.assertEqual(report["cuda_available"], torch.cuda.is_available())
        self.assertTrue(report["single_wrap"])
        self.assertTrue(report["restored"])
        self.assertEqual(report["npu_calls"], [
            ["npu.synchronize", {"device": "None"}],
            ["npu.manual_seed_all", {"seed": "3"}],
            ["npu.amp.autocast", {"cache_enabled": "True", "dtype": "torch.bfloat16",
                                  "enabled": "True"}],
        ])
        seen = report["seen"]
        self.assertEqual(seen["to"], [["'npu'", "non_blocking=False"],
                                      ["'npu:1'", "non_blocking=True"],
                                      ["'npu:1'"], ["torch.float16"], ["device='npu'"],
                                      ["'npu:0'"]])
        self.assertEqual(seen["module_to"], [["'npu'"], ["'npu:1'"], ["'npu:0'"]])
        self.assertEqual(seen["zeros"], ["'npu:0'", "'cpu'"])
        self.assertEqual(seen["dist"], [[["hccl"], {"rank": 0, "world_size": 1}],
                                        [[], {"backend": "cpu:gloo,npu:hccl"}]])
        self.assertEqual(seen["autocast"], ["npu", "cpu"])

    def test_runner_runs_a_script_with_its_arguments(self):
        self.write("scripts/show_argv.py", """
            import json, os, sys
            import npu_compat, npu_ops
            print(json.dumps({"argv": sys.argv, "name": __name__,
                              "active": npu_compat.is_active(),
                              "path0": sys.path[0] == os.path.dirname(os.path.abspath(__file__)),
                              "device": npu_compat.get_device()}))
            if "exit3" in sys.argv:
                sys.exit(3)
            """)
        report, _ = self.run_json(["-m", "npu_compat", "scripts/show_argv.py", "a", "b", "--c"])
        self.assertEqual(report, {"argv": ["scripts/show_argv.py", "a", "b", "--c"],
                                  "name": "__main__", "active": True, "path0": True,
                                  "device": "cuda" if torch.cuda.is_available() else "cpu"})
        result = support.run_python(["-m", "npu_compat", "scripts/show_argv.py", "exit3"],
                                    self.dir)
        self.assertEqual(result.returncode, 3, result.stderr)

    def test_runner_runs_a_module(self):
        self.write("pkg_probe/__init__.py", "")
        self.write("pkg_probe/main.py", """
            import json, sys
            import npu_compat
            print(json.dumps({"argv": sys.argv[1:], "argv0": sys.argv[0], "name": __name__,
                              "active": npu_compat.is_active()}))
            """)
        report, _ = self.run_json(["-m", "npu_compat", "-m", "pkg_probe.main", "x", "-y"])
        self.assertEqual(report["argv"], ["x", "-y"])
        self.assertTrue(report["argv0"].endswith(os.path.join("pkg_probe", "main.py")))
        self.assertEqual(report["name"], "__main__")
        self.assertTrue(report["active"])

    def test_runner_on_the_fake_npu(self):
        self.write("uses_cuda.py", """
            import json
            import torch
            import npu_compat
            moved = []
            torch.Tensor.to = lambda self, *args, **kwargs: moved.append(args) or self
            torch.ones(3).cuda()  # an unchanged script's .cuda(): routed by the runner
            torch.cuda.synchronize()
            import torch_npu
            print(json.dumps({"device": npu_compat.get_device(), "moved": moved,
                              "cuda_available": torch.cuda.is_available(),
                              "calls": [c.name for c in torch_npu.calls]}))
            """)
        report, _ = self.run_json(["-m", "npu_compat", "uses_cuda.py"], fake=True)
        self.assertEqual(report, {"device": "npu", "moved": [["npu"]],
                                  "cuda_available": torch.cuda.is_available(),
                                  "calls": ["npu.synchronize"]})

    def test_runner_usage_errors(self):
        for args in ([], ["-m"], ["--bogus"]):
            result = support.run_python(["-m", "npu_compat"] + args, self.dir)
            self.assertEqual(result.returncode, 2, args)
            self.assertIn("usage: python -m npu_compat", result.stderr)
        result = support.run_python(["-m", "npu_compat", "--help"], self.dir)
        self.assertEqual((result.returncode, result.stdout.startswith("usage:")), (0, True))
        result = support.run_python(["-m", "npu_compat", "--info"], self.dir, fake=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("device=npu", result.stdout)
        self.assertIn("backend=hccl", result.stdout)


if __name__ == "__main__":
    warnings.simplefilter("default")
    unittest.main()
