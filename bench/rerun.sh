#!/usr/bin/env bash
# Re-runs against a cold run, on a copy of DIR (DIR itself is never written): RUNS cold runs
# (--no-cache), one run that primes an empty cache, then RUNS runs each after one more line is
# appended to FILE (one file changed), then RUNS unchanged re-runs; analyze stage only, all six
# analysis plugins (pipelines/analyze-only.yaml). Prints median, min and max wall seconds of each,
# and the medians of one-file and unchanged over the median cold run (issue 17's targets: 0.10
# and 0.05). Then checks that the last one-file run and an unchanged run wrote the findings
# (findings.json without `run`, and the CSV tables) of a --no-cache run of the same tree.
#   bench/rerun.sh DIR [RUNS] [FILE]   (default 5 runs; FILE relative to DIR, default the largest
#                                      Python file)
# MIGRATE_CLI names the binary (default: build/bin/migrate-pipeline); JOBS the worker threads
# (default: all cores). Not a test.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cli="${MIGRATE_CLI:-$here/../build/bin/migrate-pipeline}"
jobs="${JOBS:-0}"
die() { echo "rerun: $*" >&2; exit 1; }
[[ $# -ge 1 && $# -le 3 && "$1" != -* ]] || { sed -n '9,10p' "$0" | sed 's/^# *//' >&2; exit 2; }
src="$(cd "$1" && pwd)" || die "no directory $1"
runs="${2:-5}"
[[ "$runs" =~ ^[0-9]+$ && "$runs" -ge 1 ]] || die "RUNS must be a number >= 1, not '$runs'"
[[ "$jobs" =~ ^[0-9]+$ ]] || die "JOBS must be a number, not '$jobs'"
command -v "$cli" >/dev/null || die "no migrate-pipeline at $cli (build it, or set MIGRATE_CLI)"
if [[ "$cli" == */* && "$cli" != /* ]]; then cli="$PWD/$cli"; fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "rerun: copying $src" >&2
cp -a "$src" "$work/tree"
if [[ $# -ge 3 ]]; then
  file="$3"
else
  file="$(cd "$work/tree" && find . -name '*.py' -type f -printf '%s %P\n' | sort -rn | head -n 1 | cut -d' ' -f2-)"
fi
[[ -n "$file" && -f "$work/tree/$file" ]] || die "no file to change: '${file}'"

# run NAME [FLAGS...]: one run into $work/out-NAME; appends its wall seconds to $work/NAME.
run() {
  local name="$1" start end
  shift
  start="$(date +%s.%N)"
  "$cli" run "$here/../pipelines/analyze-only.yaml" --source "$work/tree" --output "$work/out-$name" \
    --stages analyze --jobs "$jobs" -q "$@" >"$work/$name.log" 2>&1 || die "the $name run failed: $(tail -n 3 "$work/$name.log")"
  end="$(date +%s.%N)"
  echo "$end - $start" | bc >>"$work/$name"
}
cache=(--set "cache.dir=$work/cache")
for ((i = 1; i <= runs; i++)); do run cold --no-cache; done
run prime "${cache[@]}"
for ((i = 1; i <= runs; i++)); do
  echo "# bench/rerun.sh edit $i" >>"$work/tree/$file"
  run one-file "${cache[@]}"
done
for ((i = 1; i <= runs; i++)); do run unchanged "${cache[@]}"; done
run check --no-cache

python3 - "$work" "$file" <<'PY'
import json, statistics, sys, pathlib
work, changed = pathlib.Path(sys.argv[1]), sys.argv[2]
times = {n: [float(x) for x in (work / n).read_text().split()] for n in ("cold", "prime", "one-file", "unchanged")}
cold = statistics.median(times["cold"])
print(f"changed file: {changed}")
print(f"{'run':<10} {'runs':>4} {'median s':>9} {'min s':>8} {'max s':>8} {'of cold':>8}")
for name, t in times.items():
    m = statistics.median(t)
    print(f"{name:<10} {len(t):>4} {m:>9.3f} {min(t):>8.3f} {max(t):>8.3f} {m / cold:>8.3f}")
def doc(name):
    d = json.loads((work / f"out-{name}" / "findings.json").read_text())
    d.pop("run", None)
    return d
def tables(name):
    return {p.name: p.read_bytes() for p in sorted((work / f"out-{name}").glob("*.csv"))}
same = all(doc(n) == doc("check") and tables(n) == tables("check") for n in ("one-file", "unchanged"))
print("findings of the re-runs equal a --no-cache run of the same tree:", "yes" if same else "NO")
sys.exit(0 if same else 1)
PY
