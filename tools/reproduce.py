"""Execute every notebook top to bottom (slow cells included) and build the documentation site in _site/.

No Quarto needed: notebooks are executed with nbdev's runner (execnb) on copies in _site/executed/, with
`CROWDNB_PROGRESS=0` (no progress bars in the outputs), in a pool of worker processes (one per core by default,
`--jobs N` to change it; each notebook in a fresh process of its own, forked by a fork server that imported the common
modules once, from nbs/, writing only its own copy and its own temporary folders; the longest notebooks start first),
each process then runs nbdev's processors on its notebook, and the site is built from those copies by
tools/site/build.py (sidebar, table of contents, local MathJax; see that file). A page "Reproduction run" lists each
notebook's status and time. Stops with exit status 1 if any notebook fails (the site is still written, with the
failing notebook's error on its page).
Usage: python tools/reproduce.py [--out _site] [--only WORD] [--save] [--jobs N]   (--save: write outputs back into nbs/)
"""
from __future__ import annotations
import argparse, json, multiprocessing, os, shutil, sys, time, traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cpu_seconds() -> float:
    "User + system CPU seconds of this process and its waited-for children so far."
    import resource
    return sum(r.ru_utime + r.ru_stime for r in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))


# CPU seconds of each notebook's full run (measured on 2 cores, kernels cached): the pool starts the longest first, so that its
# processes finish together. A notebook not listed counts as 5 s; the times of the last run in --out win when present.
COST = {"60_report": 50, "90_cli": 24, "index": 22, "51_rzhetsky2009_model_b": 26, "50_rzhetsky2009": 27,
        "02_dask": 22, "32_aggregation": 16, "41_humeval": 10, "31_model_b": 7, "21_trust": 7, "30_model_a": 7}
TIMES = "times.json"   # in the executed folder: {notebook name: CPU seconds, site processing included} of the last run
# imported once by the pool's fork server, before it forks each notebook's fresh process: every notebook needs them,
# and importing them took each process about 4 s of CPU (a forked process starts with them in memory)
PRELOAD = ["tools.reproduce", "nbdev.test", "tools.site.proc", "nbdev.processors", "numpy", "pandas", "scipy.stats",
           "matplotlib.pyplot", "matplotlib_inline.backend_inline", "numba", "crowdnb.core", "crowdnb.agreement",
           "jsonschema"]   # jsonschema: about 4 s (rfc3987-syntax builds its grammars), in any process with nbformat


def execute_one(copy: str, processed: str = "") -> tuple:
    """Execute the notebook copy in place, from nbs/ (as in tests); then, when `processed` names a folder, run nbdev's
    documentation processors on it there for the site (while this process has crowdnb imported, and while the other
    processes still run notebooks). (ok, seconds, CPU seconds of its process, CPU seconds of the processing)."""
    from nbdev.test import test_nb
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["CROWDNB_PROGRESS"] = "0"      # crowdnb's progress=None default: no bars in stored outputs
    t0 = time.time()
    os.chdir(ROOT / "nbs")
    try: ok, _ = test_nb(copy, skip_flags=[], force_flags=["slow"], save=True, showerr=True, cell_timeout=3600)
    except Exception: traceback.print_exc(); ok = False
    secs, cpu = time.time() - t0, cpu_seconds()
    if processed:
        os.chdir(ROOT)
        from tools.site.proc import cache_toml, process
        cache_toml(); process(Path(copy), Path(processed))
    return ok, secs, cpu, cpu_seconds() - cpu


def longest_first(nbs: list, exe: Path) -> list:
    "`nbs` in the order the pool should start them: longest (by the last run, else by `COST`) first."
    try: last = json.loads((exe / TIMES).read_text())
    except (OSError, ValueError): last = {}
    return sorted(nbs, key=lambda p: -float(last.get(p.name, COST.get(p.stem, 5))))


def save_outputs(nb: Path, copy: Path):
    "Write the executed copy's outputs back into the source notebook (sources and metadata unchanged)."
    d = json.loads(copy.read_text())
    src = json.loads(nb.read_text())
    for c_src, c_run in zip(src["cells"], d["cells"]):
        if c_src["cell_type"] == "code": c_src["outputs"] = c_run.get("outputs", [])
    nb.write_text(json.dumps(src, indent=1, ensure_ascii=False) + "\n")


def run(out: Path, only: str = "", save: bool = False, jobs: int | None = None) -> int:
    out = out.resolve()
    jobs = max(1, jobs or os.cpu_count() or 1)
    nbs = sorted(p for p in (ROOT / "nbs").glob("*.ipynb") if only in p.name and not p.name.startswith("_"))
    exe = out / "executed"; exe.mkdir(parents=True, exist_ok=True)
    proc = exe / "processed"                          # nbdev-processed copies for the site, made by the workers
    shutil.rmtree(proc, ignore_errors=True); proc.mkdir()
    for old in exe.glob("*.ipynb"): old.unlink()
    for nb in nbs: shutil.copy(nb, exe / nb.name)
    done, t_all, started, cpu_site, cost = {}, time.time(), time.strftime("%Y-%m-%d %H:%M"), 0.0, {}
    print(f"executing {len(nbs)} notebooks in {min(jobs, len(nbs) or 1)} processes ...", flush=True)
    # a fresh process per notebook: execnb's shell takes over the process's __main__, so a process is not reused;
    # each is forked by a fork server (one process, no threads) that imported PRELOAD once
    from tools.reproduce import execute_one as one     # by its module's name, which a fresh process can import
    os.environ.setdefault("MPLBACKEND", "Agg"); os.environ["CROWDNB_PROGRESS"] = "0"   # before the server starts
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    with ProcessPoolExecutor(max_workers=min(jobs, len(nbs) or 1), mp_context=ctx, max_tasks_per_child=1) as pool:
        futures = {pool.submit(one, str(exe / nb.name), str(proc)): nb for nb in longest_first(nbs, exe)}
        for f in as_completed(futures):
            nb = futures[f]
            try: ok, secs, cpu, cpu_proc = f.result()
            except Exception: traceback.print_exc(); ok, secs, cpu, cpu_proc = False, 0.0, 0.0, 0.0   # the worker died
            if ok and save: save_outputs(nb, exe / nb.name)
            done[nb.name] = (nb.name, ok, secs, cpu)
            cpu_site += cpu_proc; cost[nb.name] = round(cpu + cpu_proc, 1)
            print(f"  {nb.name}: {'ok' if ok else 'FAILED'} in {secs:.1f}s (CPU {cpu:.1f}s; then {cpu_proc:.1f}s CPU "
                  f"processing it for the site)", flush=True)
    report = [done[nb.name] for nb in nbs]            # in notebook order, whatever order they finished in
    if not only:
        (exe / TIMES).write_text(json.dumps({n: cost[n] for n, ok, *_ in report if ok}, indent=1) + "\n")
    failed = [n for n, ok, *_ in report if not ok]
    print(f"executed {len(nbs)} notebooks in {time.time() - t_all:.0f} s (CPU {sum(r[3] for r in report):.0f} s in "
          f"the notebooks' processes, and {cpu_site:.0f} s processing them for the site); building the site ...",
          flush=True)
    t_site, cpu_site = time.time(), cpu_seconds()
    from tools.site.build import build
    build(out, exe, report=report, source_label=f"notebooks executed in a run started {started}", workers=jobs,
          processed=proc)
    print(f"site built in {time.time() - t_site:.0f} s (CPU {cpu_seconds() - cpu_site:.0f} s)", flush=True)
    print(f"\nsite: open {(out / 'index.html').resolve()} in a browser (it reads offline)")
    if failed: print(f"FAILED notebooks: {', '.join(failed)}"); return 1
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "_site")); ap.add_argument("--only", default="")
    ap.add_argument("--save", action="store_true")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: os.cpu_count())")
    a = ap.parse_args()
    sys.exit(run(Path(a.out), a.only, a.save, a.jobs))
