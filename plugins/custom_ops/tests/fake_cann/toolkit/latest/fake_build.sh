#!/usr/bin/env bash
# Fake build.sh of a generated operator project (custom_ops emit tests): records where it runs,
# configures with cmake, and "compiles" the kernels: one that still has a #error line fails the way
# a compiler reports it; otherwise build_out/ gets a custom operator package that records its own
# path and its arguments when run. FAKE_BUILD_FAILURE, when set, is printed as the build's error
# output instead.
set -euo pipefail
printf '%s\n' "$PWD" >>"${FAKE_CANN_RECORD:?}/build.dirs"
cmake -S . -B build_out --preset=default
if [[ -n "${FAKE_BUILD_FAILURE:-}" ]]; then
  printf '%s\n' "$FAKE_BUILD_FAILURE" >&2
  exit 1
fi
for kernel in op_kernel/*.cpp; do
  if found="$(grep -n '^#error' "$kernel")"; then
    printf '%s:%s:2: error: %s\n' "$kernel" "${found%%:*}" "${found#*:#error }" >&2
    exit 1
  fi
done
mkdir -p build_out
cat >build_out/custom_opp_ubuntu_x86_64.run <<'RUN'
#!/usr/bin/env bash
printf '%s\n' "$0" "$@" >>"${FAKE_CANN_RECORD:?}/install.args"
echo "fake custom operator package installed"
RUN
chmod +x build_out/custom_opp_ubuntu_x86_64.run
echo "Self-extractable archive build_out/custom_opp_ubuntu_x86_64.run successfully created"
