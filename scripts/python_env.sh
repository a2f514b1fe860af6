# Sourced by setup.sh and test.sh: which Python the package netdp is installed for (README "Quick start",
# docs/python.md "Installation").
#
# `netdp_install_python` prints the interpreter that scripts/setup.sh installs netdp into, for the python3 on PATH:
#   1. the active virtual environment's, when there is one ($VIRTUAL_ENV);
#   2. else that python3 itself, when pip may install into it (pyenv, conda, a python built from source: its
#      standard library has no EXTERNALLY-MANAGED marker);
#   3. else (Debian's /usr/bin/python3, "externally managed", PEP 668) the virtual environment .venv in the clone,
#      created with --system-site-packages so that Debian's NumPy, SciPy, networkx and matplotlib serve it.
netdp_install_python() {
  if [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
    echo "$VIRTUAL_ENV/bin/python"
    return
  fi
  local python
  python=$(command -v python3)
  if "$python" -c 'import os, sys, sysconfig
sys.exit(os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
    echo "$python"
    return
  fi
  [ -x .venv/bin/python3 ] || "$python" -m venv --system-site-packages .venv >&2
  echo "$PWD/.venv/bin/python3"
}

# `netdp_pip PYTHON ARGS...`: pip of that interpreter, quiet about running as root and without progress bars.
netdp_pip() {
  local python=$1
  shift
  PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 "$python" -m pip install --progress-bar off "$@"
}
