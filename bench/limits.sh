#!/usr/bin/env bash
# Limits on hostile input, measured (issue 19): a repository of FILES files (default 200,000:
# one Python file with a CUDA call in 20, the rest small text files) and one Python file whose
# single line is about 1.5 MB. Runs analyze, plan, emit and report on each without the analysis
# cache and prints the wall time and the peak RSS of the whole run (GNU time). Not a test.
#   bench/limits.sh [FILES]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cli="${MIGRATE_CLI:-$here/../build/bin/migrate-pipeline}"
files="${1:-200000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$files" <<'PY'
import os, sys
work, files = sys.argv[1], int(sys.argv[2])
per_dir = 500
for n in range(files):
    d = os.path.join(work, "many", f"pkg{n // (per_dir * 20)}", f"sub{n // per_dir}")
    if n % per_dir == 0:
        os.makedirs(d, exist_ok=True)
    if n % 20 == 0:
        with open(os.path.join(d, f"m{n}.py"), "w") as f:
            f.write("import torch\nx = torch.zeros(1).cuda()\n")
    else:
        with open(os.path.join(d, f"data{n}.txt"), "w") as f:
            f.write("x\n")
os.makedirs(os.path.join(work, "long"))
with open(os.path.join(work, "long", "long.py"), "w") as f:
    f.write("import torch\nx = [" + "123456," * 220000 + "0]; torch.cuda.synchronize()\n")
PY

measure() {  # name, source
  local out="$work/out-$1"
  /usr/bin/time -f "%e %M" -o "$work/time" "$cli" run "$here/../pipelines/full.yaml" -q --no-cache \
    --source "$2" --output "$out" --set 'stages=[analyze, plan, emit, report]' \
    --set 'report.directory=""' --set limits.max_file_bytes=4000000
  read -r secs kb <"$work/time"
  printf '%-34s %8.1f s %8.0f MB peak RSS  (%s Python files analysed)\n' "$1" "$secs" "$((kb / 1024))" \
    "$(grep -o '([0-9]* Python' "$out/run.log" | head -1 | tr -dc 0-9)"
}
measure "$files files" "$work/many"
measure "one line of 1.5 MB" "$work/long"
