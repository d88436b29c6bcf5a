"""Run nbdev's documentation processors (`FilterDefaults`, what `nbdev-proc-nbs` runs) on notebooks.

Usage: python -m tools.site.proc OUT_DIR NB [NB ...]   (run from the project root, where pyproject.toml is)
Writes OUT_DIR/<name>.ipynb for every notebook it could process; for one it could not (a notebook being
edited, a `show_doc` of a renamed function), it writes OUT_DIR/<name>.error with the reason and goes on.
The builder runs this in child processes: the processors execute the notebooks' export cells and `show_doc`
calls in-process (execnb), so they are kept out of the builder's own process.
"""
from __future__ import annotations
import functools, os, sys, traceback
from pathlib import Path


def cache_toml():
    """nbdev's processors ask `get_config()` for every cell, and each call reads and parses pyproject.toml twice
    (about half the processing time): parse each file once per (path, size, mtime) instead."""
    import nbdev.config as cfg
    if getattr(cfg._load_toml, "cached", False): return
    parse = functools.lru_cache(maxsize=None)(lambda p, stamp: cfg.tomllib.loads(Path(p).read_text(encoding="utf-8")))
    def load(p):
        st = os.stat(p)
        return parse(str(Path(p).resolve()), (st.st_size, st.st_mtime_ns))   # one dict, shared: nbdev only reads it
    load.cached = True
    cfg._load_toml = load


def process(src: Path, out: Path) -> bool:
    import json
    from fastcore.nbio import dict2nb, write_nb
    from nbdev.processors import FilterDefaults
    from tools.site.build import split_title_cell
    os.environ["IN_TEST"] = "1"            # as nbdev's serve driver does while processing
    try:
        js = json.loads(src.read_text(encoding="utf-8"))
        js["cells"] = split_title_cell(js["cells"])     # keep the text nbdev's front matter would swallow
        nb = dict2nb(js); nb["path_"] = str(src)
        FilterDefaults()(nb)
        for c in nb.cells: c.get("metadata", {}).pop("execution", None)   # execnb's float timings
        write_nb(nb, out / src.name)
        return True
    except BaseException as e:  # noqa: BLE001 - a broken notebook must not stop the site
        (out / (src.stem + ".error")).write_text(f"{type(e).__name__}: {e}\n\n{traceback.format_exc()}")
        return False
    finally:
        os.environ.pop("IN_TEST", None)


if __name__ == "__main__":
    out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
    import matplotlib; matplotlib.use("Agg")
    cache_toml()
    for a in sys.argv[2:]: process(Path(a), out)
