"""Shared test fixtures: the repository root and the optional ../shared/data folder."""
from pathlib import Path
import os, pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("MPLBACKEND", "Agg")

def shared(*parts):
    "Path under ../shared/data, or skip the test when it is absent (as on a user's machine)."
    from crowdnb.core import shared_data
    p = shared_data(*parts)
    if p is None: pytest.skip(f"../shared/data/{'/'.join(parts)} is absent")
    return p
