#!/usr/bin/env bash
# python-ndn interop tests: the ndn-packet codec (test_codec.py) and python-ndn apps and tools
# against a running `ndnfwd run` (test_forwarder.py).
#
# Creates ./.venv at the repository root when missing, installs tests/interop/requirements.txt,
# builds the ndn-codec-cli example and the ndnfwd binary, and runs pytest on tests/interop.
# Extra arguments go to pytest (for example -k nack). Exits non-zero on any mismatch.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r tests/interop/requirements.txt
cargo build -q --locked -p ndn-packet --example ndn-codec-cli
cargo build -q --locked -p ndnfwd
export NDN_CODEC_CLI="${CARGO_TARGET_DIR:-$root/target}/debug/examples/ndn-codec-cli"
export NDNFWD_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/ndnfwd"
export PYTHONDONTWRITEBYTECODE=1
exec .venv/bin/python -m pytest -q -p no:cacheprovider tests/interop "$@"
