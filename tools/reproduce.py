"""Execute every notebook top to bottom (slow cells included) and build the documentation site in _site/.

No Quarto needed: notebooks are executed with nbdev's runner (execnb) on copies in _site/executed/, with
`CROWDNB_PROGRESS=0` (no progress bars in the outputs), then the site is built from those executed copies
by tools/site/build.py (nbdev's processors, sidebar, table of contents, local MathJax; see that file).
A page "Reproduction run" lists each notebook's status and time. Stops with exit status 1 if any notebook
fails (the site is still written, with the failing notebook's error on its page).
Usage: python tools/reproduce.py [--out _site] [--only WORD] [--save]   (--save: write outputs back into nbs/)
"""
from __future__ import annotations
import argparse, json, os, shutil, sys, time, traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def run(out: Path, only: str = "", save: bool = False) -> int:
    from nbdev.test import test_nb
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["CROWDNB_PROGRESS"] = "0"      # crowdnb's progress=None default: no bars in stored outputs
    out = out.resolve()
    nbs = sorted(p for p in (ROOT / "nbs").glob("*.ipynb") if only in p.name and not p.name.startswith("_"))
    exe = out / "executed"; exe.mkdir(parents=True, exist_ok=True)
    for old in exe.glob("*.ipynb"): old.unlink()
    report, failed, t_all, started = [], [], time.time(), time.strftime("%Y-%m-%d %H:%M")
    for nb in nbs:
        copy = exe / nb.name
        shutil.copy(nb, copy)
        print(f"executing {nb.name} ...", flush=True)
        t0 = time.time(); cwd = os.getcwd(); os.chdir(nb.parent)   # notebooks run from nbs/, as in tests
        try: ok, _ = test_nb(copy, skip_flags=[], force_flags=["slow"], save=True, showerr=True, cell_timeout=3600)
        except Exception: traceback.print_exc(); ok = False
        finally: os.chdir(cwd)
        secs = time.time() - t0
        if ok and save:
            d = json.loads(copy.read_text())
            src = json.loads(nb.read_text())
            for c_src, c_run in zip(src["cells"], d["cells"]):
                if c_src["cell_type"] == "code": c_src["outputs"] = c_run.get("outputs", [])
            nb.write_text(json.dumps(src, indent=1, ensure_ascii=False) + "\n")
        report.append((nb.name, ok, secs))
        print(f"  {'ok' if ok else 'FAILED'} in {secs:.1f}s", flush=True)
        if not ok: failed.append(nb.name)
    print(f"executed {len(nbs)} notebooks in {time.time() - t_all:.0f} s; building the site ...", flush=True)
    from tools.site.build import build
    build(out, exe, report=report, source_label=f"notebooks executed in a run started {started}")
    print(f"\nsite: open {(out / 'index.html').resolve()} in a browser (it reads offline)")
    if failed: print(f"FAILED notebooks: {', '.join(failed)}"); return 1
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "_site")); ap.add_argument("--only", default="")
    ap.add_argument("--save", action="store_true")
    a = ap.parse_args()
    sys.exit(run(Path(a.out), a.only, a.save))
