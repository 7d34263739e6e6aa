"""npu_compat.activate() without torch_npu: the zero-device torch.npu and the other stand-ins
that let adapted sources (CUDA spellings rewritten to NPU spellings) run on a CPU host as the
original ran there.

In-process tests compare the stand-ins with what torch.cuda answers on this CUDA-less host;
the recording FAKE torch_npu checks that nothing is installed where torch_npu imports.
test_npu_compat_adapted_script.py runs an adapted script against its CUDA original.
"""

import glob
import os
import sys
import types
import unittest
import warnings
from unittest import mock

import torch
import torch.distributed as dist
import yaml

import support

_rendered = None
compat = None


def setUpModule():
    global _rendered, compat
    _rendered = support.RenderedModule()
    compat = support.load_module(_rendered.npu_compat, "npu_compat_no_npu_under_test")


def tearDownModule():
    _rendered.cleanup()


def needs_cuda_less_host(test):
    """The comparisons with torch.cuda assume torch.cuda has no device here."""
    return unittest.skipIf(torch.cuda.is_available(), "this host has CUDA")(test)


def activated(case):
    """activate() for the duration of a test (deactivated even when the test fails)."""
    case.assertNotIn("torch_npu", sys.modules)
    compat.activate()
    case.addCleanup(compat.deactivate)


def user_warnings(caught):
    return [w for w in caught if w.category is UserWarning]


def fixed_names():
    """(dotted names, Tensor/Module methods, Tensor attributes) that the fixes of the device,
    distributed and precision rules write into adapted sources."""
    dotted, methods, attributes = set(), set(), set()
    pattern = os.path.join(support.REPO, "plugins", "%s", "rules", "*.yaml")
    for plugin in ("device", "distributed", "precision"):
        for path in sorted(glob.glob(pattern % plugin)):
            with open(path, encoding="utf-8") as handle:
                catalog = yaml.safe_load(handle)
            for rule in catalog["rules"]:
                fix, match = rule.get("fix") or {}, rule.get("match") or {}
                entries = match.get("api") or []
                if fix.get("replace_api"):
                    dotted.update(entry["npu"] for entry in entries)
                rename = fix.get("rename")
                if rename and entries:
                    for entry in entries:
                        name = entry if isinstance(entry, str) else entry["name"]
                        dotted.add(".".join(rename["to"] if part == rename["from"] else part
                                            for part in name.split(".")))
                if rename and "method" in match:
                    methods.add(rename["to"])
                if rename and "attribute" in match:
                    attributes.add(rename["to"])
    return dotted, methods, attributes


class ZeroDeviceTorchNpu(unittest.TestCase):
    """torch.npu answers as torch.cuda does without CUDA."""

    def setUp(self):
        activated(self)
        self.npu = torch.npu

    def test_installed_only_by_activate(self):
        self.assertIsInstance(self.npu, compat._NoNpu)
        compat.deactivate()
        self.assertFalse(hasattr(torch, "npu"))

    @needs_cuda_less_host
    def test_queries_answer_like_torch_cuda(self):
        for name in ("is_available", "device_count", "is_initialized", "memory_stats",
                     "memory_allocated", "max_memory_allocated", "memory_reserved",
                     "max_memory_reserved", "get_rng_state_all", "empty_cache",
                     "manual_seed_all", "seed_all", "seed"):
            args = (7,) if name == "manual_seed_all" else ()
            self.assertEqual(getattr(self.npu, name)(*args), getattr(torch.cuda, name)(*args),
                             name)
        self.assertIs(self.npu.is_bf16_supported(), False)
        self.assertIs(self.npu.is_current_stream_capturing(), False)
        self.assertEqual(self.npu.memory_allocated(0), 0)

    def test_seeding_is_a_no_op(self):
        cpu_state = torch.get_rng_state()
        for function in (self.npu.manual_seed, self.npu.manual_seed_all,
                         self.npu.random.manual_seed):
            self.assertIsNone(function(1234))
        self.npu.seed_all()
        self.npu.set_rng_state_all([])
        self.assertTrue(torch.equal(torch.get_rng_state(), cpu_state))

    def test_device_work_raises(self):
        for name in list(compat._NO_NPU_RAISING) + list(compat._NO_NPU_CLASSES):
            with self.assertRaises(compat.NpuUnavailableError, msg=name) as raised:
                getattr(self.npu, name)(0)
            self.assertIsInstance(raised.exception, RuntimeError)
            self.assertIsInstance(raised.exception, AssertionError)  # CPU builds of torch
            self.assertIn("torch_npu is not installed", str(raised.exception))
            self.assertIn(name, str(raised.exception))
        with self.assertRaises(compat.NpuUnavailableError):
            self.npu._sanitizer.enable_npu_sanitizer()
        with self.assertRaises(RuntimeError):
            self.npu.set_device(0)
        with self.assertRaises(RuntimeError):
            self.npu.set_device("npu:1")

    def test_no_op_contexts_like_cuda(self):
        with self.npu.device_of(torch.ones(1)):
            pass
        with self.npu.device(-1), self.npu.stream(None), self.npu.StreamContext(None):
            pass
        self.assertIsNone(self.npu.set_stream(None))
        self.assertIsNone(self.npu.set_device(-1))
        with self.assertRaises(compat.NpuUnavailableError):
            with self.npu.device("npu:0"):
                pass
        with self.assertRaises(compat.NpuUnavailableError):
            self.npu.stream(object())
        with self.assertRaises(ValueError):
            self.npu.device("cpu")

    def test_unknown_names_are_attribute_errors(self):
        with self.assertRaisesRegex(AttributeError, "torch.npu has no attribute 'bogus'"):
            self.npu.bogus
        self.assertFalse(hasattr(self.npu.amp, "bogus"))

    def test_profiler_markers_record_nothing(self):
        self.assertIsNone(self.npu.mstx.range_push("step"))
        self.assertIsNone(self.npu.mstx.range_pop())

        @self.npu.mstx.annotate("forward")
        def forward(value):
            return value * 2

        self.assertEqual(forward(21), 42)
        with self.npu.mstx.annotate("block"):
            pass

    def test_every_name_the_fixes_write_exists(self):
        dotted, methods, attributes = fixed_names()
        outside_torch = {name for name in dotted if not name.startswith("torch.")}
        self.assertTrue(all(name.startswith("torch_npu.") for name in outside_torch),
                        outside_torch)  # torch_npu.profiler (DEV-044): no stand-in possible
        checked = sorted(dotted - outside_torch)
        self.assertIn("torch.npu.NPUGraph", checked)
        self.assertIn("torch.distributed.is_hccl_available", checked)
        for name in checked:
            value = torch
            for part in name.split(".")[1:]:
                self.assertTrue(hasattr(value, part), "%s: no %s" % (name, part))
                value = getattr(value, part)
        for name in methods:
            self.assertTrue(callable(getattr(torch.Tensor, name, None)), name)
            self.assertTrue(callable(getattr(torch.nn.Module, name, None)), name)
        for name in attributes:
            self.assertTrue(hasattr(torch.ones(1), name), name)


class MixedPrecision(unittest.TestCase):
    def setUp(self):
        activated(self)
        self.a, self.b = torch.randn(4, 4), torch.randn(4, 4)

    def test_npu_autocast_is_disabled_with_a_warning(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with torch.npu.amp.autocast(dtype=torch.bfloat16) as context:
                self.assertIsNone(context)  # as torch's autocast
                self.assertEqual(torch.mm(self.a, self.b).dtype, torch.float32)
            with torch.npu.amp.autocast(enabled=False):
                pass
        (warning,) = user_warnings(caught)
        self.assertIn("torch_npu is not installed", str(warning.message))
        self.assertEqual(warning.filename, __file__)  # points at the caller
        self.assertIsInstance(torch.npu.amp.autocast(enabled=False), torch.autocast)

    @needs_cuda_less_host
    def test_warns_as_cuda_autocast_does_without_cuda(self):
        counts = []
        for make in (lambda: torch.cuda.amp.autocast(), lambda: torch.npu.amp.autocast(),
                     lambda: torch.autocast("cuda"), lambda: torch.autocast("npu")):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with make():
                    result = torch.mm(self.a, self.b)
            counts.append((len(user_warnings(caught)), result.dtype))
        self.assertEqual(counts, [counts[0]] * 4)

    def test_cpu_autocast_unaffected(self):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with torch.npu.amp.autocast(), torch.autocast(device_type="npu"):
                    self.assertEqual(torch.mm(self.a, self.b).dtype, torch.bfloat16)
        self.assertEqual(torch.mm(self.a, self.b).dtype, torch.float32)

    def test_autocast_as_decorator(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")

            @torch.npu.amp.autocast()
            def product(a, b):
                return torch.mm(a, b)

            @torch.autocast("cpu", dtype=torch.bfloat16)
            def cpu_product(a, b):
                return torch.mm(a, b)

        self.assertTrue(torch.equal(product(self.a, self.b), torch.mm(self.a, self.b)))
        self.assertEqual(cpu_product(self.a, self.b).dtype, torch.bfloat16)

    def test_grad_scaler_is_disabled(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scaler = torch.npu.amp.GradScaler(init_scale=1024.0)
            quiet = torch.npu.amp.GradScaler(enabled=False)
        self.assertEqual(len(user_warnings(caught)), 1)
        self.assertFalse(scaler.is_enabled() or quiet.is_enabled())
        layer = torch.nn.Linear(2, 1)
        optimizer = torch.optim.SGD(layer.parameters(), lr=0.5)
        before = layer.weight.detach().clone()
        loss = layer(torch.ones(1, 2)).sum()
        self.assertIs(scaler.scale(loss), loss)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        self.assertFalse(torch.equal(layer.weight, before))  # the optimizer really stepped
        self.assertEqual(scaler.state_dict(), torch.cuda.amp.GradScaler(enabled=False)
                         .state_dict())

    def test_custom_fwd_and_bwd_leave_the_function_alone(self):
        class Square(torch.autograd.Function):
            @staticmethod
            @torch.npu.amp.custom_fwd(cast_inputs=torch.float16)
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @torch.npu.amp.custom_bwd
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 2 * x * grad

        x = torch.tensor([3.0], requires_grad=True)
        y = Square.apply(x)
        y.backward()
        self.assertEqual((y.dtype, y.item(), x.grad.item()), (torch.float32, 9.0, 6.0))


class TensorsModulesDistributed(unittest.TestCase):
    def test_tensor_and_module_spellings(self):
        activated(self)
        self.assertIs(torch.ones(1).is_npu, False)
        fake_npu_tensor = types.SimpleNamespace(device=types.SimpleNamespace(type="npu"))
        self.assertIs(torch.Tensor.is_npu.fget(fake_npu_tensor), True)
        with self.assertRaisesRegex(compat.NpuUnavailableError, r"Tensor\.npu\(\)"):
            torch.ones(1).npu(non_blocking=True)
        with self.assertRaisesRegex(compat.NpuUnavailableError, r"Module\.npu\(\)"):
            torch.nn.Linear(1, 1).npu()

    def test_distributed_names(self):
        if not dist.is_available():
            self.skipTest("torch.distributed is not available")
        calls = []

        def record_init(*args, **kwargs):
            calls.append(("init", args, kwargs))

        def record_new_group(*args, **kwargs):
            calls.append(("new_group", args, kwargs))

        with mock.patch.object(dist, "init_process_group", record_init), \
                mock.patch.object(dist, "new_group", record_new_group):
            activated(self)
            self.assertIs(dist.is_hccl_available(), False)
            self.assertIs(dist.distributed_c10d.is_hccl_available(), False)
            self.assertEqual(dist.Backend.HCCL, "hccl")
            for spelling in ("hccl", "HCCL", "cpu:gloo,npu:hccl"):
                with self.assertRaisesRegex(compat.NpuUnavailableError, "process-group"):
                    dist.init_process_group(spelling, rank=0, world_size=1)
                with self.assertRaises(compat.NpuUnavailableError):
                    dist.new_group(backend=spelling)
            dist.init_process_group("gloo", rank=0, world_size=1)
            dist.new_group([0], None, "gloo")
            self.assertEqual(calls, [("init", ("gloo",), {"rank": 0, "world_size": 1}),
                                     ("new_group", ([0], None, "gloo"), {})])
            compat.deactivate()
            self.assertIs(dist.init_process_group, record_init)
        self.assertFalse(hasattr(dist, "is_hccl_available"))
        self.assertFalse(hasattr(dist.Backend, "HCCL"))


class Activation(unittest.TestCase):
    def setUp(self):
        self.addCleanup(compat.deactivate)

    def snapshot(self):
        owners = (torch, torch.Tensor, torch.nn.Module, torch.amp, dist, dist.distributed_c10d,
                  dist.Backend, torch.cuda)
        return [dict(vars(owner)) for owner in owners]

    def test_deactivate_restores_everything(self):
        before = self.snapshot()
        is_available = torch.cuda.is_available
        compat.activate()
        self.assertIs(torch.cuda.is_available, is_available)
        self.assertEqual(torch.cuda.is_available(), is_available())
        self.assertNotEqual(self.snapshot(), before)
        compat.deactivate()
        self.assertEqual(self.snapshot(), before)

    def test_activate_is_idempotent(self):
        compat.activate()
        npu, autocast, patches = torch.npu, torch.autocast, list(compat._patches)
        compat.activate()
        self.assertIs(torch.npu, npu)
        self.assertEqual(compat._patches, patches)
        second = support.load_module(_rendered.npu_compat, "npu_compat_second_copy")
        self.addCleanup(second.deactivate)
        second.activate()
        self.assertEqual((torch.npu, torch.autocast, second._patches), (npu, autocast, []))

    def test_existing_attributes_are_kept(self):
        mine = types.SimpleNamespace(is_available=lambda: "mine")
        with mock.patch.object(torch, "npu", mine, create=True):
            compat.activate()
            self.assertIs(torch.npu, mine)
            self.assertIs(torch.ones(1).is_npu, False)  # still added: it was absent
            compat.deactivate()
            self.assertIs(torch.npu, mine)
        self.assertFalse(hasattr(torch.Tensor, "is_npu"))

    def test_deactivate_keeps_what_replaced_a_stand_in(self):
        compat.activate()
        replacement = types.SimpleNamespace()
        torch.npu = replacement  # e.g. torch_npu imported afterwards
        self.addCleanup(lambda: vars(torch).pop("npu", None))
        compat.deactivate()
        self.assertIs(torch.npu, replacement)

    def test_unimportable_torch_npu(self):
        with mock.patch.dict(sys.modules, {"torch_npu": None}), mock.patch.dict(os.environ):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                compat.activate()
            self.assertTrue(any("cannot be imported" in str(w.message) for w in caught))
            self.assertIsInstance(torch.npu, compat._NoNpu)
            with self.assertRaisesRegex(RuntimeError, "installed but cannot be imported"):
                torch.npu.synchronize()


class WithTorchNpu(unittest.TestCase):
    """The recording FAKE torch_npu imports: it provides torch.npu, nothing is stood in."""

    def setUp(self):
        patcher = mock.patch.dict(os.environ)
        patcher.start()
        self.addCleanup(patcher.stop)
        for key in ("CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES"):
            os.environ.pop(key, None)

    def check(self, device_count):
        autocast = torch.autocast
        with support.installed_fake(device_count=device_count) as fake:
            compat.activate()
            try:
                self.assertIs(torch.npu, fake.npu)
                self.assertFalse(hasattr(torch.Tensor, "is_npu"))
                self.assertFalse(hasattr(dist, "is_hccl_available"))
                self.assertFalse(hasattr(dist.Backend, "HCCL"))
                self.assertNotIsInstance(torch.npu, compat._NoNpu)
                return torch.autocast is autocast, list(compat._patches)
            finally:
                compat.deactivate()

    def test_without_device_nothing_is_added(self):
        self.assertEqual(self.check(device_count=0), (True, []))

    def test_with_device_only_the_npu_routing(self):
        unchanged, patches = self.check(device_count=1)
        self.assertFalse(unchanged)  # torch.autocast("cuda") routed to the NPU
        self.assertFalse(any(isinstance(original, compat._Added) for _, _, original in patches))


if __name__ == "__main__":
    unittest.main()
