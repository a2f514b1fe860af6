"""The package as pip installs it (docs/python.md "Installation"): one version number, CMakeLists.txt's, in
importlib.metadata and netdp.__version__; under scripts/test.sh (NETDP_TEST_INSTALLED=1), the package imported is
the one pip installed into this virtual environment, not the build tree's."""

import os
import re
import sys

import pytest

import netdp
from conftest import SOURCE_DIR


def project_version():
    with open(os.path.join(SOURCE_DIR, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(netdp VERSION ([0-9.]+)", f.read()).group(1)


def test_version_is_the_project_version():
    assert netdp.__version__ == project_version()
    assert netdp._netdp.version().startswith(project_version() + " (")


@pytest.mark.skipif(os.environ.get("NETDP_TEST_INSTALLED") != "1", reason="the build tree's package (PYTHONPATH)")
def test_installed_in_this_environment():
    from importlib import metadata
    assert metadata.version("netdp") == project_version()
    assert sys.prefix != sys.base_prefix  # a virtual environment
    assert os.path.realpath(netdp.__file__).startswith(os.path.realpath(sys.prefix) + os.sep)
