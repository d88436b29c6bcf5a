"""`nbdev-export` that keeps the modification time of every module whose text it left as it was.

crowdnb's kernels (`crowdnb.core.kernel`: numba, `cache=True`) are cached on disk beside their module, and numba keys
that cache on the module file's modification time and size. nbdev-export rewrites every module, changed or not, so
after it each notebook process of `make reproduce` compiled again every kernel it used (minutes of CPU in all).
Usage (from anywhere): python tools/export.py    (what `make export` runs; same effect as nbdev-export otherwise)
"""
from __future__ import annotations
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def snapshot(pkg: Path) -> dict:
    "Path -> (bytes, os.stat_result) of every Python file under `pkg`."
    return {p: (p.read_bytes(), p.stat()) for p in pkg.rglob("*.py")}


def export(root: Path = ROOT) -> int:
    "Run nbdev's export in `root`; put back the old times of the modules it did not change. How many were kept."
    from nbdev.config import get_config
    from nbdev.doclinks import nbdev_export
    os.chdir(root)
    before = snapshot(get_config().lib_path)
    nbdev_export()
    kept = 0
    for p, (data, st) in before.items():
        if p.exists() and p.stat().st_mtime_ns != st.st_mtime_ns and p.read_bytes() == data:
            os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns)); kept += 1
    return kept


if __name__ == "__main__":
    n = export()
    print(f"exported; {n} unchanged module(s) keep their modification time (numba's kernel cache stays valid)")
