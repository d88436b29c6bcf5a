"""Every notebook in nbs/ is a test: one pytest item per notebook, run with nbdev's notebook test runner.

Cells flagged with the test flags of pyproject.toml ([tool.nbdev] tst_flags, here `slow`) are skipped, as
`nbdev-test` does; `make reproduce` runs them.
"""
from pathlib import Path
import os, pytest
from conftest import ROOT

NBS = sorted(p for p in (ROOT / "nbs").glob("*.ipynb") if not p.name.startswith("_"))

@pytest.mark.notebook
@pytest.mark.parametrize("nb", NBS, ids=[p.stem for p in NBS])
def test_notebook(nb, monkeypatch):
    from nbdev.config import get_config
    from nbdev.test import test_nb
    monkeypatch.chdir(nb.parent)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("CROWDNB_PROGRESS", "0")     # no progress bars in notebook outputs
    flags = get_config(nb).tst_flags
    ok, secs = test_nb(nb, skip_flags=flags.split() if isinstance(flags, str) else flags, showerr=True)
    assert ok, f"{nb.name} failed (see the traceback above)"
