#!/usr/bin/env bash
# Sets up everything (Debian packages incl. python3-torch, grammar sources, builds) and runs the
# whole test suite: once on the normal build, once under AddressSanitizer + UBSan, then a short
# smoke run of every fuzz target (libFuzzer, when clang can link it; docs/fuzzing.md). Each build
# after the first overlaps the tests before it (logs in build-logs/).
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
# Each next build runs at low priority while the tests of the one before run: the tests spend much
# of their time waiting (timeouts, sshd, Slurm, child interpreters) and get the CPU whenever they
# want it. Its output goes to a log, printed when it fails.
mkdir -p build-logs
background=""
trap '[[ -n "$background" ]] && kill -- -"$background" 2>/dev/null; true' EXIT
echo "== build: ${presets[0]}"
scripts/build.sh "${presets[0]}"
for ((i = 0; i < ${#presets[@]}; i++)); do
  preset="${presets[$i]}"
  next="${presets[$((i + 1))]:-}"
  if [[ -n "$next" ]]; then
    echo "== build: $next (low priority, in the background: build-logs/$next.log)"
    setsid nice -n 15 scripts/build.sh "$next" >"build-logs/$next.log" 2>&1 &
    background=$!
  fi
  echo "== test: $preset"
  ctest --preset "$preset"
  if [[ -n "$next" ]]; then
    if ! wait "$background"; then
      background=""
      tail -n 60 "build-logs/$next.log"
      echo "== build of $next failed: build-logs/$next.log" >&2
      exit 1
    fi
    background=""
    echo "== build: $next done"
  fi
done
