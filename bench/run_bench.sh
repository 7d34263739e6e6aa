#!/usr/bin/env bash
# The analysis benchmark: generates a large tree and runs the analyze, plan, emit and report
# stages over it, printing MB/s, files/s and peak RSS (from the run's own statistics line), then
# the plan's, the emit stage's and the report stage's time and peak RSS. Not a test.
#   bench/run_bench.sh [FILES] [JOBS]      (defaults: 4000 files, all cores)
# Also reachable as `cmake --build build --target bench`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cli="${MIGRATE_CLI:-$here/../build/bin/migrate-pipeline}"
files="${1:-4000}"
jobs="${2:-0}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$here/generate_tree.py" --out "$work/tree" --files "$files"
"$cli" run "$here/../pipelines/full.yaml" --source "$work/tree" --output "$work/out" \
  --stages analyze,plan,emit,report --set 'report.directory=""' --jobs "$jobs" 2>&1 |
  grep -E "statistics|findings \(|^info: (plan|emit|report):" |
  sed -e 's/^info: //' -e 's/; kit: .*(/ (/'
