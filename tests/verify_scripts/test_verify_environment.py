"""The environment stage on hosts made up from fakes: an npu-smi script on PATH (an "NPU
host"), CANN toolkits in temporary directories, and FAKE torch_npu packages (one that imports,
one that fails like torch_npu without CANN's set_env.sh) put on PYTHONPATH."""

import concurrent.futures
import os
import re
import tempfile
import unittest

import torch

import support

NPU_SMI = """#!/bin/sh
# FAKE npu-smi for the tests
echo "+------------------------------------------------------------------+"
echo "| npu-smi 23.0.6                   Version: 23.0.6                 |"
echo "+------------------------------------------------------------------+"
exit {status}
"""
TORCH_BASE = re.match(r"\d+\.\d+\.\d+", torch.__version__).group(0)

_tmp = None
runs = {}


def _fake_host(base, npu_smi_status=None, toolkit=None, torch_npu=None, ascend_home=None):
    """Runs the environment stage; npu_smi_status puts a FAKE npu-smi exiting with it on PATH,
    toolkit is "home" (a set_env.sh under ~/Ascend) or "env" (ASCEND_TOOLKIT_HOME set),
    torch_npu is "broken" or "working" (a FAKE package)."""
    root = support.build_workdir(os.path.join(base, "work"))
    home = os.path.join(base, "home")
    os.makedirs(home)
    env = support.clean_environment(home)
    if npu_smi_status is not None:
        bin_dir = os.path.join(base, "bin")
        support.write(os.path.join(bin_dir, "npu-smi"), NPU_SMI.format(status=npu_smi_status),
                      0o755)
        env["PATH"] = bin_dir + os.pathsep + env["PATH"]
    if toolkit == "home":
        support.write(os.path.join(home, "Ascend", "ascend-toolkit", "set_env.sh"), "# FAKE\n")
    elif toolkit == "env":
        latest = os.path.join(base, "Ascend", "ascend-toolkit", "latest")
        support.write(os.path.join(latest, "x86_64-linux", "ascend_toolkit_install.info"),
                      "package_name=Ascend-cann-toolkit\nversion=8.0.RC1\n")
        env["ASCEND_TOOLKIT_HOME"] = latest
    if ascend_home is not None:
        env["ASCEND_HOME_PATH"] = ascend_home
    if torch_npu is not None:
        packages = os.path.join(base, "site")
        if torch_npu == "broken":
            support.write(os.path.join(packages, "torch_npu", "__init__.py"),
                          '"""FAKE torch_npu: fails as the real one does without CANN."""\n'
                          "raise ImportError('libhccl.so: cannot open shared object file')\n")
            support.write(os.path.join(packages, "torch_npu-2.1.0.post3.dist-info", "METADATA"),
                          "Metadata-Version: 2.1\nName: torch_npu\nVersion: 2.1.0.post3\n")
        else:
            support.write(os.path.join(packages, "torch_npu", "__init__.py"),
                          '"""FAKE torch_npu that imports and sees one device."""\n'
                          "import types\n\nimport torch  # noqa: F401\n\n"
                          "__version__ = %r\n"
                          "npu = types.SimpleNamespace(device_count=lambda: 1)\n"
                          % (TORCH_BASE + ".post1"))
        env["PYTHONPATH"] = packages
    return support.run_script(root, ["--stage", "environment", "--python", support.PYTHON], env)


HOSTS = {
    "npu_without_toolkit": dict(npu_smi_status=0, torch_npu="broken"),
    "npu_toolkit_not_sourced": dict(npu_smi_status=0, toolkit="home"),
    "npu_ready": dict(npu_smi_status=0, toolkit="env", torch_npu="working"),
    "npu_smi_failing": dict(npu_smi_status=9, toolkit="env"),
    "cpu_with_toolkit": dict(toolkit="env", ascend_home="/ignored"),
    "cpu_missing_toolkit_dir": dict(ascend_home="/nonexistent/ascend-toolkit/latest"),
}


def setUpModule():
    global _tmp
    _tmp = tempfile.TemporaryDirectory(prefix="verify_environment_")
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        futures = {}
        for name, options in HOSTS.items():
            base = os.path.join(_tmp.name, name)
            os.makedirs(base)
            futures[name] = pool.submit(_fake_host, base, **options)
        for name, future in futures.items():
            runs[name] = future.result()


def tearDownModule():
    _tmp.cleanup()


class FakeNpuHosts(unittest.TestCase):
    def record(self, host, check):
        return runs[host].find("environment", check)

    def assert_record(self, host, check, status, detail_pattern):
        record = self.record(host, check)
        self.assertEqual(record["status"], status, record)
        self.assertRegex(record["detail"], detail_pattern)

    def test_npu_host_without_toolkit(self):
        host = "npu_without_toolkit"
        self.assertEqual(runs[host].returncode, 1, runs[host])
        self.assert_record(host, "npu-devices", "passed", r"^npu-smi info succeeded; 0 ")
        self.assertIn("Version: 23.0.6", self.record(host, "npu-devices")["output"])
        self.assert_record(host, "driver", "passed", r"^driver 23\.0\.6 \(npu-smi info\)$")
        self.assert_record(host, "cann", "failed",
                           r"^no CANN toolkit: .*install the CANN toolkit and source its set_env")

    def test_torch_npu_that_cannot_import(self):
        host = "npu_without_toolkit"
        self.assert_record(host, "torch_npu", "failed",
                           r"^torch_npu is installed but cannot be imported: ImportError: "
                           r"libhccl\.so: cannot open shared object file; the CANN environment "
                           r"is not set: source the toolkit's set_env\.sh")
        self.assertIn("raise ImportError", self.record(host, "torch_npu")["output"])
        self.assert_record(host, "versions-match", "failed",
                           r"^torch_npu 2\.1\.0\.post3 works only with torch 2\.1\.0, found torch "
                           + re.escape(torch.__version__) + r" \(torch_npu X\.Y\.Z\[\.postN\] "
                           r"works only with torch X\.Y\.Z\)$")

    def test_toolkit_installed_but_not_sourced(self):
        host = "npu_toolkit_not_sourced"
        self.assert_record(host, "cann", "failed",
                           r"^the CANN toolkit's environment is not set: run 'source .*/home/"
                           r"Ascend/ascend-toolkit/set_env\.sh' before this script$")
        self.assert_record(host, "torch_npu", "skipped", r"^torch_npu is not installed$")

    def test_ready_npu_host(self):
        host = "npu_ready"
        self.assertEqual(runs[host].returncode, 0, runs[host])
        self.assert_record(host, "cann", "passed",
                           r"^CANN toolkit at .*/ascend-toolkit/latest, version 8\.0\.RC1$")
        self.assert_record(host, "torch_npu", "passed", r"^torch_npu %s\.post1 imports; 1 NPU "
                           r"device\(s\) visible$" % re.escape(TORCH_BASE))
        self.assert_record(host, "versions-match", "passed", r"^torch_npu %s\.post1 matches "
                           r"torch " % re.escape(TORCH_BASE))

    def test_npu_smi_failing_without_device_nodes(self):
        host = "npu_smi_failing"
        self.assert_record(host, "npu-devices", "skipped",
                           r"^no NPU device \(no /dev/davinciN; npu-smi info: exit status 9\)$")
        self.assert_record(host, "driver", "skipped", r"^no NPU device$")
        self.assert_record(host, "cann", "skipped",
                           r"^no NPU device \(CANN toolkit at .*8\.0\.RC1\)$")

    def test_toolkits_without_an_npu_are_skipped(self):
        self.assertEqual(runs["cpu_with_toolkit"].returncode, 0)
        self.assert_record("cpu_with_toolkit", "cann", "skipped",
                           r"^no NPU device \(CANN toolkit at .*/latest, version 8\.0\.RC1\)$")
        self.assert_record("cpu_missing_toolkit_dir", "cann", "skipped",
                           r"^no NPU device \(ASCEND_TOOLKIT_HOME / ASCEND_HOME_PATH is "
                           r"/nonexistent/ascend-toolkit/latest, which does not exist\)$")


if __name__ == "__main__":
    unittest.main()
