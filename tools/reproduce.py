"""Execute every notebook top to bottom (slow cells included) and write a browsable HTML report to _site/.

No Quarto needed: notebooks are executed with nbdev's runner (execnb) on copies in _site/executed/, then
converted with nbconvert. Stops with exit status 1 if any notebook fails.
Usage: python tools/reproduce.py [--out _site] [--only WORD] [--save]   (--save: write outputs back into nbs/)
"""
from __future__ import annotations
import argparse, html, json, os, shutil, sys, time, traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def _title(nb: dict, fallback: str) -> str:
    for c in nb["cells"]:
        if c["cell_type"] == "markdown":
            for line in "".join(c["source"]).splitlines():
                if line.startswith("# "): return line[2:].strip()
    return fallback

def _strip_exec_metadata(nb: dict) -> dict:
    "nbconvert's schema check rejects execnb's float `execution` metadata: drop it."
    for c in nb["cells"]: c.get("metadata", {}).pop("execution", None)
    return nb

def run(out: Path, only: str = "", save: bool = False) -> int:
    from nbdev.test import test_nb
    from nbconvert import HTMLExporter
    import nbformat
    os.environ.setdefault("MPLBACKEND", "Agg")
    out = out.resolve()
    nbs = sorted(p for p in (ROOT / "nbs").glob("*.ipynb") if only in p.name)
    exe = out / "executed"; exe.mkdir(parents=True, exist_ok=True)
    pages = out / "notebooks"; pages.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(); exporter.exclude_input_prompt = True; exporter.exclude_output_prompt = True
    rows, failed = [], []
    for nb in nbs:
        copy = exe / nb.name
        shutil.copy(nb, copy)
        print(f"executing {nb.name} ...", flush=True)
        t0 = time.time(); cwd = os.getcwd(); os.chdir(nb.parent)   # notebooks run from nbs/, as in tests
        try: ok, _ = test_nb(copy, skip_flags=[], force_flags=["slow"], save=True, showerr=True, cell_timeout=3600)
        except Exception: traceback.print_exc(); ok = False
        finally: os.chdir(cwd)
        secs = time.time() - t0
        d = _strip_exec_metadata(json.loads(copy.read_text()))
        if ok and save:
            src = json.loads(nb.read_text())
            for c_src, c_run in zip(src["cells"], d["cells"]):
                if c_src["cell_type"] == "code": c_src["outputs"] = c_run.get("outputs", [])
            nb.write_text(json.dumps(src, indent=1, ensure_ascii=False) + "\n")
        body, _ = exporter.from_notebook_node(nbformat.reads(json.dumps(d), as_version=4))
        page = f"notebooks/{nb.stem}.html"
        (out / page).write_text(body)
        rows.append((page, _title(d, nb.stem), ok, secs))
        print(f"  {'ok' if ok else 'FAILED'} in {secs:.1f}s -> {out / page}", flush=True)
        if not ok: failed.append(nb.name)
    items = "\n".join(f'<tr><td><a href="{p}">{html.escape(t)}</a></td><td>nbs/{Path(p).stem}.ipynb</td>'
                      f'<td class="{"ok" if ok else "bad"}">{"ok" if ok else "FAILED"}</td><td>{s:.1f} s</td></tr>'
                      for p, t, ok, s in rows)
    (out / "index.html").write_text(f"""<!doctype html><html><head><meta charset="utf-8"><title>crowdnb report</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}td,th{{padding:.3em 1em;text-align:left}}
.ok{{color:green}}.bad{{color:#b00;font-weight:bold}}</style></head><body>
<h1>crowdnb: executed notebooks</h1><p>Generated {time.strftime('%Y-%m-%d %H:%M')} by <code>make reproduce</code>.
Each page is one notebook run top to bottom, slow cells included.</p>
<table><tr><th>notebook</th><th>source</th><th>status</th><th>time</th></tr>{items}</table></body></html>""")
    print(f"\nreport: {(out / 'index.html').resolve()}")
    if failed: print(f"FAILED notebooks: {', '.join(failed)}"); return 1
    return 0

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "_site")); ap.add_argument("--only", default="")
    ap.add_argument("--save", action="store_true")
    a = ap.parse_args()
    sys.exit(run(Path(a.out), a.only, a.save))
