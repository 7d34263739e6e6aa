#!/usr/bin/env bash
# Sets up everything (Debian packages incl. python3-torch, grammar sources, builds) and runs the
# whole test suite: once on the normal build, once under AddressSanitizer + UBSan, then a short
# smoke run of every fuzz target (libFuzzer, when clang can link it; docs/fuzzing.md).
#   scripts/test.sh            all three builds
#   scripts/test.sh --quick    the normal build only
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --with-tests
presets=(default asan)
if [[ "${1:-}" == "--quick" ]]; then
  presets=(default)
elif command -v clang++ >/dev/null 2>&1 &&
  echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
  clang++ -x c++ -fsanitize=fuzzer - -o /dev/null >/dev/null 2>&1; then
  presets+=(fuzz)
else
  echo "== no clang with libFuzzer: the fuzz smoke tests are skipped (scripts/setup.sh --with-tests installs it)"
fi
for preset in "${presets[@]}"; do
  echo "== build and test: $preset"
  scripts/build.sh "$preset"
  ctest --preset "$preset"
done
