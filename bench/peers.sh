#!/usr/bin/env bash
# The peer benchmark: on the same tree, in one run, the tools alternating round by round,
#   ours      migrate-pipeline, analyze stage only, all six analysis plugins
#             (pipelines/analyze-only.yaml); with --no-cache when the CLI has it, and then also
#   ours-warm the same run again with its per-file cache primed (an unchanged re-run);
#   ast-grep  `ast-grep scan` with the 20 Python rules of bench/peers/ast-grep (JSON output);
#   ripgrep   `rg` with the patterns of the grep-level analysis seed (bench/peers/seed001.patterns)
#             over the Python files.
# One untimed warm-up of each first (page cache, and the cache of ours-warm). For each tool it
# prints the median, min and max wall seconds, the largest peak RSS, MB/s over the tree's Python
# bytes (median time), then the ratios ours/ast-grep and ours/ripgrep: the median of the round
# by round ratios (min-max), which holds when a shared machine's speed drifts. Not a test.
#   bench/peers.sh DIR [RUNS]          (default 5 runs of each)
#   bench/peers.sh --growth [FILES] [RUNS]
#       the generated tree (bench/generate_tree.py; default 1000 files) at 1x, 2x and 4x its size,
#       analyze stage only, sizes alternating (default 3 runs each): time, peak RSS and MB/s per
#       size, and time per MB relative to 1x (1.00 everywhere is linear).
# MIGRATE_CLI names the binary (default: build/bin/migrate-pipeline); JOBS the worker threads of
# every tool (default: all cores). ast-grep is looked for on PATH and where bench/peers/setup.sh
# installs it (PEERS_PREFIX, default ${XDG_CACHE_HOME:-~/.cache}/migrate-pipeline-bench).
# Peak RSS comes from /usr/bin/time (GNU time) when installed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cli="${MIGRATE_CLI:-$here/../build/bin/migrate-pipeline}"
jobs="${JOBS:-0}"
prefix="${PEERS_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/migrate-pipeline-bench}"

die() { echo "peers: $*" >&2; exit 1; }
usage() { sed -n '13,14p' "$0" | sed 's/^# *//' >&2; exit 2; }
is_count() { [[ "$1" =~ ^[0-9]+$ && "$1" -ge 1 ]]; }

growth=0
if [[ "${1:-}" == "--growth" ]]; then
  growth=1
  shift
  base="${1:-1000}"
  runs="${2:-3}"
  is_count "$base" || die "FILES must be a number >= 1, not '$base'"
else
  [[ $# -ge 1 && $# -le 2 && "$1" != -* ]] || usage
  dir="$(cd "$1" && pwd)" || die "no directory $1"
  runs="${2:-5}"
fi
is_count "$runs" || die "RUNS must be a number >= 1, not '$runs'"
[[ "$jobs" =~ ^[0-9]+$ ]] || die "JOBS must be a number, not '$jobs'"
command -v "$cli" >/dev/null || die "no migrate-pipeline at $cli (build it, or set MIGRATE_CLI)"
if [[ "$cli" == */* && "$cli" != /* ]]; then cli="$PWD/$cli"; fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
time_bin=""
if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then time_bin=/usr/bin/time; fi

# measure NAME COMMAND...: one timed run; appends "wall_s peak_rss_kb" to $work/NAME.runs (the RSS
# 0 when unknown) and keeps the command's output in $work/NAME.out and .err. The command's exit
# status is left in $rc.
measure() {
  local name="$1" start end rss=0
  shift
  rc=0
  start="$(date +%s.%N)"
  if [[ -n "$time_bin" ]]; then
    "$time_bin" -f %M -o "$work/$name.rss" "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  else
    "$@" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  fi
  end="$(date +%s.%N)"
  if [[ -n "$time_bin" ]]; then rss="$(tail -n 1 "$work/$name.rss")"; fi
  [[ "$rss" =~ ^[0-9]+$ ]] || rss=0
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}') $rss" >>"$work/$name.runs"
}
expect() {   # expect NAME OK_CODES...: dies with the command's errors unless $rc is one of them
  local name="$1" code
  shift
  for code in "$@"; do [[ "$rc" -eq "$code" ]] && return 0; done
  tail -n 20 "$work/$name.err" >&2
  die "$name exited with $rc"
}

# ours_run NAME TREE [ARGS...]: the analyze stage of pipelines/analyze-only.yaml over TREE.
ours_run() {
  local name="$1" tree="$2"
  shift 2
  measure "$name" "$cli" run "$root/pipelines/analyze-only.yaml" --source "$tree" \
    --output "$work/out-$name" --stages analyze --jobs "$jobs" "$@"
  expect "$name" 0
}

# summary TREE_BYTES NAME...: the per-tool table, then NAME[0]'s ratios to each other NAME.
summary() {
  python3 - "$work" "$@" <<'EOF'
import statistics, sys
work, tree_bytes, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
runs = {}
for n in names:
    with open(f"{work}/{n}.runs") as f:
        runs[n] = [tuple(float(x) for x in line.split()) for line in f if line.strip()]
print(f"MB/s: over the tree's {tree_bytes / 1048576:.1f} MB of Python, at the median time")
print(f"{'tool':<10} {'runs':>4} {'median s':>9} {'min s':>8} {'max s':>8} {'peak RSS':>9} {'MB/s':>8}")
for n in names:
    t = [w for w, _ in runs[n]]
    rss = max(r for _, r in runs[n])
    med = statistics.median(t)
    rss_s = f"{rss / 1024:.0f} MB" if rss > 0 else "unknown"
    mbs = f"{tree_bytes / 1048576 / med:.1f}" if med > 0 else "-"
    print(f"{n:<10} {len(t):>4} {med:>9.3f} {min(t):>8.3f} {max(t):>8.3f} {rss_s:>9} {mbs:>8}")
ours = names[0]
for other in names[1:]:
    a, b = (other, ours) if other == "ours-warm" else (ours, other)   # warm as a share of cold
    pairs = [x[0] / y[0] for x, y in zip(runs[a], runs[b]) if y[0] > 0]
    if pairs:
        print(f"ratio {a}/{b}: {statistics.median(pairs):.2f} (min {min(pairs):.2f}, max {max(pairs):.2f}; "
              f"round by round, median)")
EOF
}

# Python files, bytes and lines of a tree, skipping .git: "files bytes lines".
python_size() {
  local files bytes lines
  files="$(find "$1" -name .git -prune -o -type f -name '*.py' -print | wc -l)"
  bytes="$(find "$1" -name .git -prune -o -type f -name '*.py' -print0 | du -cb --files0-from=- | tail -n 1 | cut -f1)"
  lines="$(find "$1" -name .git -prune -o -type f -name '*.py' -print0 | xargs -0 cat -- | wc -l)"
  echo "$files $bytes $lines"
}

if [[ "$growth" -eq 1 ]]; then
  sizes=(1 2 4)
  for k in "${sizes[@]}"; do
    python3 "$here/generate_tree.py" --out "$work/tree$k" --files $((base * k)) >/dev/null
    read -r files bytes lines < <(python_size "$work/tree$k")
    echo "${k}x: $files Python files, $lines lines, $(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}') MB"
    echo "$bytes" >"$work/tree$k.bytes"
    ours_run "g$k" "$work/tree$k"   # warm-up, not counted
    : >"$work/g$k.runs"
  done
  for ((i = 1; i <= runs; i++)); do
    for k in "${sizes[@]}"; do ours_run "g$k" "$work/tree$k"; done
  done
  python3 - "$work" "${sizes[@]}" <<'EOF'
import statistics, sys
work, sizes = sys.argv[1], sys.argv[2:]
print(f"{'size':<5} {'median s':>9} {'min s':>8} {'max s':>8} {'peak RSS':>9} {'MB/s':>7} {'s per MB vs 1x':>15}")
base = None
for k in sizes:
    with open(f"{work}/g{k}.runs") as f:
        rows = [tuple(float(x) for x in line.split()) for line in f if line.strip()]
    mb = int(open(f"{work}/tree{k}.bytes").read()) / 1048576
    t = [w for w, _ in rows]
    med, rss = statistics.median(t), max(r for _, r in rows)
    per_mb = med / mb
    base = base or per_mb
    rss_s = f"{rss / 1024:.0f} MB" if rss > 0 else "unknown"
    print(f"{k + 'x':<5} {med:>9.3f} {min(t):>8.3f} {max(t):>8.3f} {rss_s:>9} {mb / med:>7.1f} {per_mb / base:>15.2f}")
EOF
  exit 0
fi

# The peers.
rg_bin="$(command -v rg || true)"
[[ -n "$rg_bin" ]] || die "no ripgrep (rg): run bench/peers/setup.sh"
sg_bin="$(command -v ast-grep || true)"
[[ -n "$sg_bin" ]] || sg_bin="$prefix/node_modules/.bin/ast-grep"
[[ -x "$sg_bin" ]] || die "no ast-grep on PATH or in $prefix: run bench/peers/setup.sh"
grep -v -e '^#' -e '^[[:space:]]*$' "$here/peers/seed001.patterns" >"$work/seed001.rg"
threads=()
if [[ "$jobs" -gt 0 ]]; then threads=(--threads "$jobs"); fi
# ripgrep writes to a file: given /dev/null as its output it stops at the first match, like -q.
rg_cmd=("$rg_bin" --line-number --no-heading --type py "${threads[@]}" -f "$work/seed001.rg" "$dir")
sg_cmd=("$sg_bin" scan --config "$here/peers/ast-grep/sgconfig.yml" --json=compact "${threads[@]}" "$dir")
run_ripgrep() { measure ripgrep "${rg_cmd[@]}"; expect ripgrep 0 1; }   # 1: nothing matched
run_ast_grep() {   # ast-grep's JSON goes to /dev/null; 1: error-level rules matched
  measure ast-grep sh -c 'exec "$@" >/dev/null' ast-grep "${sg_cmd[@]}"
  expect ast-grep 0 1
}

# The cache: --no-cache for the cold runs when the CLI has it, and a primed cache for warm runs,
# kept in the scratch directory (XDG_CACHE_HOME) so no user cache is touched or reused.
names=(ours)
cold_args=()
if "$cli" run --help 2>&1 | grep -q -- '--no-cache'; then
  cold_args=(--no-cache)
  names+=(ours-warm)
fi
export XDG_CACHE_HOME="$work/xdg-cache"
names+=(ast-grep ripgrep)

jobs_text="$jobs"
if [[ "$jobs" -eq 0 ]]; then jobs_text="all"; fi
read -r py_files py_bytes py_lines < <(python_size "$dir")
all_files="$(find "$dir" -name .git -prune -o -type f -print | wc -l)"
echo "tree: $all_files files; $py_files Python files, $py_lines lines," \
  "$(awk -v b="$py_bytes" 'BEGIN {printf "%.1f", b / 1048576}') MB"
echo "tools: $("$rg_bin" --version | head -n 1); ast-grep $("$sg_bin" --version | awk '{print $NF}')," \
  "$(find "$here/peers/ast-grep/rules" -name '*.yml' | wc -l) rules; jobs: $jobs_text of $(nproc) cores;" \
  "$runs runs each, alternating; ours cold${cold_args[*]:+ (${cold_args[*]})}"

# Warm-up (not counted): the page cache, and ours' per-file cache for the warm runs.
ours_run ours "$dir" "${cold_args[@]}"
if [[ ${#cold_args[@]} -gt 0 ]]; then ours_run ours-warm "$dir"; fi
run_ast_grep
run_ripgrep
for n in "${names[@]}"; do : >"$work/$n.runs"; done

for ((i = 1; i <= runs; i++)); do
  ours_run ours "$dir" "${cold_args[@]}"
  if [[ ${#cold_args[@]} -gt 0 ]]; then ours_run ours-warm "$dir"; fi
  run_ast_grep
  run_ripgrep
  printf '  round %d/%d: %s\n' "$i" "$runs" "$(for n in "${names[@]}"; do
    printf '%s %.2f s  ' "$n" "$(tail -n 1 "$work/$n.runs" | cut -d' ' -f1)"; done)"
done

echo
for n in ours ours-warm; do
  if [[ -f "$work/$n.err" ]]; then grep -h -E 'findings \(|statistics' "$work/$n.err" | sed "s/^info: /$n: /" || true; fi
done
echo "ripgrep: $(wc -l <"$work/ripgrep.out") matching lines"
echo
summary "$py_bytes" "${names[@]}"
