#!/usr/bin/env bash
# Verification of real repositories on this host, with the outcomes of issue 31: each check of the
# adapted tree compared with the original tree (passed / introduced / pre-existing / environment /
# fixed / skipped / error), and the verification's time. With BASE_CLI, the same runs with another
# binary first (e.g. a build from before the outcomes), for the time and the old pass/fail counts.
#
#   bench/verify_real.sh OUT_DIR REPO_DIR...        # e.g. checkouts made by bench/accuracy/checkout.sh
#   BASE_CLI=/path/to/old/migrate-pipeline bench/verify_real.sh OUT_DIR REPO_DIR...
#
# Each repository runs pipelines/full.yaml (analyze, plan, emit, verify; no precision commands:
# those are the example's) with /usr/bin/python3, verify.stage_timeout STAGE_TIMEOUT (default 900 s).
# Prints one line per repository and binary: seconds of the verify stage, then the counts.
set -euo pipefail

if (($# < 2)); then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
out=$1
shift
cli=${MIGRATE_CLI:-$here/build/bin/migrate-pipeline}
stage_timeout=${STAGE_TIMEOUT:-900}
mkdir -p "$out"

run_one() { # LABEL CLI REPO
  local label=$1 binary=$2 repo=$3 name dir
  name=$(basename "$repo")
  dir=$out/$name-$label
  rm -rf "$dir"
  "$binary" run "$here/pipelines/full.yaml" -q --source "$repo" --output "$dir" \
    --stages analyze,plan,emit,verify --set 'verify.precision=[]' \
    --set targets.local.python=/usr/bin/python3 --set "verify.stage_timeout=$stage_timeout" \
    --set 'report.directory=""' >"$dir.log" 2>&1 || true
  /usr/bin/python3 - "$dir" "$name" "$label" <<'PY'
import json
import sys

out, name, label = sys.argv[1:]
try:
    with open(out + "/verify.json", encoding="utf-8") as f:
        v = json.load(f)
except (OSError, ValueError) as exc:
    print("%-22s %-5s no verify.json (%s)" % (name, label, exc))
    sys.exit(0)
counts = v.get("outcomes") or v.get("summary")
shown = ", ".join("%d %s" % (n, k) for k, n in counts.items() if n or k in ("introduced", "failed"))
print("%-22s %-5s %7.1f s  %-9s %-10s %s" % (name, label, v.get("seconds", 0), v.get("status", "?"),
                                              v.get("verdict", "-"), shown))
PY
}

for repo in "$@"; do
  [[ -n ${BASE_CLI-} ]] && run_one base "$BASE_CLI" "$repo"
  run_one new "$cli" "$repo"
done
