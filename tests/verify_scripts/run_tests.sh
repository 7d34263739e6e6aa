#!/usr/bin/env bash
# Tests of the verification kit's templates (templates/verify_npu.sh.mustache,
# templates/verify_precision.py.mustache): rendered, checked with shellcheck and pyflakes, and
# run for real on small working directories built by hand. Needs /usr/bin/python3 with Debian's
# python3-torch, python3-numpy and python3-pyflakes, and shellcheck. Exits non-zero on any failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python=/usr/bin/python3

if ! "$python" -c 'import torch, numpy, pyflakes' 2>/dev/null; then
  echo "run_tests.sh: $python needs torch (python3-torch), numpy and pyflakes (python3-pyflakes)" >&2
  exit 1
fi
if ! command -v shellcheck >/dev/null; then
  echo "run_tests.sh: shellcheck is needed (Debian package shellcheck)" >&2
  exit 1
fi

cd "$here"
export PYTHONDONTWRITEBYTECODE=1
unset PYTHONPATH CUDA_VISIBLE_DEVICES ASCEND_RT_VISIBLE_DEVICES
"$python" -m pyflakes ./*.py
"$python" -m unittest discover --start-directory "$here" --pattern 'test_*.py' "$@"
