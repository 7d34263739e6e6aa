"""verify_precision.py rendered from its template: compare_files() for every format and at the
tolerance edges, the --compare command line, and the precision / benchmark stages on small
shell commands (the full stage on a Python project is in test_verify_npu_runs.py)."""

import json
import math
import os
import subprocess
import tempfile
import unittest

import numpy
import torch

import support


class VerifyPrecisionCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="verify_precision_")
        cls.dir = cls._tmp.name
        cls.vp = support.load_verify_precision(os.path.join(cls.dir, "module"))
        cls.counter = 0

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def path(self, suffix):
        type(self).counter += 1
        return os.path.join(self.dir, "f%d%s" % (self.counter, suffix))

    def json_file(self, value):
        path = self.path(".json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(value, handle)
        return path

    def text_file(self, text, suffix=".txt"):
        path = self.path(suffix)
        with open(path, "wb") as handle:
            handle.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        return path

    def compare_json(self, reference, candidate, **tolerances):
        return self.vp.compare_files(self.json_file(reference), self.json_file(candidate),
                                     **tolerances)


class CompareJson(VerifyPrecisionCase):
    def test_equal_nested_values(self):
        value = {"losses": [1.5, 2.25, [3, 4]], "name": "run", "ok": True, "none": None}
        result = self.compare_json(value, value)
        self.assertTrue(result["allclose"])
        self.assertEqual((result["max_abs"], result["mean_abs"], result["elements"]),
                         (0.0, 0.0, 4))
        self.assertIsNone(result["mismatch"])
        self.assertEqual(result["format"], "json")

    def test_statistics_of_differences(self):
        result = self.compare_json([1.0, 2.0, 4.0], [1.5, 2.0, 3.0], rtol=0.0, atol=0.1)
        self.assertFalse(result["allclose"])
        self.assertEqual(result["max_abs"], 1.0)
        self.assertAlmostEqual(result["mean_abs"], 0.5)
        self.assertEqual((result["rtol"], result["atol"]), (0.0, 0.1))

    def test_tolerance_is_atol_plus_rtol_times_the_reference(self):
        # |c - r| <= atol + rtol * |r|: exact binary values on both sides of the edge
        self.assertTrue(self.compare_json([1.0], [1.5], rtol=0.0, atol=0.5)["allclose"])
        self.assertFalse(self.compare_json([1.0], [1.5000001], rtol=0.0, atol=0.5)["allclose"])
        self.assertTrue(self.compare_json([4.0], [5.0], rtol=0.25, atol=0.0)["allclose"])
        self.assertFalse(self.compare_json([4.0], [5.5], rtol=0.25, atol=0.0)["allclose"])
        # relative to the reference, not the candidate (numpy.allclose(candidate, reference))
        self.assertTrue(self.compare_json([5.0], [4.0], rtol=0.2, atol=0.0)["allclose"])
        self.assertFalse(self.compare_json([4.0], [5.0], rtol=0.2, atol=0.0)["allclose"])

    def test_atol_matters_near_zero(self):
        self.assertTrue(self.compare_json([0.0], [1e-9], rtol=1e-5, atol=1e-8)["allclose"])
        self.assertFalse(self.compare_json([0.0], [1e-9], rtol=1e-5, atol=0.0)["allclose"])

    def test_default_tolerances_are_numpys(self):
        result = self.compare_json([1.0], [1.0 + 5e-6])
        self.assertEqual((result["rtol"], result["atol"]), (1e-5, 1e-8))
        self.assertTrue(result["allclose"])
        self.assertEqual(numpy.allclose([1.0 + 2e-5], [1.0]),
                         self.compare_json([1.0], [1.0 + 2e-5])["allclose"])

    def test_nan_is_never_close_and_shows(self):
        path = self.text_file("1.0 nan")
        result = self.vp.compare_files(path, path)
        self.assertFalse(result["allclose"])
        self.assertTrue(math.isnan(result["max_abs"]))

    def test_infinities(self):
        same = self.vp.compare_files(self.text_file("inf -inf 1"), self.text_file("inf -inf 1"))
        self.assertTrue(same["allclose"])
        self.assertEqual(same["max_abs"], 0.0)
        other = self.vp.compare_files(self.text_file("inf"), self.text_file("-inf"))
        self.assertFalse(other["allclose"])
        self.assertEqual(other["max_abs"], math.inf)

    def test_non_numbers_must_be_equal(self):
        result = self.compare_json({"losses": [1.0], "device": "cpu"},
                                   {"losses": [1.0], "device": "npu"})
        self.assertFalse(result["allclose"])
        self.assertIn("$.device", result["mismatch"])
        self.assertIn("'cpu' vs 'npu'", result["mismatch"])

    def test_booleans_are_not_numbers(self):
        result = self.compare_json([True], [1])
        self.assertFalse(result["allclose"])
        self.assertIn("$[0]", result["mismatch"])

    def test_structure_differences(self):
        lengths = self.compare_json({"a": [1, 2, 3]}, {"a": [1, 2]})
        self.assertFalse(lengths["allclose"])
        self.assertIn("length 3 vs 2 at $.a", lengths["mismatch"])
        keys = self.compare_json({"a": 1, "b": 2}, {"a": 1, "c": 2})
        self.assertFalse(keys["allclose"])
        self.assertIn("['b']", keys["mismatch"])
        self.assertIn("['c']", keys["mismatch"])

    def test_empty_values_are_close(self):
        result = self.compare_json([], [])
        self.assertTrue(result["allclose"])
        self.assertEqual((result["elements"], result["max_abs"], result["mean_abs"]),
                         (0, 0.0, 0.0))

    def test_json_and_text_need_neither_torch_nor_numpy(self):
        reference, candidate = self.json_file({"a": [1.0]}), self.json_file({"a": [1.0]})
        text = self.text_file("1 2 3")
        code = ("import sys; sys.path.insert(0, %r); import verify_precision as v; "
                "assert v.compare_files(%r, %r)['allclose']; "
                "assert v.compare_files(%r, %r)['allclose']; "
                "print(sorted({'torch', 'numpy'} & set(sys.modules)))"
                % (os.path.join(self.dir, "module"), reference, candidate, text, text))
        out = subprocess.run([support.PYTHON, "-c", code], capture_output=True, text=True,
                             check=True).stdout
        self.assertEqual(out.strip(), "[]")


class CompareOtherFormats(VerifyPrecisionCase):
    def test_text_numbers_and_words(self):
        reference = self.text_file("step 1: loss 2.5, 3.25\nstep 2: loss 1.0; 0.5\n", ".log")
        close = self.text_file("step 1: loss 2.5 3.25\nstep 2: loss 1.0000001 0.5\n", ".log")
        result = self.vp.compare_files(reference, close, rtol=1e-6)
        self.assertTrue(result["allclose"], result)
        self.assertEqual((result["format"], result["elements"]), ("text", 6))
        self.assertAlmostEqual(result["max_abs"], 1e-7)
        word = self.text_file("step 1: loss 2.5 3.25\nstage 2: loss 1.0 0.5\n", ".log")
        self.assertIn("'step' vs 'stage'", self.vp.compare_files(reference, word)["mismatch"])

    def test_binary_files_compare_bytes(self):
        a, b = self.text_file(b"\xff\x00\x01"), self.text_file(b"\xff\x00\x02")
        self.assertTrue(self.vp.compare_files(a, a)["allclose"])
        self.assertFalse(self.vp.compare_files(a, b)["allclose"])

    def test_torch_tensors_nested(self):
        reference, candidate, shaped = self.path(".pt"), self.path(".pt"), self.path(".pt")
        base = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        torch.save({"logits": base, "steps": [torch.tensor([1, 2]), 3]}, reference)
        torch.save({"logits": base + 1e-3, "steps": [torch.tensor([1, 2]), 3]}, candidate)
        torch.save({"logits": base.reshape(3, 2), "steps": [torch.tensor([1, 2]), 3]}, shaped)
        loose = self.vp.compare_files(reference, candidate, rtol=0.0, atol=2e-3)
        self.assertTrue(loose["allclose"], loose)
        self.assertEqual((loose["format"], loose["elements"]), ("torch", 9))
        self.assertAlmostEqual(loose["max_abs"], 1e-3, places=6)
        self.assertAlmostEqual(loose["mean_abs"], 6e-3 / 9, places=6)
        self.assertFalse(self.vp.compare_files(reference, candidate, rtol=0.0, atol=5e-4)[
            "allclose"])
        mismatch = self.vp.compare_files(reference, shaped)
        self.assertFalse(mismatch["allclose"])
        self.assertIn("shape (2, 3) vs (3, 2) at $.logits", mismatch["mismatch"])

    def test_torch_half_against_float(self):
        reference, candidate = self.path(".pth"), self.path(".pth")
        values = torch.linspace(-2, 2, 17)
        torch.save(values, reference)
        torch.save(values.half(), candidate)
        result = self.vp.compare_files(reference, candidate, rtol=1e-3, atol=1e-3)
        self.assertTrue(result["allclose"], result)
        self.assertEqual(result["max_abs"], float((values.half().float() - values).abs().max()))

    def test_numpy_arrays(self):
        reference, candidate = self.path(".npy"), self.path(".npy")
        numpy.save(reference, numpy.array([[1.0, 2.0], [3.0, numpy.inf]]))
        numpy.save(candidate, numpy.array([[1.0, 2.5], [3.0, numpy.inf]]))
        result = self.vp.compare_files(reference, candidate, rtol=0.0, atol=0.25)
        self.assertFalse(result["allclose"])
        self.assertEqual((result["format"], result["max_abs"], result["elements"]),
                         ("numpy", 0.5, 4))
        self.assertAlmostEqual(result["mean_abs"], 0.125)
        self.assertTrue(self.vp.compare_files(reference, candidate, rtol=0.0, atol=0.5)[
            "allclose"])

    def test_numpy_archives(self):
        reference, candidate = self.path(".npz"), self.path(".npz")
        numpy.savez(reference, a=numpy.zeros(3), b=numpy.ones(2))
        numpy.savez(candidate, a=numpy.zeros(3), c=numpy.ones(2))
        result = self.vp.compare_files(reference, candidate)
        self.assertFalse(result["allclose"])
        self.assertIn("['b']", result["mismatch"])

    def test_unreadable_files_raise(self):
        with self.assertRaises(OSError):
            self.vp.compare_files(self.path(".json"), self.path(".json"))
        broken = self.text_file("{not json", ".json")
        with self.assertRaises(ValueError):
            self.vp.compare_files(broken, broken)


class CompareCommandLine(VerifyPrecisionCase):
    def run_compare(self, reference, candidate, *extra):
        return subprocess.run([support.PYTHON, os.path.join(self.dir, "module",
                                                            "verify_precision.py"),
                               "--compare", reference, candidate] + list(extra),
                              capture_output=True, text=True)

    def test_exit_status_and_summary(self):
        reference, candidate = self.json_file([1.0, 2.0]), self.json_file([1.0, 2.001])
        close = self.run_compare(reference, candidate, "--atol", "0.01")
        self.assertEqual(close.returncode, 0, close.stderr)
        self.assertRegex(close.stdout, r"max_abs=0\.001 mean_abs=0\.0005 rtol=1e-05 atol=0\.01 "
                         r"allclose=True \(2 values\)")
        far = self.run_compare(reference, candidate)
        self.assertEqual(far.returncode, 1)
        self.assertIn("allclose=False", far.stdout)
        missing = self.run_compare(reference, self.path(".json"))
        self.assertEqual(missing.returncode, 2)
        self.assertIn("cannot compare", missing.stderr)


class PrecisionStage(VerifyPrecisionCase):
    """The stage on shell commands that write their outputs with printf (fast, no torch)."""

    def workdir(self, entries, benchmark=False, trees=("original", "adapted")):
        root = tempfile.mkdtemp(prefix="it's a \"work dir\" ", dir=self.dir)
        for tree in trees:
            os.makedirs(os.path.join(root, tree))
            with open(os.path.join(root, tree, "tree.txt"), "w") as handle:
                handle.write(tree)
        config = os.path.join(root, "verify_config.json")
        with open(config, "w") as handle:
            json.dump({"precision": entries, "benchmark": benchmark}, handle)
        return root, config

    def run_stage(self, root, config, stage="precision"):
        results = os.path.join(root, "results", "verify_results.jsonl")
        os.makedirs(os.path.dirname(results), exist_ok=True)
        status = self.vp.main(["--config", config, "--root", root, "--results", results,
                               "--python", support.PYTHON, "--stage", stage])
        return status, support.read_records(results)

    def test_outputs_compared_per_file_in_quoted_directories(self):
        # {out} holds spaces and quotes; the values depend on the tree the command runs in
        command = ('v=$(cat tree.txt); if [ "$v" = adapted ]; then x=2.5; else x=2.0; fi; '
                   'printf "[1.0, $x]" > {out}/a.json; printf "7 8" > {out}/b.txt')
        root, config = self.workdir([{"name": "run", "command": command,
                                      "outputs": ["a.json", "b.txt"], "atol": 0.1}])
        status, records = self.run_stage(root, config)
        self.assertEqual(status, 1)
        by_check = {r["check"]: r for r in records}
        self.assertEqual(set(by_check), {"run:a.json", "run:b.txt"})
        self.assertEqual(by_check["run:a.json"]["status"], "failed")
        self.assertIn("max_abs=0.5 mean_abs=0.25 rtol=1e-05 atol=0.1 allclose=False",
                      by_check["run:a.json"]["detail"])
        self.assertEqual(by_check["run:b.txt"]["status"], "passed")
        for side in ("reference", "candidate"):
            self.assertTrue(os.path.isfile(os.path.join(root, "results", "precision", "run",
                                                        side, "a.json")))

    def test_python_placeholder_is_the_quoted_interpreter(self):
        command = "{python} -c 'import sys; open(sys.argv[1], \"w\").write(\"[3]\")' {out}/x.json"
        root, config = self.workdir([{"name": "py", "command": command, "outputs": ["x.json"]}])
        status, records = self.run_stage(root, config)
        self.assertEqual((status, [r["status"] for r in records]), (0, ["passed"]), records)

    def test_failing_command_is_one_failed_record_with_its_output(self):
        command = ('if [ "$(cat tree.txt)" = adapted ]; then echo "Traceback: boom" >&2; '
                   'exit 3; fi; printf 1 > {out}/a.txt')
        root, config = self.workdir([{"name": "run", "command": command, "outputs": ["a.txt"]}])
        status, records = self.run_stage(root, config)
        self.assertEqual(status, 1)
        self.assertEqual(len(records), 1)
        self.assertEqual((records[0]["check"], records[0]["status"]), ("run", "failed"))
        self.assertIn("candidate command failed in adapted/ (exit status 3)", records[0]["detail"])
        self.assertIn("Traceback: boom", records[0]["output"])

    def test_missing_output_fails(self):
        command = 'if [ "$(cat tree.txt)" = original ]; then printf 1 > {out}/a.txt; fi'
        root, config = self.workdir([{"name": "run", "command": command, "outputs": ["a.txt"]}])
        status, records = self.run_stage(root, config)
        self.assertEqual((status, records[0]["status"]), (1, "failed"))
        self.assertIn("a.txt missing from the candidate output", records[0]["detail"])

    def test_missing_original_tree_is_an_error(self):
        root, config = self.workdir([{"name": "run", "command": "true", "outputs": ["a.txt"]}],
                                    trees=("adapted",))
        status, records = self.run_stage(root, config)
        self.assertEqual((status, records[0]["status"]), (2, "error"))
        self.assertIn("original/ not found", records[0]["detail"])

    def test_no_entries_is_skipped_with_the_reason(self):
        root, config = self.workdir([])
        status, records = self.run_stage(root, config)
        self.assertEqual((status, records[0]["check"], records[0]["status"]),
                         (0, "precision", "skipped"))
        self.assertEqual(records[0]["detail"], "no precision commands (verify.precision)")

    def test_bad_configuration_is_an_error(self):
        root, config = self.workdir([{"name": "a/b", "command": "true", "outputs": []}])
        status, records = self.run_stage(root, config)
        self.assertEqual((status, records[0]["check"], records[0]["status"]),
                         (2, "config", "error"))
        self.assertIn("precision[0]", records[0]["detail"])
        os.remove(config)
        status, records = self.run_stage(root, config)
        self.assertEqual(status, 2)
        self.assertIn("cannot be read", records[-1]["detail"])

    def test_benchmark_times_both_runs(self):
        entry = {"name": "run", "command": "sleep 0.2; printf 1 > {out}/a.txt",
                 "outputs": ["a.txt"]}
        root, config = self.workdir([entry], benchmark=True)
        status, records = self.run_stage(root, config, "benchmark")
        self.assertEqual((status, records[0]["stage"], records[0]["status"]),
                         (0, "benchmark", "passed"))
        self.assertRegex(records[0]["detail"],
                         r"^reference=0\.2\d s candidate=0\.2\d s ratio=\d\.\d\d ")
        self.assertGreaterEqual(records[0]["duration"], 0.4)

    def test_benchmark_disabled_is_skipped(self):
        root, config = self.workdir([{"name": "run", "command": "true", "outputs": ["a"]}])
        status, records = self.run_stage(root, config, "benchmark")
        self.assertEqual((status, records[0]["status"]), (0, "skipped"))
        self.assertEqual(records[0]["detail"], "benchmark disabled (verify.benchmark: false)")


if __name__ == "__main__":
    unittest.main()
