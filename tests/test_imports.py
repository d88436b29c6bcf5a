"""The package's import graph (issue: one engine): no private name crosses a module boundary, no method module
imports crowdnb.dask, crowdnb.dask imports no method module, and the graph has no circle."""
import ast
from pathlib import Path

import pytest
from conftest import ROOT

PKG = ROOT / "crowdnb"
MODULES = sorted(p.stem for p in PKG.glob("*.py") if p.stem not in ("__init__", "_modidx"))
# the front door, the engine and the executors: every other module is a method module (or a face over them)
INFRA = {"core", "engine", "dask"}


def _imports(mod: str):
    "(imported crowdnb module, [names], line) for every import in the module, at any depth."
    tree = ast.parse((PKG / f"{mod}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1: target = node.module or ""
            elif (node.module or "").startswith("crowdnb"): target = node.module[len("crowdnb."):] if node.module != "crowdnb" else ""
            else: continue
            if target == "":                       # from crowdnb import x / from . import x: x is a module or __version__
                for a in node.names:
                    if a.name in MODULES: yield a.name, [], node.lineno
                continue
            yield target, [a.name for a in node.names], node.lineno
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("crowdnb."): yield a.name[len("crowdnb."):], [], node.lineno


def _attr_privates(mod: str):
    "Private attributes read from another crowdnb module bound to a name (`import crowdnb.x as m; m._y`)."
    tree = ast.parse((PKG / f"{mod}.py").read_text(encoding="utf-8"))
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level <= 1 and (node.level == 1 or node.module == "crowdnb"):
            for a in node.names:
                if a.name in MODULES: aliases[a.asname or a.name] = a.name
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("crowdnb.") and a.asname: aliases[a.asname] = a.name[len("crowdnb."):]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            if node.attr.startswith("_") and not node.attr.startswith("__"):
                yield aliases[node.value.id], node.attr, node.lineno


def test_no_private_name_crosses_a_module():
    bad = [f"{m}.py:{ln} takes {n} from {t}" for m in MODULES for t, names, ln in _imports(m)
           for n in names if t != m and n.startswith("_") and n != "__version__"]
    bad += [f"{m}.py:{ln} reads {t}.{n}" for m in MODULES for t, n, ln in _attr_privates(m) if t != m]
    assert not bad, "private names cross module boundaries:\n" + "\n".join(bad)


def test_method_modules_do_not_import_dask_and_dask_imports_no_method():
    bad = [f"{m}.py:{ln} imports crowdnb.dask" for m in MODULES if m not in INFRA
           for t, _, ln in _imports(m) if t == "dask"]
    bad += [f"dask.py:{ln} imports the method module {t}" for t, _, ln in _imports("dask") if t not in INFRA]
    assert not bad, "\n".join(bad)


def test_import_graph_has_no_circle():
    graph = {m: {t for t, _, _ in _imports(m) if t in MODULES and t != m} for m in MODULES}
    state = {}
    def visit(m, path):
        if state.get(m) == 1: raise AssertionError("import circle: " + " -> ".join(path + [m]))
        if state.get(m) == 2: return
        state[m] = 1
        for t in sorted(graph[m]): visit(t, path + [m])
        state[m] = 2
    for m in MODULES: visit(m, [])


def test_the_walk_sees_what_it_checks(tmp_path, monkeypatch):
    "The checks can fail: a module taking a private name, and a circle, are caught."
    global PKG, MODULES
    (tmp_path / "a.py").write_text("from .b import _hidden\n")
    (tmp_path / "b.py").write_text("def f():\n    from crowdnb.a import x\n")
    monkeypatch.setattr(__import__(__name__), "PKG", tmp_path)
    monkeypatch.setattr(__import__(__name__), "MODULES", ["a", "b"])
    with pytest.raises(AssertionError, match="a.py:1 takes _hidden from b"): test_no_private_name_crosses_a_module()
    with pytest.raises(AssertionError, match="import circle"): test_import_graph_has_no_circle()


def test_cli_start_up_leaves_heavy_modules_unloaded():
    "Importing the CLI (every `crowdnb` call does) loads neither scipy.stats, scipy.optimize nor numba (CONTRIBUTING)."
    import subprocess, sys
    code = ("import sys, crowdnb.cli; "
            "print(sorted(m for m in ('scipy.stats', 'scipy.optimize', 'numba', 'dask') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
