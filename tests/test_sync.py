"""The library is generated from the notebooks, and README.md from nbs/index.ipynb: check both are in sync."""
import filecmp, shutil, subprocess, sys
from pathlib import Path
from conftest import ROOT

def test_export_leaves_library_unchanged(tmp_path):
    "nbdev-export on a copy of the notebooks reproduces crowdnb/*.py byte for byte."
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "nbs", tmp_path / "nbs", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    (tmp_path / "crowdnb").mkdir()
    shutil.copy(ROOT / "crowdnb" / "__init__.py", tmp_path / "crowdnb" / "__init__.py")
    exe = Path(sys.executable).parent / "nbdev-export"
    subprocess.run([str(exe)], cwd=tmp_path, check=True, capture_output=True)
    made = sorted(p.name for p in (tmp_path / "crowdnb").glob("*.py"))
    have = sorted(p.name for p in (ROOT / "crowdnb").glob("*.py"))
    assert made == have, f"modules differ: exported {made}, committed {have}"
    stale = [n for n in made if not filecmp.cmp(tmp_path / "crowdnb" / n, ROOT / "crowdnb" / n, shallow=False)]
    assert not stale, f"crowdnb/{stale} differ from what the notebooks export: run nbdev-export"

def test_readme_matches_index():
    sys.path.insert(0, str(ROOT / "tools"))
    import make_readme
    assert (ROOT / "README.md").read_text() == make_readme.render(), "README.md is stale: run `make readme`"

def test_notebooks_are_clean():
    "Notebooks are committed cleaned: no execution counts or per-cell metadata noise."
    import json
    dirty = []
    for nb in sorted((ROOT / "nbs").glob("*.ipynb")):
        d = json.loads(nb.read_text())
        if any(c.get("execution_count") for c in d["cells"] if c["cell_type"] == "code"): dirty.append(nb.name)
    assert not dirty, f"run nbdev-clean: {dirty}"

def test_import_cells_hold_only_imports():
    "nbdev's docs build executes every cell that imports something: such cells must not need other state."
    import ast, json
    bad = []
    for nb in sorted((ROOT / "nbs").glob("*.ipynb")):
        for i, c in enumerate(json.loads(nb.read_text())["cells"]):
            if c["cell_type"] != "code": continue
            src = "".join(c["source"])
            if any(l.strip().startswith("#|") and "export" in l for l in src.splitlines()): continue
            code = "\n".join(l for l in src.splitlines() if not l.lstrip().startswith(("%", "!")))
            try: tree = ast.parse(code)
            except SyntaxError: continue
            has_imp = any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree))
            other = [n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom))]
            if has_imp and other: bad.append(f"{nb.name} cell {i}")
    assert not bad, f"cells mixing imports with other code (split them): {bad}"

def test_docs_preprocessing_runs(tmp_path):
    "nbdev-proc-nbs (the step before Quarto in the docs build) succeeds on every notebook."
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(ROOT / "nbs", tmp_path / "nbs", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    exe = Path(sys.executable).parent / "nbdev-proc-nbs"
    r = subprocess.run([str(exe)], cwd=tmp_path, capture_output=True, text=True, env={**__import__("os").environ, "MPLBACKEND": "Agg"})
    errors = [l for l in (r.stdout + r.stderr).splitlines() if "Error" in l]
    assert r.returncode == 0 and not errors, (r.stdout + r.stderr)[-3000:]

def test_exported_symbols_have_docstrings():
    "Every public function and class the notebooks export has a docstring."
    import importlib, inspect
    missing = []
    for py in sorted((ROOT / "crowdnb").glob("*.py")):
        if py.name.startswith("_"): continue
        mod = importlib.import_module(f"crowdnb.{py.stem}")
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name, None)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and getattr(obj, "__module__", "") == mod.__name__ \
                    and not inspect.getdoc(obj):
                missing.append(f"{py.stem}.{name}")
    assert not missing, f"exported without a docstring: {missing}"

def test_exported_symbols_are_used_in_their_notebook():
    "Every exported function appears in a non-exported code cell of its notebook (an example or a test next to it)."
    import json, re, importlib, inspect
    missing = []
    for nb in sorted((ROOT / "nbs").glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        src = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
        exp = [re.search(r"^#\|\s*default_exp\s+(\S+)", s, re.M) for s in src]
        mods = [m.group(1) for m in exp if m]
        if not mods: continue
        mod = importlib.import_module(f"crowdnb.{mods[0]}")
        examples = "\n".join(s for s in src if not re.search(r"^#\|\s*export", s, re.M))
        for name in getattr(mod, "__all__", []):
            if not inspect.isfunction(getattr(mod, name, None)): continue   # result classes and constants: used via the functions
            if not re.search(rf"\b{re.escape(name)}\b", examples): missing.append(f"{mods[0]}.{name}")
    assert not missing, f"exported but never shown or tested in its notebook: {missing}"
