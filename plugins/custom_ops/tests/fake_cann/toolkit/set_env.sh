# shellcheck shell=bash
# Fake CANN set_env.sh for the custom_ops emit tests (not the real toolkit's): puts the fake tools
# of latest/bin on PATH, as the real one puts the toolkit's tools there.
fake_toolkit_root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
export PATH="$fake_toolkit_root/latest/bin:$PATH"
export ASCEND_HOME_PATH="$fake_toolkit_root/latest"
