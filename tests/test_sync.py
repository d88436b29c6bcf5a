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
