"""Helpers of the verify script tests: rendering the kit's templates, building a target working
directory (adapted/, original/, kit/) by hand, running verify_npu.sh and reading its records."""

import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TEMPLATES = os.path.join(REPO, "templates")
sys.path.insert(0, os.path.join(REPO, "tests", "python"))
import render  # noqa: E402 - tests/python/render.py, the test renderer of the templates

PYTHON = "/usr/bin/python3"  # has Debian's python3-torch; the python3 on PATH may not
VARIABLES = {"tool_version": "0.0.0-test", "project": "tiny <&> project"}
OPS_SECTIONS = ("op_flash_attn", "op_xformers", "op_rms_norm", "op_rotary", "op_swiglu")
STATUSES = ("passed", "failed", "skipped", "error")
NPU_CHECKS = ("npu-devices", "driver", "cann")

# The small project verified: a package with a model, a training script writing its losses,
# a unittest; the adapted copy imports npu_compat as the emit stage makes adapted sources do.
PACKAGE_INIT = '"""A tiny project for the verify tests."""\n'
MODEL = '''import torch


def losses(steps, seed, scale=1.0):
    """Deterministic "training losses" computed with torch on the CPU."""
    torch.manual_seed(seed)
    weight = torch.randn(8, 8, dtype=torch.float64)
    return [float((weight @ weight).abs().mean()) * scale / (step + 1) for step in range(steps)]
'''
ADAPTED_PREFIX = ("import npu_compat  # added by migrate-pipeline\n"
                  "npu_compat.activate()\n")
TRAIN = '''import argparse
import json
import os

from tiny.model import losses

SCALE = {scale!r}

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=3)
parser.add_argument("--out-dir", required=True)
args = parser.parse_args()
with open(os.path.join(args.out_dir, "losses.json"), "w") as handle:
    json.dump({{"losses": losses(args.steps, 0, SCALE), "steps": args.steps}}, handle)
print("wrote", len(losses(args.steps, 0)), "losses")
'''
TEST_PASSING = '''import unittest

from tiny.model import losses


class LossesTest(unittest.TestCase):
    def test_one_loss_per_step(self):
        self.assertEqual(len(losses(3, 0)), 3)
'''
# Prints quotes, a backslash, control characters, bytes that are not UTF-8 and Chinese text,
# then fails: the record's output must still be valid JSON and keep the valid text.
TEST_FAILING = '''import sys
import unittest


class LossesTest(unittest.TestCase):
    def test_fails(self):
        sys.stdout.flush()
        sys.stdout.buffer.write(b'quote " backslash \\\\ tab\\t bell\\x07 bad \\xff\\xfe text '
                                b'\\xe4\\xb8\\xad\\xe6\\x96\\x87\\n')
        sys.stdout.flush()
        self.fail("losses are wrong")
'''
NASTY_DECODED = 'quote " backslash \\ tab\t bell\x07 bad \ufffd\ufffd text \u4e2d\u6587'


def template_text(name):
    with open(os.path.join(TEMPLATES, name), encoding="utf-8") as handle:
        return handle.read()


def render_template(name, sections=()):
    """templates/<name> rendered as the engine does for the kit."""
    variables = dict(VARIABLES, sections=" ".join(sections) or "none")
    return render.render(template_text(name), sections, variables)


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    if mode is not None:
        os.chmod(path, mode)
    return path


def load_verify_precision(directory):
    """The rendered verify_precision.py imported as a module (written into directory)."""
    path = write(os.path.join(directory, "verify_precision.py"),
                 render_template("verify_precision.py.mustache"))
    spec = importlib.util.spec_from_file_location("verify_precision", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_workdir(root, scale=1.0, failing_test=False, npu_ops_text=None, modules=None,
                  extra_files=None, benchmark=True, precision=True, tests=True):
    """A target working directory as the engine prepares it: adapted/ (with npu_compat.py and
    npu_ops.py), original/ and kit/ (the rendered scripts and verify_config.json).
    scale != 1 makes the adapted training compute different losses."""
    adapted, original = os.path.join(root, "adapted"), os.path.join(root, "original")
    write(os.path.join(adapted, "npu_compat.py"), render_template("npu_compat.py.mustache"))
    write(os.path.join(adapted, "npu_ops.py"),
          npu_ops_text or render_template("npu_ops.py.mustache", OPS_SECTIONS))
    for tree, prefix, train_scale in ((original, "", 1.0), (adapted, ADAPTED_PREFIX, scale)):
        write(os.path.join(tree, "tiny", "__init__.py"), PACKAGE_INIT)
        write(os.path.join(tree, "tiny", "model.py"), prefix + MODEL)
        write(os.path.join(tree, "train.py"), prefix + TRAIN.format(scale=train_scale))
        write(os.path.join(tree, "tests", "test_losses.py"),
              TEST_FAILING if failing_test and tree == adapted else TEST_PASSING)
    for relative, text in (extra_files or {}).items():
        write(os.path.join(root, relative), text)
    kit = os.path.join(root, "kit")
    write(os.path.join(kit, "verify_npu.sh"), render_template("verify_npu.sh.mustache"), 0o755)
    write(os.path.join(kit, "verify_precision.py"),
          render_template("verify_precision.py.mustache"))
    config = {
        "project": "tiny",
        "modules": modules if modules is not None else ["tiny", "tiny.model", "train_helpers"],
        "has_npu_ops": True,
        "tests": {"command": "{python} -m unittest discover -s tests", "cwd": "adapted"}
        if tests else None,
        "precision": [{"name": "train", "command": "{python} train.py --steps 4 --out-dir {out}",
                       "outputs": ["losses.json"], "rtol": 1e-7, "atol": 1e-9}]
        if precision else [],
        "benchmark": benchmark,
        "torch_npu_pairs": "torch_npu X.Y.Z[.postN] works only with torch X.Y.Z",
    }
    write(os.path.join(kit, "verify_config.json"), json.dumps(config, indent=2))
    write(os.path.join(adapted, "train_helpers.py"), "STEPS = 4\n")
    return root


def clean_environment(home, extra=None):
    """The environment of a run: no inherited Python path, device selection or CANN settings."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "ASCEND_", "CUDA_", "LD_PRELOAD"))}
    env["HOME"] = home
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra or {})
    return env


class Run:
    """One run of verify_npu.sh: exit status, printed text and the records it added."""

    def __init__(self, completed, records):
        self.returncode = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        self.records = records

    def find(self, stage, check):
        matches = [r for r in self.records if r["stage"] == stage and r["check"] == check]
        if len(matches) != 1:
            raise AssertionError("%d records for %s/%s in:\n%s" % (
                len(matches), stage, check, self.stdout))
        return matches[0]

    def checks(self, stage):
        return [r["check"] for r in self.records if r["stage"] == stage]

    def __repr__(self):
        return "exit %s\n--- stdout\n%s\n--- stderr\n%s" % (self.returncode, self.stdout,
                                                            self.stderr)


def read_records(path):
    """Every line of a results file as a record, checked against the record format."""
    records = []
    if not os.path.exists(path):
        return records
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, 1):
            record = json.loads(line.decode("utf-8"))  # strict: invalid JSON or UTF-8 raises
            assert isinstance(record, dict), "line %d is not an object" % number
            for key, kind in (("stage", str), ("check", str), ("status", str), ("detail", str),
                              ("duration", (int, float))):
                assert isinstance(record.get(key), kind), "line %d: bad %s: %r" % (
                    number, key, record)
            assert record["status"] in STATUSES, record
            assert "\n" not in record["detail"], record
            assert isinstance(record.get("output", ""), str), record
            records.append(record)
    return records


def run_script(root, args, env, cwd=None, script=None, timeout=240):
    """bash kit/verify_npu.sh ARGS with cwd root (as the engine runs it); the records are those
    added to root/results/verify_results.jsonl by this run."""
    results = os.path.join(root, "results", "verify_results.jsonl")
    args = list(args)
    whole = "--stage" not in args or args[args.index("--stage") + 1] == "all"  # starts afresh
    before = 0 if whole else len(read_records(results))
    completed = subprocess.run(
        ["bash", script or os.path.join(root, "kit", "verify_npu.sh")] + list(args),
        cwd=cwd or root, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        errors="replace", timeout=timeout)
    return Run(completed, read_records(results)[before:])
