"""Core data model: validation and conversion of a large judgment table (crowdnb alone), from a DataFrame and from a CSV path."""
import tempfile
from pathlib import Path

import pandas as pd

from benchmarks.common import Result, timeit, peak_memory
from crowdnb.core import simulate_crowd, as_judgments

def load_and_arrays(quick: bool = False):
    n_units = 5_000 if quick else 50_000
    sim = simulate_crowd(n_units=n_units, n_workers=200, n_labels=10, workers_per_unit=20, seed=0)
    def run():
        j = as_judgments(sim.judgments, labels=sim.labels)
        return j, j.work_vectors(), j.unit_vectors(), j.incidence()
    (j, wv, uv, inc), secs = timeit(run)
    _, peak = peak_memory(run)
    ok = uv.sum() == len(sim.judgments) and inc.sum() == len(sim.judgments)
    return Result("core: validate + sparse arrays", f"{len(sim.judgments):,} judgments", secs, None, peak,
                  "identities hold" if ok else "IDENTITY FAILED")

def csv_front_door(quick: bool = False):
    "as_judgments on a CSV path with the caller's column names: read + validate, against the same table as a DataFrame."
    n_units = 5_000 if quick else 50_000
    sim = simulate_crowd(n_units=n_units, n_workers=200, n_labels=10, workers_per_unit=20, seed=0)
    table = sim.judgments.rename(columns={"unit": "item", "worker": "rater", "label": "answer"})
    cols = dict(unit="item", worker="rater", label="answer", labels=sim.labels)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "judgments.csv"
        table.to_csv(path, index=False)
        j, secs = timeit(as_judgments, path, **cols)
        _, peak = peak_memory(as_judgments, path, **cols)
    same = j.frame.equals(as_judgments(table, **cols).frame)
    return Result("core: as_judgments from a CSV path", f"{len(table):,} judgments", secs, None, peak,
                  "same judgments as from the DataFrame" if same else "DIFFERENT FROM THE DATAFRAME")

def from_matrix_and_codes(quick: bool = False):
    "Judgments.from_matrix on a wide 35,000 x 200 matrix of integer labels (20 per row, the rest -1): 700,000 judgments; then the first label_codes()."
    import numpy as np
    from crowdnb.core import Judgments
    n = 3_500 if quick else 35_000
    rng = np.random.default_rng(0)
    m = np.full((n, 200), -1)
    cols = (rng.integers(0, 200, n)[:, None] + np.arange(20) * 7) % 200
    m[np.arange(n)[:, None], cols] = rng.integers(0, 5, (n, 20))
    j, secs = timeit(Judgments.from_matrix, m, missing=-1)
    j._cache.clear()                                           # the first call, as on Judgments built elsewhere
    (rows, codes), codes_s = timeit(j.label_codes)
    ok = j.n_judgments == (m >= 0).sum() and (np.asarray(j.labels)[codes] == m[j.unit_code, j.worker_code]).all()
    size = f"{j.n_judgments:,} judgments"
    return [Result("core: Judgments.from_matrix", size, secs, None, None, "labels round-trip" if ok else "MISMATCH"),
            Result("core: first label_codes() without the cached codes", size, codes_s, None, None, "labels round-trip" if ok else "MISMATCH")]

def memory_bandwidth(quick: bool = False):
    "The machine's memory bandwidth, for the physical limits of the other cases: one large numpy copy (read + write), best of 3."
    from benchmarks.common import bandwidth_gbs
    n = 2**27 if quick else 2**30
    gbs, secs = timeit(bandwidth_gbs, n)
    return Result(f"memory bandwidth: numpy copy of {n // 2**20} MiB (read + write)", f"{gbs:.1f} GB/s", secs, None, None, "-")

def _timed(fn, repeat: int = 3):
    "(result, best wall seconds, CPU seconds of that run) of `fn()`."
    import gc, time
    best = (None, float("inf"), None)
    for _ in range(repeat):
        gc.collect()
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        if wall < best[1]: best = (out, wall, cpu)
    return best

def front_door_1m(quick: bool = False):
    ("as_judgments on 1,000,000 judgments (200,000 units x 5, 500 workers, 5 labels; a DataFrame of pyarrow strings) "
     "with every core and with CROWDNB_THREADS=1; reference: pandas' own factorize of the three columns, the hashing "
     "the front door cannot skip (ratio < 1: slower than that floor). The machine is shared: CPU seconds are shown.")
    import os
    from benchmarks.bench_engine import crowd, threads
    df = crowd(20_000 if quick else 200_000)
    _, ref, ref_cpu = _timed(lambda: [pd.factorize(df[c]) for c in ("unit", "worker", "label")])
    out, size = [], f"{len(df):,} judgments"
    for n in (None, 1):
        with threads(n):
            as_judgments(df)
            j, secs, cpu = _timed(lambda: as_judgments(df))
        who = f"{os.cpu_count()} threads" if n is None else "1 thread"
        out.append(Result(f"core: as_judgments(DataFrame), {who}", size, secs, ref, None,
                          f"CPU {cpu:.2f} s (factorize {ref_cpu:.2f} s), load {os.getloadavg()[0]:.1f}",
                          "<= 0.25 s" if n is None else ""))
    return out

def write_parquet_10m(path: str, n_units: int = 2_000_000) -> None:
    "n_units x 5 judgments, 500 workers, 5 labels, string ids ('u0000001', 'w0042', 'l3'), as one Parquet file."
    import numpy as np, pyarrow as pa, pyarrow.parquet as pq
    rng = np.random.default_rng(0)
    u = np.repeat(np.arange(n_units), 5)
    w = ((rng.integers(0, 500, n_units)[:, None] + np.arange(5) * 97) % 500).ravel()   # 5 distinct workers a unit
    def text(prefix, codes, width):
        names = pa.array([f"{prefix}{i:0{width}d}" for i in range(codes.max() + 1)], pa.string())
        return names.take(pa.array(codes))
    pq.write_table(pa.table({"unit": text("u", u, 7), "worker": text("w", w, 4),
                             "label": text("l", rng.integers(0, 5, len(u)), 1)}), path)

def time_file_front_door(path: str, pandas_only: bool = False) -> dict:
    "Seconds (wall, CPU) of as_judgments(path) in this process, or of pd.read_parquet(path) alone with `pandas_only`."
    import time
    t, c = time.perf_counter(), time.process_time()
    n = len(pd.read_parquet(path)) if pandas_only else as_judgments(path).n_judgments
    return {"wall": time.perf_counter() - t, "cpu": time.process_time() - c, "n": n}

def parquet_front_door_10m(quick: bool = False):
    ("as_judgments on a Parquet path of 10,000,000 judgments (2,000,000 units x 5, 500 workers, 5 labels), in a fresh "
     "process with its peak RSS; reference: pandas.read_parquet of the same file alone, also in a fresh process.")
    import os
    from benchmarks.common import isolated
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "judgments.parquet")
        write_parquet_10m(path, 200_000 if quick else 2_000_000)
        got, peak = isolated("bench_core", "time_file_front_door", path=path)
        ref, _ = isolated("bench_core", "time_file_front_door", path=path, pandas_only=True)
    return Result("core: as_judgments(Parquet path), fresh process", f"{got['n']:,} judgments", got["wall"],
                  ref["wall"], peak, f"CPU {got['cpu']:.2f} s, peak RSS {peak / 1024:.2f} GiB, load "
                  f"{os.getloadavg()[0]:.1f}", "<= 3 s, <= 4 GB")

def cli_small_file(quick: bool = False):
    """`crowdnb crowdtruth` on a 1,000-judgment CSV, the whole process (start-up, parsing, reading, scoring, printing),
    against the reference of a process that only imports pandas (what any pandas tool pays). Median of 3 runs each.
    The numba engine's start-up is shown separately (CROWDNB_ENGINE=numba vs numpy)."""
    import os, statistics, subprocess, sys, time
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root), CROWDNB_PROGRESS="0")
    def wall(args, **extra) -> float:
        ts = []
        for _ in range(1 if quick else 3):
            t = time.perf_counter()
            subprocess.run([sys.executable, *args], env=dict(env, **extra), check=True, capture_output=True)
            ts.append(time.perf_counter() - t)
        return statistics.median(ts)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "small.csv"
        simulate_crowd(n_units=200, n_workers=20, n_labels=4, workers_per_unit=5, seed=1).judgments.to_csv(path, index=False)
        base = wall(["-c", "import pandas"])
        run = ["-m", "crowdnb.cli", "crowdtruth", str(path)]
        return [Result("CLI: crowdnb crowdtruth, whole process, numpy engine (reference: python -c 'import pandas')",
                       "1,000 judgments", wall(run, CROWDNB_ENGINE="numpy"), base, None, "n/a", "start-up, not work"),
                Result("CLI: the same, numba engine (its import and cache loads)", "1,000 judgments",
                       wall(run, CROWDNB_ENGINE="numba"), base, None, "n/a", "start-up, not work")]


CASES = [cli_small_file, load_and_arrays, csv_front_door, from_matrix_and_codes, front_door_1m, parquet_front_door_10m,
         memory_bandwidth]
