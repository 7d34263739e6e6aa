#!/usr/bin/env bash
# The full pipeline on a copy of DIR (DIR itself is never written), cold and then incremental:
# one cold run (--no-cache, a new output directory), then, into the same output directory, one run
# that fills the analysis cache, one unchanged re-run, one run after one file changed and one
# after ten more files changed (a line appended to each). Stages analyze,plan,emit,report by default; set
# STAGES=analyze,plan,emit,verify,report to include verification (the check then compares
# verify.json check by check — stage, name, status, outcome, edits, reference status — and leaves
# the report and JUnit file aside: the tests' own output differs between any two runs). Prints each run's wall seconds,
# its stage seconds and its ratio to the cold run (issue 32's targets: one file changed ≤ 0.10
# without verification, ≤ 0.15 with), then checks that the last incremental output equals a cold
# run's of the same tree in the same directory, times aside.
#   bench/incremental.sh DIR   (MIGRATE_CLI: the binary, default build/bin/migrate-pipeline;
#                              KEEP=1 keeps the work directory and prints where it is)
# Not a test.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cli="${MIGRATE_CLI:-$here/../build/bin/migrate-pipeline}"
stages="${STAGES:-analyze,plan,emit,report}"
die() { echo "incremental: $*" >&2; exit 1; }
[[ $# -eq 1 && "$1" != -* ]] || { sed -n '10,11p' "$0" | sed 's/^# *//' >&2; exit 2; }
src="$(cd "$1" && pwd)" || die "no directory $1"
command -v "$cli" >/dev/null || die "no migrate-pipeline at $cli (build it, or set MIGRATE_CLI)"
if [[ "$cli" == */* && "$cli" != /* ]]; then cli="$PWD/$cli"; fi

work="$(mktemp -d)"
if [[ -n "${KEEP:-}" ]]; then echo "incremental: work directory $work" >&2; else trap 'rm -rf "$work"' EXIT; fi
echo "incremental: copying $src" >&2
cp -a "$src" "$work/tree"
# The files to change: the largest Python files that mention cuda (they carry findings).
mapfile -t files < <(cd "$work/tree" && grep -rl --include='*.py' cuda . | xargs -d '\n' ls -S 2>/dev/null | head -n 11)
[[ ${#files[@]} -eq 11 ]] || die "fewer than 11 Python files mention cuda in $src"

# run NAME [FLAGS...]: one run into $work/out; prints NAME, wall seconds and the stage seconds.
run() {
  local name="$1" start end
  shift
  start="$(date +%s.%N)"
  "$cli" run "$here/../pipelines/full.yaml" --source "$work/tree" --output "$work/out" --stages "$stages" \
    --set "cache.dir=$work/cache" --set "report.directory=\"\"" -q "$@" >"$work/$name.log" 2>&1 ||
    [[ $? -eq 5 && "$stages" == *verify* ]] || die "the $name run failed: $(tail -n 3 "$work/$name.log")"
  end="$(date +%s.%N)"
  python3 - "$name" "$(echo "$end - $start" | bc)" "$work/out/findings.json" "$work/out/run.log" >>"$work/times" <<'PY'
import json, re, sys
name, wall, findings, log = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
stages = {s["name"]: s["seconds"] for s in json.load(open(findings))["run"]["stages"]}
kept = re.search(r"adapted/: (\d+) of (\d+) files kept", open(log).read())
print(json.dumps({"run": name, "wall": wall, "stages": stages, "kept": kept.group(0) if kept else ""}))
PY
}
run cold --no-cache
run prime
run unchanged
echo "# bench/incremental.sh edit" >>"$work/tree/${files[0]}"
run one-file
for f in "${files[@]:1}"; do echo "# bench/incremental.sh edit" >>"$work/tree/$f"; done
run ten-files
mv "$work/out" "$work/incremental"
mv "$work/cache" "$work/cache.used"  # the check starts from an empty cache at the same place
run check

python3 - "$work/times" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cold = rows[0]["wall"]
for r in rows:
    stages = ", ".join(f"{k} {v:.2f}" for k, v in r["stages"].items() if v)
    print(f"{r['run']:<10} {r['wall']:7.2f} s  {r['wall'] / cold:5.3f} of cold   ({stages}) {r['kept']}")
PY
# Times aside: the run log, the stage times, the report's generation time, the emit state's file
# times; and what the incremental run says it reused (a stage's "reused", a check's "reused" and
# the verification's "N of M kept from the previous verification"), which a cold run has not.
strip() {
  if [[ "$1" == */verify.json ]]; then  # what each check found; its text varies from run to run
    python3 - "$1" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["checks"]:
    print(c["stage"], c["check"], c["status"], c["outcome"], c["broken_by"], (c["reference"] or {}).get("status"))
PY
  elif [[ "$1" == *.json ]]; then
    python3 - "$1" <<'PY'
import json, re, sys
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in ("seconds", "duration", "started_at", "reused")}
    if isinstance(v, list):
        return [clean(x) for x in v]
    if isinstance(v, str):
        return re.sub(r"; \d+ of \d+ kept from the previous verification|; \d+ more test\(s\) kept from the "
                      r"previous verification, their inputs unchanged", "", v)
    return v
print(json.dumps(clean(json.load(open(sys.argv[1]))), indent=1, sort_keys=True))
PY
  else
    sed -E -e 's/"seconds": [0-9.e+-]+/"seconds": T/g' -e 's/"(started_at|startTimeUtc|endTimeUtc)": "[^"]*"/"\1": T/g' \
      -e 's/^Report Generation Time: .*/Report Generation Time: T/' -e 's/[0-9.]+ s(,| )/T s\1/g' \
      -e 's/ \(kept\) \|/ |/g' -e 's/; [0-9]+ of [0-9]+ kept from the previous verification//' \
      -e 's/ time="[0-9.]+"/ time="T"/g' "$1"
  fi
}
different=0
while IFS= read -r -d '' f; do
  rel="${f#"$work/out/"}"
  case "$rel" in run.log | emit_state.json | verify/*) continue ;; esac
  # The tests' own output in the report and the JUnit file names addresses, ports and times that
  # differ between any two runs; verify.json is compared check by check instead.
  if [[ "$stages" == *verify* ]]; then case "$rel" in verify_junit.xml | CodeReview_Results_*.md) continue ;; esac; fi
  if [[ ! -e "$work/incremental/$rel" && ! -L "$work/incremental/$rel" ]]; then echo "only in the cold output: $rel"; different=1
  elif [[ -L "$f" ]]; then [[ "$(readlink "$f")" == "$(readlink "$work/incremental/$rel")" ]] || { echo "differs: $rel"; different=1; }
  elif ! cmp -s "$f" "$work/incremental/$rel" && ! cmp -s <(strip "$f" 2>/dev/null) <(strip "$work/incremental/$rel" 2>/dev/null); then
    echo "differs: $rel"; different=1
  elif [[ "$(stat -c %a "$f")" != "$(stat -c %a "$work/incremental/$rel")" ]]; then echo "mode differs: $rel"; different=1
  fi
done < <(find "$work/out" \( -type f -o -type l \) -print0)
extra="$(cd "$work/incremental" && find . \( -type f -o -type l \) ! -name run.log ! -name emit_state.json ! -path './verify/*' -printf '%P\n' | while read -r p; do [[ -e "$work/out/$p" || -L "$work/out/$p" ]] || echo "$p"; done)"
[[ -z "$extra" ]] || { echo "only in the incremental output: $extra"; different=1; }
if [[ $different -ne 0 ]]; then die "the incremental output differs from a cold run's"; fi
echo "incremental output = cold output (times aside)"
