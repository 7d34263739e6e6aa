#!/usr/bin/env bash
# `migrate-pipeline new plugin` (docs/writing-plugins.md#starting-a-plugin-new-plugin): installs
# the tool and SDK into a temporary prefix, writes a plugin project with the installed tool,
# builds it against the SDK and runs its own tests (ctest), checks `rules test` on it, runs the
# installed tool with the built plugin on a real git repository, and checks the refusals: a bad
# name, a name that clashes with a built-in plugin or its rule ids, an existing directory.
set -euo pipefail
src="$1"; build="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
cli="$work/prefix/bin/migrate-pipeline"
mkdir "$work/projects"
"$cli" new plugin acme-gpu --dir "$work/projects" > "$work/new.out" || fail "new plugin: $(cat "$work/new.out")"
project="$work/projects/acme-gpu"
for f in CMakeLists.txt acme_gpu_plugin.cpp rules/acme_gpu.yaml README.md pipeline.yaml .gitignore \
         tests/run_sample.cmake tests/sample_repo/train.py; do
  [[ -f "$project/$f" ]] || fail "new plugin did not write $f"
done
grep -q "cmake -B build -DCMAKE_PREFIX_PATH=$work/prefix$" "$work/new.out" || fail "next steps: $(cat "$work/new.out")"
grep -q -- "--plugin-dir build/plugins" "$work/new.out" || fail "next steps: $(cat "$work/new.out")"
# Nothing of this machine in the project: no absolute path, no temporary directory.
if grep -rn -e "$work" -e "$src" -e "$build" "$project"; then fail "a path of this machine in the project"; fi
# The generated source follows the project's own style.
clang-format --dry-run -Werror --style="file:$src/.clang-format" "$project/acme_gpu_plugin.cpp" ||
  fail "acme_gpu_plugin.cpp is not clang-format clean"

# As its README says: configure against the installed SDK, build, run its tests.
cmake -S "$project" -B "$project/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="${CXX:-c++}" -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Werror" >/dev/null
cmake --build "$project/build" >/dev/null
ctest --test-dir "$project/build" --output-on-failure > "$work/ctest.out" || fail "the project's tests: $(cat "$work/ctest.out")"
grep -q "100% tests passed, 0 tests failed out of 2" "$work/ctest.out" || fail "$(cat "$work/ctest.out")"

# `rules test` on the project: both rules' snippets, the hook's with the built plugin.
"$cli" rules test "$project" --plugin-dir "$project/build/plugins" > "$work/rules.out" ||
  fail "rules test: $(cat "$work/rules.out")"
grep -q "2 rules, 4 snippets: all passed" "$work/rules.out" || fail "rules test: $(cat "$work/rules.out")"
# Without the plugin there is no hook to run its snippets: the error says what to do.
if "$cli" rules test "$project/rules" > "$work/nohook.out"; then fail "rules test without the plugin passed"; fi
grep -q "no plugin of domain 'acme_gpu' is loaded" "$work/nohook.out" || fail "$(cat "$work/nohook.out")"
# The README beside the library: `rules show` finds each rule's entry.
"$cli" rules show ACMEGPU-100 --plugin-dir "$project/build/plugins" | grep -q "puts every process of a multi-device job" ||
  fail "rules show ACMEGPU-100 has no doc entry"

# The installed tool with the built plugin on a real git repository, cloned from its URL.
repo="$work/repo"
mkdir -p "$repo/launch"
printf 'import os\nimport acme_gpu as gpu\nimport acme_gpu.cuda\n\ngpu.set_device(1)\ngpu.set_device(int(os.environ["LOCAL_RANK"]))\nacme_gpu.cuda.synchronize()\n' \
  > "$repo/launch/worker.py"
git -C "$repo" init -q -b main
git -C "$repo" -c user.name=t -c user.email=t@example.com add -A
git -C "$repo" -c user.name=t -c user.email=t@example.com commit -q -m sample
(cd "$work" && "$cli" run "$project/pipeline.yaml" --source "file://$repo" --ref main \
  --plugin-dir "$project/build/plugins" --output "$work/out" --no-cache -q) || fail "run on the git repository"
python3 - "$work/out/findings.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
found = [(f["rule_id"], f["file"], f["line"], f["message"]) for f in doc["findings"]]
expected = [
    ("ACMEGPU-100", "launch/worker.py", 5,
     "acme_gpu.set_device(1) puts every process of the job on device 1; pass the process's local rank"),
    ("ACMEGPU-001", "launch/worker.py", 7, "acme_gpu.cuda.synchronize waits for the CUDA device; use acme_gpu.npu.synchronize"),
]
assert found == expected, found
assert doc["plugins"][0]["name"] == "acme_gpu", doc["plugins"]
print("new plugin: findings", [f[:3] for f in found])
PY

# Refusals, each with exit code 2 and a message saying why.
expect_refusal() {  # name, text the message must hold
  local code=0
  "$cli" new plugin "$1" --dir "$work/projects" > "$work/refused.out" 2>&1 || code=$?
  [[ $code -eq 2 ]] || fail "new plugin '$1' exited with $code: $(cat "$work/refused.out")"
  grep -q -- "$2" "$work/refused.out" || fail "new plugin '$1': $(cat "$work/refused.out")"
}
expect_refusal acme-gpu "exists; choose another name or --dir"
expect_refusal "no good" "is not a plugin name"
expect_refusal 9lives "is not a plugin name"
expect_refusal device "a plugin named or of domain 'device' is loaded already"
expect_refusal dev "its rule ids would start with DEV-"
[[ ! -e "$work/projects/no good" && ! -e "$work/projects/device" && ! -e "$work/projects/dev" ]] ||
  fail "a refused name left a directory"
echo "new plugin: ok"
