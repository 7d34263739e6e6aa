#!/usr/bin/env bash
# The fleet store at scale: a store of REPOS repositories × NIGHTS nights (defaults 1000 × 30),
# generated, then `fleet diff` (the latest night against the one before, Markdown and JSON),
# `fleet report` (Markdown and JSON, with its what-if), `fleet status`, `fleet history` and
# `fleet dashboard` timed on it. Prints each command's wall seconds and the store's size per
# repository-night. Issue 34's targets: `fleet diff` and `fleet report` under 2 s each.
#   bench/fleet_store_bench.sh [REPOS] [NIGHTS]   (MIGRATE_CLI: the binary; KEEP=1 keeps the store)
# The schema comes from the binary itself (a one-repository night run first); the rows are
# written with Python's sqlite3: each repository has 20 findings a night, 2 of which change from
# one night to the next, one or two blocking dependencies and a plan of six bottlenecks to judge,
# and a quarter of the rows are cached. A benchmark, not a test.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cli="${MIGRATE_CLI:-$here/../build/bin/migrate-pipeline}"
repos="${1:-1000}"
nights="${2:-30}"
die() { echo "fleet_store_bench: $*" >&2; exit 1; }
command -v "$cli" >/dev/null || die "no migrate-pipeline at $cli (build it, or set MIGRATE_CLI)"
work="$(mktemp -d)"
if [[ -n "${KEEP:-}" ]]; then echo "fleet_store_bench: work directory $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

# A real store, for its schema: one plain directory, one night.
mkdir -p "$work/seed/src"
printf 'import torch\ntorch.cuda.synchronize()\n' >"$work/seed/src/train.py"
printf 'format: 1\npipeline: analyze-only\nrepos:\n  - {name: seed, source: src}\n' >"$work/seed/fleet.yaml"
"$cli" fleet run "$work/seed/fleet.yaml" --output "$work/fleet" -q >/dev/null || die "the seed night failed"

python3 - "$work/fleet/fleet.db" "$repos" "$nights" <<'PY'
import hashlib, json, random, sqlite3, sys
db, repos, nights = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
con = sqlite3.connect(db)
con.execute("DELETE FROM runs")
con.execute("DELETE FROM nights")
rng = random.Random(7)
def fingerprint(*parts):
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()[:32]
current = {r: [(fingerprint(r, i), "DEV-%03d" % (i % 9 + 1), "pkg/mod%d.py" % (i % 5), 10 + i) for i in range(20)]
           for r in range(repos)}
serial = 20
origin = {}  # the night of a repository's last run: what its cached rows carry over
packages = ["cupy", "flash-attn", "xformers", "apex", "deepspeed"]
con.executemany("INSERT OR REPLACE INTO rule_info(rule, title, domain, no_counterpart) VALUES(?, ?, 'device', ?)",
                [("DEV-%03d" % k, "Rule %d of the device domain" % k, k % 4 == 0) for k in range(1, 10)])
def plan(r, n):
    deps = [packages[(r + k) % 5] for k in range(1 + r % 2)]
    members = [{"id": "#%03d" % (i + 1), "rule": "DEV-%03d" % ((r + i) % 9 + 1), "alternative": True,
                "severity": "warning", "difficulty": "low",
                "autofix": i % 2 == 0, "first": 0.1, "each": 0.05, "places": 2 + i} for i in range(5)]
    members.append({"id": "#006", "rule": "DEP-005", "alternative": False,
                    "severity": "error", "difficulty": "high", "autofix": False, "first": 0.5, "each": 0.25,
                    "places": len(deps), "packages": {d: 1 for d in deps}})
    doc = {"goal": "single_card_training", "verdict": "infeasible",
           "effort": {"days_per_week": 5, "integration_factor": 0.3, "hard_weeks": 8, "hard_bottleneck_days": 3},
           "members": members}
    return deps, json.dumps(doc, separators=(",", ":"))
for n in range(1, nights + 1):
    label = "2026-10-%02d" % n if n <= 31 else "night-%d" % n
    con.execute("INSERT INTO nights(id, label, started_at, finished_at, state, tool_version, manifest) "
                "VALUES(?, ?, ?, ?, 'completed', '0.4.0', 'fleet.yaml')",
                (n, label, label + "T02:00:00Z", label + "T03:00:00Z"))
    for r in range(repos):
        name = "repo%04d" % r
        cached = n > 1 and rng.random() < 0.25
        if not cached:
            origin[r] = n
            for _ in range(2):  # one finding fixed, one new
                current[r].pop(rng.randrange(len(current[r])))
                serial += 1
                current[r].append((fingerprint(r, serial), "DEV-%03d" % (serial % 9 + 1), "pkg/mod%d.py" % (serial % 5),
                                   10 + serial % 300))
        con.execute("INSERT INTO runs(night_id, repo, source, commit_sha, status, cache_key, tool_key, output_dir, "
                    "cached_from, findings, findings_fixed, effort_days, verdict) "
                    "VALUES(?, ?, ?, ?, ?, ?, 'tk', ?, ?, 20, 5, 1.5, 'needs adaptation')",
                    (n, name, "https://example.org/" + name, fingerprint("commit", r, n), "cached" if cached else "succeeded",
                     fingerprint("key", r, n), "repos/%s/%s" % (name, label), origin[r] if cached else None))
        deps, inputs = plan(r, n)
        if not cached:
            con.executemany("INSERT INTO findings(night_id, repo, fingerprint, rule, file, line, fixed) "
                            "VALUES(?, ?, ?, ?, ?, ?, 0)", [(n, name) + f for f in current[r]])
            con.execute("INSERT INTO plan_inputs(night_id, repo, inputs) VALUES(?, ?, ?)", (n, name, inputs))
        con.executemany("INSERT INTO blocking_deps(night_id, repo, package, verdict, replacement, places) "
                        "VALUES(?, ?, ?, 'unsupported', 'numpy / torch', 1)", [(n, name, d) for d in deps])
        con.executemany("INSERT INTO stages(night_id, repo, stage, ord, status, seconds) VALUES(?, ?, ?, ?, 'completed', 1.0)",
                        [(n, name, s, i) for i, s in enumerate(("analyze", "plan", "emit", "report"))])
        con.executemany("INSERT INTO finding_counts(night_id, repo, rule, domain, severity, total, fixed, effort_days) "
                        "VALUES(?, ?, ?, 'device', 'warning', 2, 1, 0.15)", [(n, name, "DEV-%03d" % k) for k in range(1, 10)])
con.commit()
con.execute("VACUUM")
con.close()
PY
size="$(stat -c %s "$work/fleet/fleet.db")"
echo "store: $repos repositories × $nights nights, $((size / 1024 / 1024)) MiB, $((size / repos / nights)) bytes per repository-night"
timed() {
  local name="$1" start end
  shift
  start="$(date +%s.%N)"
  "$@" >"$work/$name.out" || die "$name failed"
  end="$(date +%s.%N)"
  printf '%-22s %6.2f s\n' "$name" "$(echo "$end - $start" | bc)"
}
timed "fleet diff (md)" "$cli" fleet diff "$work/fleet"
timed "fleet diff (json)" "$cli" fleet diff "$work/fleet" --format json
timed "fleet report (md)" "$cli" fleet report "$work/fleet"
timed "fleet report (json)" "$cli" fleet report "$work/fleet" --format json
timed "fleet status" "$cli" fleet status "$work/fleet" --format json
timed "fleet history" "$cli" fleet history "$work/fleet"
timed "fleet dashboard" "$cli" fleet dashboard "$work/fleet"
grep -m1 'new, ' "$work/fleet diff (md).out"
grep -m1 '| dependency | cupy' "$work/fleet report (md).out"
