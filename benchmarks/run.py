"""Run every benchmark case and print one table: python -m benchmarks [--only WORD] [--quick]."""
from __future__ import annotations
import argparse, importlib, inspect, pkgutil, sys, time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent)); __package__ = "benchmarks"
from benchmarks.common import Result

def _fmt(x, nd=3):
    return "-" if x is None else (f"{x:.{nd}f}" if isinstance(x, float) else str(x))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", default="", help="run only modules/cases whose name contains this word")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    a = ap.parse_args(argv)
    here = Path(__file__).resolve().parent
    rows = []
    for m in sorted(pkgutil.iter_modules([str(here)]), key=lambda m: m.name):
        if not m.name.startswith("bench_"): continue
        mod = importlib.import_module(f"benchmarks.{m.name}")
        for case in getattr(mod, "CASES", []):
            if a.only and a.only not in m.name and a.only not in case.__name__: continue
            t0 = time.perf_counter()
            kw = {"quick": a.quick} if "quick" in inspect.signature(case).parameters else {}
            try: out = case(**kw)
            except Exception as e:  # a failing case is reported, the others still run
                out = [Result(f"{m.name}.{case.__name__}", "-", float("nan"), None, None, f"ERROR: {e!r}")]
            rows += out if isinstance(out, list) else [out]
            print(f"  ran {m.name}.{case.__name__} in {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)
    hdr = ["case", "size", "crowdnb s", "reference s", "ratio", "peak MiB", "goal", "agree"]
    table = [[r.case, r.size, _fmt(r.crowdnb_s, 4), _fmt(r.reference_s, 4),
              "-" if r.ratio is None else f"{r.ratio:.1f}x", _fmt(r.peak_mb, 1), r.goal, r.agree] for r in rows]
    w = [max(len(str(x)) for x in col) for col in zip(hdr, *table)] if table else [len(h) for h in hdr]
    line = lambda cells: " | ".join(str(c).ljust(n) for c, n in zip(cells, w))
    print(line(hdr)); print("-+-".join("-" * n for n in w))
    for t in table: print(line(t))
    return 0

if __name__ == "__main__":
    sys.exit(main())
