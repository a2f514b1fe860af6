"""The committed type stub python/netdp/__init__.pyi (docs/python.md "Signatures and stubs"): it is what
`python -m netdp._stubgen` writes from the registry now (a stale stub fails), it ships with the package, and every
model function in it has the runtime function's parameters, kinds, defaults and annotations (read from the stub
with ast, independently of the generator's text)."""

import ast
import inspect
import os
import sys
import typing

import pytest

import netdp
from netdp import _stubgen
from conftest import SOURCE_DIR

STUB = os.path.join(SOURCE_DIR, "python", "netdp", "__init__.pyi")


def _stub_tree():
    with open(STUB, encoding="utf-8") as f:
        return ast.parse(f.read())


def test_committed_stub_is_current():
    with open(STUB, encoding="utf-8") as f:
        committed = f.read()
    assert committed == _stubgen.stub_text(), ("python/netdp/__init__.pyi is stale: run "
                                               "`python3 -m netdp._stubgen python/netdp/__init__.pyi`")


def test_stub_and_marker_ship_with_the_package():
    here = os.path.dirname(netdp.__file__)
    assert os.path.isfile(os.path.join(here, "__init__.pyi"))
    assert os.path.isfile(os.path.join(here, "py.typed"))


def test_stub_declares_every_public_name():
    declared = set()
    for node in _stub_tree().body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            declared.update(a.asname for a in node.names if a.asname)
        elif isinstance(node, ast.Assign):
            declared.update(t.id for t in node.targets)
        elif isinstance(node, ast.AnnAssign):
            declared.add(node.target.id)
    assert set(netdp.__all__) <= declared, set(netdp.__all__) - declared


def _namespace():
    """What the stub's annotations name, as runtime objects."""
    names = {n: getattr(typing, n) for n in ("Callable", "Hashable", "Literal", "Optional", "Union")}
    names.update(GraphLike=netdp.GraphLike, WeightsLike=netdp.WeightsLike, Result=netdp.Result,
                 Progress=netdp._signatures.Progress, OutDir=netdp._signatures.OutDir)
    return names


@pytest.mark.parametrize("name", netdp.models)
def test_stub_function_matches_the_runtime_signature(name):
    node = next(n for n in _stub_tree().body if isinstance(n, ast.FunctionDef) and n.name == name)
    runtime = list(inspect.signature(getattr(netdp, name)).parameters.values())
    args = node.args
    stub = [(a, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a in args.args] + \
           [(a, inspect.Parameter.KEYWORD_ONLY) for a in args.kwonlyargs]
    assert [a.arg for a, _ in stub] == [p.name for p in runtime]
    positional_defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
    defaults = positional_defaults + list(args.kw_defaults)
    for (a, kind), default, p in zip(stub, defaults, runtime):
        assert kind is p.kind, a.arg
        if p.default is inspect.Parameter.empty:
            assert default is None, a.arg
        else:
            assert ast.literal_eval(default) == p.default, a.arg
        if sys.version_info >= (3, 10):  # `X | None` evaluates from 3.10 on
            assert eval(ast.unparse(a.annotation), _namespace()) == p.annotation, a.arg


def test_mypy_stubtest_when_installed(tmp_path):
    """mypy's stubtest over the whole package, where mypy is installed (`pip install mypy`; not in CI). The
    native module's stub is partial and the type-checking-only imports of _signatures are not runtime names:
    tests/python/stubtest_allowlist.txt lists them."""
    pytest.importorskip("mypy")
    import subprocess
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nignore_missing_imports = True\n")  # networkx, scipy, tqdm ship no stubs
    allowlist = os.path.join(os.path.dirname(__file__), "stubtest_allowlist.txt")
    done = subprocess.run([sys.executable, "-m", "mypy.stubtest", "netdp", "--mypy-config-file", str(config),
                           "--allowlist", allowlist], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
