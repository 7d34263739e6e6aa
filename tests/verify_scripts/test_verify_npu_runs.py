"""verify_npu.sh run for real on this host (no NPU; /usr/bin/python3 with CPU torch) on small
working directories built by hand: every stage as the engine runs them, a project with failing
checks, and an interpreter that does not exist."""

import concurrent.futures
import os
import re
import tempfile
import unittest

import support

# The public wrappers of npu_ops.py with every section (tests/python/test_templates.py OPS_API).
NPU_OPS_WRAPPERS = (
    "LowerTriangularFromBottomRightMask", "LowerTriangularMask", "RMSNorm", "apply_rotary_emb",
    "flash_attn_func", "flash_attn_kvpacked_func", "flash_attn_qkvpacked_func",
    "flash_attn_varlen_func", "flash_attn_varlen_kvpacked_func",
    "flash_attn_varlen_qkvpacked_func", "memory_efficient_attention", "rms_norm", "swiglu")
HUMAN_LINE = re.compile(r"^\[(\w+)\] (\S+): (passed|failed|skipped|error) \((\d+\.\d\d) s\) (.*)$",
                        re.M)
SWIGLU_MATH = "return (torch.nn.functional.silu(a) * b).to(x.dtype)"
BROKEN_MODULES = {
    "adapted/raises_at_import.py": "raise RuntimeError('boom at import')\n",
    "adapted/killed_at_import.py":
        "import os\nimport signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
    "adapted/exits_at_import.py": "import sys\nprint('leaving early')\nsys.exit(3)\n",
}
ENGINE_WORKDIR = "work dir's \"quoted\""

_tmp = None
runs = {}


def _engine_like(base):
    """Each stage run separately with cwd WORKDIR, as the engine does; WORKDIR and the
    interpreter's path contain spaces and quotes."""
    root = support.build_workdir(os.path.join(base, ENGINE_WORKDIR))
    python = os.path.join(base, "python bin", "python3")
    os.makedirs(os.path.dirname(python))
    os.symlink(support.PYTHON, python)
    env = support.clean_environment(base)
    return [support.run_script(root, ["--stage", stage, "--python", python, "--root", root], env)
            for stage in ("environment", "imports", "function", "precision", "benchmark")]


def _broken(base):
    """--stage all on a project whose test fails, whose adapted training computes other losses,
    some of whose modules fail at import, and whose npu_ops.swiglu computes the wrong thing."""
    ops = support.render_template("npu_ops.py.mustache", support.OPS_SECTIONS)
    assert SWIGLU_MATH in ops
    ops = ops.replace(SWIGLU_MATH, "return (torch.nn.functional.silu(b) * a).to(x.dtype)")
    root = support.build_workdir(
        os.path.join(base, "broken"), scale=1.001, failing_test=True, npu_ops_text=ops,
        modules=["tiny", "raises_at_import", "killed_at_import", "exits_at_import", "tiny.model"],
        extra_files=BROKEN_MODULES)
    env = support.clean_environment(base)
    return support.run_script(root, ["--python", support.PYTHON, "--root", root], env,
                              cwd=base)


def _no_interpreter(base):
    root = support.build_workdir(os.path.join(base, "no interpreter"))
    env = support.clean_environment(base)
    missing = support.run_script(root, ["--python", os.path.join(base, "no such dir", "python3")],
                                 env)
    broken = support.run_script(root, ["--stage", "imports", "--python", "false"], env)
    return missing, broken


def setUpModule():
    """The runs take a few seconds each: they run side by side, the tests read their records."""
    global _tmp
    _tmp = tempfile.TemporaryDirectory(prefix="verify_runs_")
    jobs = {"engine": _engine_like, "broken": _broken, "no_interpreter": _no_interpreter}
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {}
        for name, job in jobs.items():
            base = os.path.join(_tmp.name, name)
            os.makedirs(base)
            futures[name] = pool.submit(job, base)
        for name, future in futures.items():
            runs[name] = future.result()


def tearDownModule():
    _tmp.cleanup()


def assert_human_lines(test, run):
    lines = HUMAN_LINE.findall(run.stdout)
    test.assertEqual([(stage, check, status) for stage, check, status, _, _ in lines],
                     [(r["stage"], r["check"], r["status"]) for r in run.records], run)


class EveryStageOnThisHost(unittest.TestCase):
    """A healthy project on a host without an NPU: every stage passes or skips with the reason."""

    @classmethod
    def setUpClass(cls):
        cls.stages = {run.records[0]["stage"]: run for run in runs["engine"]}

    def test_each_stage_exits_0_and_prints_a_line_per_record(self):
        self.assertEqual(list(self.stages),
                         ["environment", "imports", "function", "precision", "benchmark"])
        for stage, run in self.stages.items():
            self.assertEqual(run.returncode, 0, run)
            self.assertEqual({r["stage"] for r in run.records}, {stage})
            assert_human_lines(self, run)

    def test_environment(self):
        run = self.stages["environment"]
        self.assertEqual(run.checks("environment"), ["npu-devices", "driver", "cann", "python",
                                                     "torch", "torch_npu", "versions-match"])
        for check in support.NPU_CHECKS:
            self.assertEqual(run.find("environment", check)["status"], "skipped")
            self.assertTrue(run.find("environment", check)["detail"].startswith("no NPU device"))
        python = run.find("environment", "python")
        self.assertEqual(python["status"], "passed")
        self.assertRegex(python["detail"], r"^Python 3\.\d+\.\d+ \(.*python bin/python3\)$")
        torch = run.find("environment", "torch")
        self.assertEqual(torch["status"], "passed")
        import torch as real_torch
        self.assertEqual(torch["detail"], "torch " + real_torch.__version__)
        for check in ("torch_npu", "versions-match"):
            self.assertEqual((run.find("environment", check)["status"],
                              run.find("environment", check)["detail"]),
                             ("skipped", "torch_npu is not installed"))

    def test_imports(self):
        run = self.stages["imports"]
        self.assertEqual(run.checks("imports"),
                         ["npu_compat", "npu_ops", "tiny", "tiny.model", "train_helpers"])
        self.assertEqual({r["status"] for r in run.records}, {"passed"}, run)
        self.assertEqual(run.find("imports", "tiny.model")["detail"],
                         "imported from " + os.path.join("tiny", "model.py"))

    def test_function(self):
        run = self.stages["function"]
        tests = run.find("function", "tests")
        self.assertEqual(tests["status"], "passed")
        self.assertEqual(tests["detail"], "exit status 0: OK")
        self.assertIn("Ran 1 test", tests["output"])
        info = run.find("function", "npu-compat-info")
        self.assertEqual(info["status"], "passed")
        self.assertRegex(info["detail"], r"^exit status 0: device=cpu count=1 backend=gloo ")
        round_trip = run.find("function", "device-round-trip")
        self.assertEqual(round_trip["status"], "passed")
        self.assertTrue(round_trip["detail"].startswith("device=cpu: "))
        ops = [check for check in run.checks("function") if check.startswith("npu-ops:")]
        self.assertEqual(ops, ["npu-ops:" + name for name in NPU_OPS_WRAPPERS])
        for check in ops:
            record = run.find("function", check)
            self.assertEqual(record["status"], "passed", record)
            self.assertRegex(record["detail"], r"^max_abs=\S+ against plain PyTorch, float32")
        on_npu = run.find("function", "npu-ops-on-npu")
        self.assertEqual((on_npu["status"], on_npu["detail"]),
                         ("skipped", "no NPU device: torch_npu is not installed"))

    def test_precision(self):
        run = self.stages["precision"]
        record = run.find("precision", "train:losses.json")
        self.assertEqual(record["status"], "passed")
        self.assertEqual(record["detail"],
                         "max_abs=0 mean_abs=0 rtol=1e-07 atol=1e-09 allclose=True (5 values)")
        outputs = os.path.join(_tmp.name, "engine", ENGINE_WORKDIR, "results", "precision",
                               "train")
        for side in ("reference", "candidate"):
            self.assertTrue(os.path.isfile(os.path.join(outputs, side, "losses.json")), side)

    def test_benchmark(self):
        record = self.stages["benchmark"].find("benchmark", "train")
        self.assertEqual(record["status"], "passed")
        self.assertRegex(record["detail"],
                         r"^reference=\d+\.\d\d s candidate=\d+\.\d\d s ratio=\d+\.\d\d ")

    def test_no_npu_check_passes_without_an_npu(self):
        npu_checks = {("environment", check) for check in support.NPU_CHECKS}
        npu_checks |= {("environment", "torch_npu"), ("environment", "versions-match"),
                       ("function", "npu-ops-on-npu")}
        for run in self.stages.values():
            for record in run.records:
                if (record["stage"], record["check"]) in npu_checks:
                    self.assertEqual(record["status"], "skipped", record)


class FailingChecks(unittest.TestCase):
    """Failures are recorded with their output and the later checks and stages still run."""

    @classmethod
    def setUpClass(cls):
        cls.outcome = runs["broken"]

    def test_exit_status_1_and_every_stage_ran(self):
        self.assertEqual(self.outcome.returncode, 1, self.outcome)
        self.assertEqual(list(dict.fromkeys(r["stage"] for r in self.outcome.records)),
                         ["environment", "imports", "function", "precision", "benchmark"])
        self.assertEqual(self.outcome.find("benchmark", "train")["status"], "passed")
        self.assertIn("failed", self.outcome.stdout.splitlines()[-1])
        assert_human_lines(self, self.outcome)

    def test_each_import_is_isolated(self):
        statuses = {check: self.outcome.find("imports", check)
                    for check in self.outcome.checks("imports")}
        self.assertEqual(statuses["raises_at_import"]["status"], "failed")
        self.assertEqual(statuses["raises_at_import"]["detail"], "RuntimeError: boom at import")
        self.assertIn("raises_at_import.py", statuses["raises_at_import"]["output"])
        self.assertEqual(statuses["killed_at_import"]["detail"], "crashed with signal 9")
        self.assertEqual(statuses["exits_at_import"]["detail"], "SystemExit: 3")
        self.assertIn("leaving early", statuses["exits_at_import"]["output"])
        for check in ("npu_compat", "npu_ops", "tiny", "tiny.model"):
            self.assertEqual(statuses[check]["status"], "passed", check)

    def test_failing_tests_keep_their_output(self):
        tests = self.outcome.find("function", "tests")
        self.assertEqual(tests["status"], "failed")
        self.assertEqual(tests["detail"], "exit status 1: FAILED (failures=1)")
        self.assertIn(support.NASTY_DECODED, tests["output"])
        self.assertIn("losses are wrong", tests["output"])

    def test_a_wrong_npu_ops_wrapper_fails(self):
        swiglu = self.outcome.find("function", "npu-ops:swiglu")
        self.assertEqual(swiglu["status"], "failed")
        self.assertGreater(float(re.match(r"max_abs=(\S+) ", swiglu["detail"]).group(1)), 0.1)
        self.assertEqual(self.outcome.find("function", "npu-ops:rms_norm")["status"], "passed")

    def test_precision_mismatch_fails_with_the_numbers(self):
        record = self.outcome.find("precision", "train:losses.json")
        self.assertEqual(record["status"], "failed")
        match = re.match(r"max_abs=(\S+) mean_abs=(\S+) rtol=1e-07 atol=1e-09 allclose=False "
                         r"\(5 values\)$", record["detail"])
        self.assertIsNotNone(match, record)
        self.assertGreater(float(match.group(1)), 0)
        self.assertGreater(float(match.group(1)), float(match.group(2)))


class MissingInterpreter(unittest.TestCase):
    def test_every_python_check_is_an_error(self):
        run = runs["no_interpreter"][0]
        self.assertEqual(run.returncode, 2, run)
        statuses = {(r["stage"], r["check"]): r["status"] for r in run.records}
        self.assertEqual(statuses, {
            ("environment", "npu-devices"): "skipped", ("environment", "driver"): "skipped",
            ("environment", "cann"): "skipped", ("environment", "python"): "error",
            ("environment", "torch"): "error", ("environment", "torch_npu"): "error",
            ("environment", "versions-match"): "error", ("imports", "npu_compat"): "error",
            ("function", "tests"): "error", ("function", "npu-compat-info"): "error",
            ("function", "device-round-trip"): "error", ("precision", "precision"): "error",
            ("benchmark", "benchmark"): "error"})
        self.assertRegex(run.find("environment", "python")["detail"],
                         r"^interpreter '.*no such dir/python3' not found \(--python\)$")

    def test_an_interpreter_that_fails(self):
        run = runs["no_interpreter"][1]
        self.assertEqual(run.returncode, 2, run)
        self.assertEqual(run.find("imports", "npu_compat")["detail"],
                         "interpreter 'false' does not run (--python)")


if __name__ == "__main__":
    unittest.main()
