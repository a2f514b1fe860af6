#!/usr/bin/env bash
# README command 2: build netdp with its tests and run them (CUDA tests skip when no GPU answers); the Python
# tests run against `pip install .` in a fresh virtual environment. With
# NETDP_SANITIZE=1, then the sanitizer stage (docs/reliability.md §5): an ASan + UBSan build, its unit, CLI and
# device-bodies tests and 30 s per fuzz target (scripts/sanitize.sh, docs/reliability.md §5; CI runs it
# after this script, .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
source scripts/generator.sh
source scripts/python_env.sh
# The Python tests (tests/python, ctest label python) run against the package installed by pip from this clone
# into a fresh virtual environment (docs/python.md "Installation"); --system-site-packages: the libraries the tests use
# come from the interpreter's own site (setup.sh installed them), not downloaded again.
venv=$PWD/build/venv-tests
cmake -S . -B build $(netdp_generator build) -DCMAKE_BUILD_TYPE=Release -DNETDP_PYTHON_TESTS_INTERPRETER="$venv/bin/python"
cmake --build build -j"$(nproc)"
rm -rf "$venv"
# Without pip of its own when the interpreter has one (the venv's python runs it from the system site, and it
# installs into the venv): ensurepip would cost about 10 s more.
without_pip=""
python3 -m pip --version >/dev/null 2>&1 && without_pip=--without-pip
python3 -m venv --system-site-packages $without_pip "$venv"
pip_started=$(date +%s)
netdp_pip "$venv/bin/python" ".[test]"
echo "test.sh: netdp installed in a fresh virtual environment in $(($(date +%s) - pip_started)) s"
ctest --test-dir build --output-on-failure -j"$(nproc)"
echo "test.sh: build and tests done in $(($(date +%s) - started)) s"
if [ "${NETDP_SANITIZE:-0}" != 0 ]; then
  bash scripts/sanitize.sh build-sanitize
fi
echo "test.sh: done in $(($(date +%s) - started)) s"
