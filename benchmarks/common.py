"""Timing helpers shared by the benchmark cases."""
from __future__ import annotations
import gc, time, tracemalloc
from dataclasses import dataclass

@dataclass
class Result:
    case: str                 # what is measured, e.g. "crowdtruth metrics (closed task)"
    size: str                 # input size, e.g. "8,000 judgments"
    crowdnb_s: float          # seconds for crowdnb
    reference_s: float | None # seconds for the reference package on the same input (None: no reference)
    peak_mb: float | None     # peak traced memory of the crowdnb run, MiB
    agree: str                # whether the results agree, e.g. "yes (max |diff| 3e-15)" or "n/a"
    goal: str = ""            # the target, e.g. ">= 100x" or "< 30 s"

    @property
    def ratio(self):
        return None if not self.reference_s else self.reference_s / self.crowdnb_s

def timeit(fn, *args, repeat: int = 1, **kwargs):
    "Run `fn` `repeat` times; return (last result, best wall seconds)."
    best, out = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter(); out = fn(*args, **kwargs); best = min(best, time.perf_counter() - t0)
    return out, best

def peak_memory(fn, *args, **kwargs):
    "Run `fn` once under tracemalloc; return (result, peak MiB)."
    gc.collect(); tracemalloc.start()
    try:
        out = fn(*args, **kwargs)
        return out, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()

def max_abs_diff(a, b) -> float:
    "Largest absolute difference between two array-likes (NaN where both NaN counts as equal)."
    import numpy as np
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape: return float("inf")
    both = np.isnan(a) & np.isnan(b)
    d = np.abs(np.where(both, 0, a - b))
    return float(np.nanmax(d)) if d.size else 0.0

def isolated(module: str, func: str, **kwargs):
    "Run `benchmarks.<module>.<func>(**kwargs)` (returning a JSON-able dict) in a fresh interpreter; return (its result, peak RSS MiB of that process, from `os.wait4`)."
    import json, os, subprocess, sys
    from pathlib import Path
    code = (f"import json, sys; from benchmarks.{module} import {func}; "
            f"print(json.dumps({func}(**json.loads(sys.argv[1]))))")
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""), CROWDNB_PROGRESS="0")
    p = subprocess.Popen([sys.executable, "-c", code, json.dumps(kwargs)], stdout=subprocess.PIPE, cwd=root, env=env)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode: raise RuntimeError(f"benchmarks.{module}.{func} failed in its subprocess (exit {p.returncode})")
    return json.loads(out.decode().strip().splitlines()[-1]), usage.ru_maxrss / 1024   # Linux: KiB

def bandwidth_gbs(n_bytes: int = 2**30) -> float:
    "Memory bandwidth estimate: bytes read + written per second by a large numpy copy (best of 3), GB/s."
    import numpy as np
    a = np.ones(n_bytes // 8); b = np.empty_like(a); best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter(); np.copyto(b, a); best = min(best, time.perf_counter() - t0)
    return 2 * a.nbytes / best / 1e9

def engines() -> list:
    "The engines to time side by side: numba first when it is installed and not switched off, then numpy."
    import os
    from crowdnb.core import engine
    return ["numba", "numpy"] if engine() == "numba" and os.environ.get("CROWDNB_ENGINE", "") != "numpy" else ["numpy"]

class engine_env:
    "Context manager: CROWDNB_ENGINE set to `name` inside the block, restored after."
    def __init__(self, name): self.name = name
    def __enter__(self):
        import os
        self.old = os.environ.get("CROWDNB_ENGINE"); os.environ["CROWDNB_ENGINE"] = self.name
    def __exit__(self, *exc):
        import os
        if self.old is None: os.environ.pop("CROWDNB_ENGINE", None)
        else: os.environ["CROWDNB_ENGINE"] = self.old
