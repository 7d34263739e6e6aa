#!/usr/bin/env bash
# Installs the SDK into a temporary prefix, builds examples/plugin_example against it with
# find_package(MigratePipeline), and runs the installed migrate-pipeline with that plugin.
set -euo pipefail
src="$1"; build="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/examples/plugin_example" -B "$work/plugin" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_COMPILER="${CXX:-c++}" >/dev/null
cmake --build "$work/plugin" >/dev/null
mkdir -p "$work/repo"
printf 'import acme_cuda.streams as s\ns.sync_all()\n' > "$work/repo/train.py"
"$work/prefix/bin/migrate-pipeline" plugins --plugin-dir "$work/plugin/plugins" | grep -q "inhouse 1.0.0"
# The installed tool finds its own plugins (device) beside it and the example's by --plugin-dir.
"$work/prefix/bin/migrate-pipeline" plugins | grep -q "device"
"$work/prefix/bin/migrate-pipeline" run "$src/pipelines/full.yaml" --source "$work/repo" \
  --plugin-dir "$work/plugin/plugins" --set plugins=null --set 'plugins.inhouse={}' \
  --stages analyze --output "$work/out" -q
python3 - "$work/out/findings.json" <<'PY'
import json, sys
ids = sorted(f["rule_id"] for f in json.load(open(sys.argv[1]))["findings"])
assert ids == ["INH-001", "INH-100"], ids
print("out-of-tree plugin: findings", ids)
PY
