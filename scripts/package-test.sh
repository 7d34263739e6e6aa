#!/usr/bin/env bash
# The packages' release check (docs/packaging.md#the-package-test); too slow for CI, run it before
# a release. As root (chroot, mount):
#   1. scripts/package.sh builds dist/*.deb (and runs lintian);
#   2. a fresh Debian 12 root (debootstrap --variant=minbase, kept as a tarball in the cache
#      directory so that later runs only unpack it) gets the package the way packaging/Containerfile
#      installs it into the Kubernetes image, and runs `migrate-pipeline run full`: the time from
#      `apt-get update` to the end of that run is "install to first run";
#   3. inside the root, with nothing from the checkout: a two-night fleet over two local git
#      repositories, `rules test` on the shipped rule pack, then `apt-get install ./dist/*.deb`
#      and `new plugin` built and tested against migrate-pipeline-dev;
#   4. both packages purged: nothing `dpkg -L` listed may be left.
#   scripts/package-test.sh [--keep]    --keep: leave the root for inspection (its path is printed)
# Environment: MIGRATE_PACKAGE_TEST_CACHE (default ~/.cache/migrate-pipeline/package-test),
# MIRROR (default http://deb.debian.org/debian), SECURITY_MIRROR (…/debian-security).
# shellcheck disable=SC2016  # the scripts in single quotes run in the root and expand there
set -euo pipefail
cd "$(dirname "$0")/.."
keep=0
[[ ${1:-} == --keep ]] && keep=1
if [[ $(id -u) -ne 0 ]]; then
  echo "package-test: needs root (debootstrap, chroot, mount /proc); run it with sudo" >&2
  exit 2
fi
mirror=${MIRROR:-http://deb.debian.org/debian}
security=${SECURITY_MIRROR:-http://deb.debian.org/debian-security}
cache=${MIGRATE_PACKAGE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/migrate-pipeline/package-test}
started=$SECONDS
step() { echo "== package-test: $* ($((SECONDS - started)) s)"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "packages"
scripts/package.sh
runtime_deb=$(ls dist/migrate-pipeline_*.deb)
packaged=$((SECONDS - started))

work=$(mktemp -d "${TMPDIR:-/tmp}/migrate-package-test.XXXXXX")
root=$work/root
mkdir "$root"
cleanup() {
  local rc=$?
  if mountpoint -q "$root/proc"; then umount "$root/proc" || umount -l "$root/proc"; fi
  if ((keep)); then
    echo "package-test: the root is kept in $root"
  elif mountpoint -q "$root/proc"; then
    echo "package-test: $root/proc is still mounted; not removing $work" >&2
  else
    rm -rf --one-file-system "$work"
  fi
  exit "$rc"
}
trap cleanup EXIT

tarball="$cache/bookworm-minbase.tar"
if [[ -f $tarball ]]; then
  step "a fresh Debian 12 root from $tarball"
  tar --numeric-owner -C "$root" -xpf "$tarball"
else
  step "debootstrap of a Debian 12 root (cached in $tarball for the next runs)"
  mkdir -p "$cache"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
  tar --numeric-owner -C "$root" -cpf "$tarball.part" . && mv "$tarball.part" "$tarball"
fi
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
  "$mirror" "$mirror" "$security" >"$root/etc/apt/sources.list"
# This host's proxy and Release-validity settings, when it has some, for the root's apt too; no
# pseudo-terminal for dpkg's log (the root has no /dev/pts).
apt-config dump | grep -E '^Acquire::(https?::Proxy|Check-Valid-Until|Check-Date) ' \
  >"$root/etc/apt/apt.conf.d/90host" || true
echo 'Dpkg::Use-Pty "0";' >>"$root/etc/apt/apt.conf.d/90host"

image_env=()
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "${image_env[@]}" "$@"
}

# The image's content as a root file system (no container runtime here): packaging/Containerfile's
# COPY, ENV and RUN instructions replayed in the root, with dist/ as the build context.
replay_containerfile() {
  local line instruction args
  while IFS= read -r line; do
    instruction=${line%% *} args=${line#* }
    case $instruction in
      FROM | ENTRYPOINT | CMD) ;;
      COPY)
        # shellcheck disable=SC2086  # the source is a glob in the build context
        cp -- dist/${args% *} "$root${args##* }" ;;
      ENV) image_env+=("$args") ;;
      RUN) in_root sh -ec "$args" ;;
      *) fail "packaging/Containerfile: $instruction is not replayed by this test" ;;
    esac
  done < <(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d' packaging/Containerfile |
    sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
}

step "install as packaging/Containerfile does, then the first run"
install_started=$SECONDS
replay_containerfile
installed=$((SECONDS - install_started))
in_root sh -ec 'mkdir -p ~/work && cd ~/work && migrate-pipeline run full --output out/full' ||
  fail "migrate-pipeline run full"
first_run=$((SECONDS - install_started))
in_root sh -ec 'cd ~/work
  for f in out/full/findings.json out/full/verify.json out/full/npu_migration.patch out/full/CodeReview_Results_*.md \
           CodeReview_Results_*.md; do test -s "$f" || { echo "missing: $f"; exit 1; }; done
  python3 -c "import json, sys; v = json.load(open(\"out/full/verify.json\")); print(\"verify:\", v[\"status\"], v[\"verdict\"])"' ||
  fail "the outputs of run full"

step "a two-night fleet over two local git repositories"
in_root apt-get update -qq # the image's instructions removed the lists
in_root apt-get install -y -qq --no-install-recommends git >/dev/null # the test's tool for its repositories
in_root sh -ec '
  cd ~/work
  commit() { git -c user.name=test -c user.email=test@example.org commit -qam "$1"; }
  for r in alpha beta; do
    mkdir -p "repos/$r" && cd "repos/$r" && git init -q -b main
    printf "import torch\n\nmodel = torch.nn.Linear(4, 4).cuda()\ntorch.cuda.synchronize()\n" >train.py
    git add -A && commit one && cd ~/work
  done
  printf "format: 1\npipeline: full\ndefaults: {stages: [analyze, plan, emit, report]}\nrepos:\n  - {name: alpha, source: repos/alpha}\n  - {name: beta, source: repos/beta}\n" >fleet.yaml
  migrate-pipeline fleet run fleet.yaml --output fleet --night night-1 -q
  (cd repos/alpha && printf "n = torch.cuda.device_count()\n" >>train.py && commit two)
  migrate-pipeline fleet run fleet.yaml --output fleet --night night-2 -q
  migrate-pipeline fleet history fleet
  migrate-pipeline fleet status fleet --format json >night-2.json
  python3 - <<EOF
import json
rows = {r["name"]: r["status"] for r in json.load(open("night-2.json"))["repos"]}
assert rows == {"alpha": "succeeded", "beta": "cached"}, rows
print("fleet: night-2", rows)
EOF
  test -s fleet/index.html' || fail "the fleet"

step "rules test on the shipped rule pack"
in_root migrate-pipeline rules test /usr/share/migrate-pipeline/examples/rule_pack | tail -1 |
  grep "all passed" || fail "rules test"

step "apt-get install ./dist/*.deb, and new plugin against migrate-pipeline-dev"
mkdir -p "$root/root/dist"
cp dist/*.deb "$root/root/dist/"
in_root sh -ec 'cd ~ && apt-get install -y -qq --no-install-recommends ./dist/*.deb build-essential >/dev/null'
in_root sh -ec '
  cd ~/work
  migrate-pipeline new plugin acme-gpu --dir plugins
  cd plugins/acme-gpu
  cmake -B build >/dev/null && cmake --build build >/dev/null
  ctest --test-dir build --output-on-failure | tail -3
  migrate-pipeline rules test . --plugin-dir build/plugins | tail -1' || fail "new plugin"

step "purge"
in_root dpkg -L migrate-pipeline migrate-pipeline-dev >"$work/listed"
in_root apt-get purge -y -qq migrate-pipeline migrate-pipeline-dev >/dev/null
left=()
while IFS= read -r path; do
  [[ -e $root$path || -L $root$path ]] || continue
  # Directories other packages share (/usr/share/doc, /usr/bin, …) stay; ours must go.
  [[ -d $root$path && ! -L $root$path && $path != *migrate* && $path != */MigratePipeline* ]] && continue
  left+=("$path")
done <"$work/listed"
listed=$(wc -l <"$work/listed")
((${#left[@]} == 0)) || fail "left after apt-get purge: ${left[*]}"
in_root sh -c '! dpkg -s migrate-pipeline migrate-pipeline-dev >/dev/null 2>&1' || fail "still known to dpkg"
echo "purge: none of the $listed paths dpkg -L listed is left"

step "done"
echo "package-test: passed. packages built in ${packaged} s; install to first run ${first_run} s" \
  "(the install ${installed} s, run full $((first_run - installed)) s); $(du -h "$runtime_deb" | cut -f1)" \
  "package; total $((SECONDS - started)) s"
