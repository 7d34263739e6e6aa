#!/usr/bin/env bash
# A fuzzing campaign: builds the fuzz targets (cmake --preset fuzz) and runs each one for
# SECONDS_PER_TARGET (default 60) from its seeds and the corpus of earlier campaigns, kept in
# fuzz/work/<target>/ (git-ignored). Prints per target: time, exec/s, coverage (cov:, ft:) and
# crashes found; exits non-zero when a target crashed, leaked, hung or hit a sanitizer report.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [fuzz_TARGET ...]
# See docs/fuzzing.md (an hour per target before a release: scripts/fuzz.sh 3600).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift $(($# > 0 ? 1 : 0))
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [fuzz_TARGET ...]" >&2
  exit 2
fi
work="$PWD/fuzz/work"
mkdir -p "$work"

echo "== build: fuzz preset"
cmake --preset fuzz >/dev/null
nice -n 5 cmake --build --preset fuzz
targets=("$@")
if ((${#targets[@]} == 0)); then
  mapfile -t targets < <(find build-fuzz/bin -maxdepth 1 -name 'fuzz_*' -type f -executable -printf '%f\n' | sort)
fi

# Real findings.json / emit.json / verify.json seed the JSON readers: the outputs of a run of the
# normal build on the bundled example, when that build exists.
if [[ -x build/bin/migrate-pipeline && ! -f "$work/_run/findings.json" ]]; then
  echo "== seeds: outputs of build/bin/migrate-pipeline on examples/gpt_cuda"
  XDG_CACHE_HOME="$work/_cache" build/bin/migrate-pipeline run pipelines/analyze-only.yaml \
    --stages analyze,plan,emit --output "$work/_run" -q >/dev/null 2>&1 || true
fi
[[ -f "$work/_run/findings.json" ]] && export MIGRATE_FUZZ_RUN_DIR="$work/_run"

echo "== fuzz: ${#targets[@]} target(s), ${seconds}s each"
failed=()
for t in "${targets[@]}"; do
  fuzz/run.sh "build-fuzz/bin/$t" "$seconds" "$work/$t" || failed+=("$t")
done
if ((${#failed[@]})); then
  echo "== found something in: ${failed[*]} (inputs in fuzz/work/<target>/artifacts/; see docs/fuzzing.md)"
  exit 1
fi
echo "== nothing found"
