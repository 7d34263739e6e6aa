#!/usr/bin/env bash
# Sets up everything (Debian packages incl. python3-torch, grammar sources, builds) and runs the
# whole test suite: once on the normal build, once under AddressSanitizer + UBSan.
#   scripts/test.sh            both builds
#   scripts/test.sh --quick    the normal build only
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-tests
presets=(default asan)
[[ "${1:-}" == "--quick" ]] && presets=(default)
for preset in "${presets[@]}"; do
  echo "== build and test: $preset"
  scripts/build.sh "$preset"
  ctest --preset "$preset"
done
