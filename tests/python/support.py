"""Shared helpers of the template tests: rendering into a temporary directory, importing the
rendered modules, the recording fake of torch_npu, subprocesses with /usr/bin/python3."""

import contextlib
import importlib.util
import os
import subprocess
import sys
import tempfile
from unittest import mock

import render

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TEMPLATES = os.path.join(REPO, "templates")
FAKE_DIR = os.path.join(HERE, "fake_torch_npu")  # holds the package "torch_npu" (a FAKE)
PYTHON = "/usr/bin/python3"  # has Debian's python3-torch; the python3 on PATH may not
VARIABLES = {"tool_version": "0.0.0-test", "project": "test-project <&>"}
OPS_SECTIONS = ("op_flash_attn", "op_xformers", "op_rms_norm", "op_rotary", "op_swiglu")


def template_text(name):
    with open(os.path.join(TEMPLATES, name), encoding="utf-8") as handle:
        return handle.read()


def render_to(directory, template, module_name, sections=None):
    """Render templates/<template> into directory/<module_name>.py; all sections by default."""
    text = template_text(template)
    if sections is None:
        sections = render.section_names(text)
    path = os.path.join(directory, module_name + ".py")
    with open(path, "w", encoding="utf-8") as handle:
        variables = dict(VARIABLES, sections=" ".join(sorted(sections)) or "none")
        handle.write(render.render(text, sections, variables))
    return path


def load_module(path, name):
    """Import the file at ``path`` as a fresh module object called ``name`` (not registered in
    sys.modules, so every test module gets its own copy)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RenderedModule:
    """A temporary directory holding the rendered npu_compat.py and npu_ops.py."""

    def __init__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="npu_templates_")
        self.dir = self._tmp.name
        self.npu_compat = render_to(self.dir, "npu_compat.py.mustache", "npu_compat")
        self.npu_ops = render_to(self.dir, "npu_ops.py.mustache", "npu_ops")

    def cleanup(self):
        self._tmp.cleanup()


_fake = None


def fake_torch_npu():
    """The recording FAKE torch_npu module (loaded once from tests/python/fake_torch_npu)."""
    global _fake
    if _fake is None:
        path = os.path.join(FAKE_DIR, "torch_npu", "__init__.py")
        spec = importlib.util.spec_from_file_location("torch_npu", path)
        _fake = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_fake)
        # Like torch_npu, the fake registers torch.npu, Tensor.npu and Module.npu at import; in
        # this shared process that is undone here and redone by installed_fake() when wanted.
        _fake._unregister()
    return _fake


@contextlib.contextmanager
def installed_fake(device_count=1):
    """The fake importable as ``torch_npu`` (and torch.npu set) for the duration, recording
    from empty; yields the fake module."""
    fake = fake_torch_npu()
    fake.reset(device_count=device_count)
    with mock.patch.dict(sys.modules, {"torch_npu": fake}):
        fake._register()
        try:
            yield fake
        finally:
            fake._unregister()


def run_python(args, cwd, env_extra=None, fake=False, timeout=180):
    """Run /usr/bin/python3 with args; fake=True puts the FAKE torch_npu on PYTHONPATH."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES",
                          "PYTHONSTARTUP", "PYTHONWARNINGS")}
    path = [cwd]
    if fake:
        path.append(FAKE_DIR)
    env["PYTHONPATH"] = os.pathsep.join(path)
    env.update(env_extra or {})
    return subprocess.run([PYTHON] + list(args), cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
