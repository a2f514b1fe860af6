"""Shared helpers of the Python package's tests (docs/python.md): the netdp program to compare with, and a
command line built from the same keywords a Python call takes."""

import json
import os
import subprocess

import pytest

CLI = os.environ.get("NETDP_CLI", "netdp")
SOURCE_DIR = os.environ.get("NETDP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def cli_arguments(model, **kwargs):
    """`netdp MODEL --key value ...` for the keywords of a Python call: '_' -> '-', lists comma-separated,
    True flags as bare options (numbers as Python's repr: the shortest text of the same double)."""
    args = [CLI] + model.split(" ")
    for key, value in kwargs.items():
        option = "--" + key.replace("_", "-")
        if value is True:
            args.append(option)
        elif isinstance(value, (list, tuple)):
            args += [option, ",".join(repr(v) for v in value)]
        else:
            args += [option, str(value) if isinstance(value, str) else repr(value)]
    return args


def run_cli(args, expect=0):
    """Runs the netdp program; returns (exit code, stdout, stderr) and checks the exit code."""
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == expect, f"{' '.join(args)}: exit {done.returncode}\n{done.stderr}"
    return done.returncode, done.stdout, done.stderr


def without_timings(value):
    """A JSON value without its wall-clock fields (seconds*, *_per_second), which differ from run to run, and the
    backend's note (device_note: the pip-installed package has no CUDA backend while the program may, so `auto`
    explains its CPU choice differently; docs/python.md "CPU only")."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items()
                if "seconds" not in k and "per_second" not in k and k != "device_note"}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def same_files(a, b, skip=("manifest.json",)):
    """Two results directories hold the same files, byte-identical except the JSON files' timings (and the
    manifests, which hold the invocation); returns the names compared."""
    names_a, names_b = sorted(os.listdir(a)), sorted(os.listdir(b))
    assert names_a == names_b
    compared = []
    for name in names_a:
        if name in skip:
            continue
        with open(os.path.join(a, name), "rb") as fa, open(os.path.join(b, name), "rb") as fb:
            bytes_a, bytes_b = fa.read(), fb.read()
        if name.endswith(".json"):
            assert without_timings(json.loads(bytes_a)) == without_timings(json.loads(bytes_b)), name
        else:
            assert bytes_a == bytes_b, f"{name} differs between {a} and {b}"
        compared.append(name)
    return compared


@pytest.fixture
def cli():
    return CLI
