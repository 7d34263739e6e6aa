#!/usr/bin/env bash
# Runs one fuzz target for a while from its seeds (fuzz/seeds.sh) and prints one line: time,
# executions per second, coverage (libFuzzer's cov: and ft:) and what it found.
#   fuzz/run.sh [--fresh] FUZZ_EXECUTABLE SECONDS WORK_DIR [libFuzzer flags...]
# WORK_DIR keeps corpus/ (the seeds plus what the fuzzer adds; kept between runs unless --fresh),
# artifacts/ (crash-*, leak-*, timeout-*, oom-* inputs) and fuzz.log. Exits non-zero when the
# target crashed, leaked, hung or hit a sanitizer report.
set -euo pipefail
fresh=0
if [[ "${1:-}" == "--fresh" ]]; then
  fresh=1
  shift
fi
exe="${1:?usage: fuzz/run.sh [--fresh] FUZZ_EXECUTABLE SECONDS WORK_DIR [flags...]}"
seconds="${2:?seconds per target}"
work="${3:?work directory}"
shift 3
target="$(basename "$exe")"
here="$(cd "$(dirname "$0")" && pwd)"

((fresh)) && rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
rm -f "$work"/artifacts/*
# Seeds named by their content's hash, as libFuzzer names what it adds: re-adding one is a no-op.
while IFS= read -r seed; do
  name="$(sha1sum "$seed" | cut -d' ' -f1)"
  [[ -e "$work/corpus/$name" ]] || cp "$seed" "$work/corpus/$name"
done < <("$here/seeds.sh" "$target")

# A leak is reported at exit (detect_leaks=1); a hang is an input running past -timeout.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
"$exe" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$@" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?

# The last status line ("#123 DONE cov: 456 ft: 789 corp: ...") and the final stats.
last="$(grep -E '^#[0-9]+' "$work/fuzz.log" | tail -n 1 || true)"
cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")"
rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log")"
elapsed="$(sed -n 's/.*Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$work/fuzz.log")"
mapfile -t found < <(find "$work/artifacts" -type f | sort)
printf '%-26s %5ss %8s exec/s %8s runs  cov: %-6s ft: %-7s crashes: %d\n' "$target" \
  "${elapsed:-?}" "${rate:-?}" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${#found[@]}"
if ((status != 0 || ${#found[@]} != 0)); then
  for f in "${found[@]}"; do echo "  found: $f"; done
  echo "  log: $work/fuzz.log (exit status $status); the report:"
  grep -E -A25 '^==[0-9]+==(ERROR|WARNING)|runtime error:|ALARM|deadly signal|out-of-memory' \
    "$work/fuzz.log" | head -n 60 | sed 's/^/    /'
  exit 1
fi
