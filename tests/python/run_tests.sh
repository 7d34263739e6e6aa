#!/usr/bin/env bash
# Tests of templates/npu_compat.py.mustache and templates/npu_ops.py.mustache: rendering (every
# subset of sections), py_compile + pyflakes, the pure-PyTorch paths against reference
# implementations, the NPU paths against the recording FAKE torch_npu, and npu_compat in real
# subprocesses. Needs /usr/bin/python3 with Debian's python3-torch and python3-pyflakes (the
# python3 on PATH may be another interpreter without torch). Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python=/usr/bin/python3

if ! "$python" -c 'import torch, pyflakes' 2>/dev/null; then
  echo "run_tests.sh: $python needs torch (python3-torch) and pyflakes (python3-pyflakes)" >&2
  exit 1
fi

cd "$here"
# No bytecode next to the sources; no inherited paths or device selection.
export PYTHONDONTWRITEBYTECODE=1
unset PYTHONPATH CUDA_VISIBLE_DEVICES ASCEND_RT_VISIBLE_DEVICES
"$python" -m pyflakes ./*.py fake_torch_npu/torch_npu/__init__.py
"$python" -m unittest discover --start-directory "$here" --pattern 'test_*.py' "$@"
