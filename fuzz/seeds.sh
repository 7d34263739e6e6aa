#!/usr/bin/env bash
# Prints the seed inputs of one fuzz target, one path a line: files of the source tree's test
# fixtures, examples, pipelines, rule files and templates, found by name (nothing is copied into
# the tree), then the target's reproducers in fuzz/regressions/<target>/ and, when the variable
# MIGRATE_FUZZ_RUN_DIR names the output directory of a run, its JSON outputs.
#   fuzz/seeds.sh fuzz_requirements
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: fuzz/seeds.sh fuzz_TARGET}"
target="${target#fuzz_}"

# The folders seeds come from; build trees, tools and outputs are never searched.
roots=(examples pipelines plugins templates tests bench engine/data scripts docs)

# Files under `roots` whose name matches one of the find(1) patterns given.
named() {
  local expr=()
  for pattern in "$@"; do
    ((${#expr[@]})) && expr+=(-o)
    expr+=(-name "$pattern")
  done
  find "${roots[@]}" -type f \( "${expr[@]}" \) | sort
}

seeds() {
case "$target" in
  python_facts) named '*.py' ;;
  rule_file) find plugins/*/rules tests/plugins/rules bench/peers examples/rule_pack/rules -name '*.yaml' -type f | sort ;;
  rule_pack) { find examples -name pack.yaml -type f; find examples/rule_pack plugins -maxdepth 2 -name README.md -type f; } | sort ;;
  pipeline) find pipelines tests/plan_fixtures -name '*.yaml' -type f | sort ;;
  fleet_manifest) named 'fleet*.yaml' ;;
  fleet_repos_csv) named '*.csv' ;;
  requirements) named 'requirements*.txt' 'constraints*.txt' '*.txt.mustache' ;;
  pyproject) named 'pyproject.toml' ;;
  setup_cfg) named 'setup.cfg' '*.cfg' ;;
  conda_environment) named 'environment.yml' 'environment.yaml' 'conda*.yml' ;;
  cog_config) named 'cog.yaml' 'cog.yml' ;;
  dockerfile) named 'Dockerfile' 'Dockerfile.*' '*.dockerfile' ;;
  shell_script) named '*.sh' '*.sh.mustache' ;;
  cuda_source)
    # The native sources of the fixtures (not the project's own C++), and every CMake file.
    roots=(examples tests/plan_fixtures plugins/*/tests/fixtures plugins/*/tests/fake_cann)
    named '*.cu' '*.cuh' '*.cpp' '*.cc' '*.h' '*.hpp'
    roots=(examples plugins tests bench cmake)
    named 'CMakeLists.txt' '*.cmake' 'Makefile' '*.mk'
    ;;
  mustache) named '*.mustache' ;;
  findings_json | emit_json | verify_json) named '*.json' ;;
  cache_entry) ;; # binary values of analysis.db: only the reproducers below
  *)
    echo "seeds.sh: unknown target '$target'" >&2
    exit 2
    ;;
esac

if [[ -d "fuzz/regressions/$target" ]]; then
  find "fuzz/regressions/$target" -type f | sort
fi
}
# Absolute paths: the callers run elsewhere.
seeds | sed "s|^\([^/]\)|$PWD/\1|"
if [[ -n "${MIGRATE_FUZZ_RUN_DIR:-}" && -d "$MIGRATE_FUZZ_RUN_DIR" && "$target" == *_json ]]; then
  find "$(cd "$MIGRATE_FUZZ_RUN_DIR" && pwd)" -maxdepth 1 -name '*.json' -type f | sort
fi
