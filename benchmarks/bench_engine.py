"""The one engine (crowdnb.engine): how the in-memory executor scales with threads, and what Dask adds per iteration.

Each case times the same call with `CROWDNB_THREADS=1` (the reference column) and with every core of this machine
(`CROWDNB_THREADS` unset), in the same run, so the ratio is the speed-up from threads; the Dask case times one
iteration on a 2-process LocalCluster against the in-memory path on 2 threads. The floor of an iteration is the
bytes it must move (the shards' arrays it reads once) over the memory bandwidth measured in the same run.

Data: 1,000,000 judgments of a planted Dawid-Skene crowd (200,000 units x 5 judgments, 500 workers, 5 labels).
"""
from __future__ import annotations
import os, time, warnings

import numpy as np
import pandas as pd

from benchmarks.common import Result, bandwidth_gbs

N_UNITS, PER_UNIT, N_WORKERS, N_LABELS = 200_000, 5, 500, 5


def crowd(n_units: int = N_UNITS, seed: int = 0) -> pd.DataFrame:
    "A long table of n_units x 5 judgments (500 workers, 5 labels) from crowdnb's simulator."
    from crowdnb.core import simulate_crowd
    return simulate_crowd(n_units=n_units, n_workers=N_WORKERS, n_labels=N_LABELS, workers_per_unit=PER_UNIT,
                          seed=seed).judgments


class threads:
    "Context manager: CROWDNB_THREADS set to `n` (None: unset, every core) inside the block."
    def __init__(self, n): self.n = n
    def __enter__(self):
        self.old = os.environ.pop("CROWDNB_THREADS", None)
        if self.n is not None: os.environ["CROWDNB_THREADS"] = str(self.n)
    def __exit__(self, *a):
        os.environ.pop("CROWDNB_THREADS", None)
        if self.old is not None: os.environ["CROWDNB_THREADS"] = self.old


def _best(fn, repeat: int = 2) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter(); fn(); best = min(best, time.perf_counter() - t0)
    return best


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                  # capped iterations: 'did not converge'
        return fn()


def _scaling(make, run, what: str, size: str, goal: str, repeat: int = 3) -> Result:
    """Seconds of run(make()) with 1 thread and with every core (a fresh input per setting: shards are per thread
    count), the best of `repeat` rounds that alternate the two settings, so that a drift of the machine's speed
    during the case (common on a shared VM) falls on both. In each round a setting runs once untimed right before
    its timed run: on a VM, the cores that idled through a 1-thread run come back slowly, and a 2-thread run right
    after one paid 5-25 ms more (a 45 ms Dawid-Skene fit took 44-72 ms), a cost of the switch, not of either
    setting."""
    settings, xs, out = (1, None), {}, {1: float("inf"), None: float("inf")}
    for n in settings:
        with threads(n):
            xs[n] = make()
            _quiet(lambda: run(xs[n]))                    # warm-up: kernels compiled, shards made
    for _ in range(repeat):
        for n in settings:
            with threads(n):
                fresh = what.startswith("whole")
                _quiet(lambda: run(make() if fresh else xs[n]))          # the cores woken in this setting
                x = make() if fresh else xs[n]
                t0 = time.perf_counter(); _quiet(lambda: run(x)); out[n] = min(out[n], time.perf_counter() - t0)
    cores = os.cpu_count()
    return Result(f"{what}: {cores} threads vs 1", size, out[None], out[1], None, "same code, same numbers", goal)


def crowdtruth_threads(quick: bool = False):
    from crowdnb.core import as_judgments
    from crowdnb import crowdtruth
    df = crowd(N_UNITS // (10 if quick else 1))
    size = f"{len(df):,} judgments"
    return [_scaling(lambda: as_judgments(df), lambda J: crowdtruth.run(J), "CrowdTruth to convergence, given Judgments",
                     size, ">= 1.6x on 2 cores"),
            _scaling(lambda: df, lambda d: crowdtruth.run(d), "whole call from a DataFrame: CrowdTruth", size,
                     ">= 1.3x on 2 cores", repeat=2)]


def dawid_skene_threads(quick: bool = False):
    from crowdnb.core import as_judgments
    from crowdnb.model_b import ModelB
    df = crowd(N_UNITS // (10 if quick else 1))
    fit = lambda J: ModelB(max_iter=10, tol=0.0, accelerate=False).fit(J)
    return [_scaling(lambda: as_judgments(df), fit, "Dawid-Skene, 10 EM iterations, given Judgments",
                     f"{len(df):,} labels", ">= 1.6x on 2 cores")]


def per_iteration_floor(quick: bool = False):
    "Per-iteration seconds of CrowdTruth and Dawid-Skene (marginal cost of extra iterations) against bytes moved / bandwidth."
    from crowdnb.core import as_judgments
    from crowdnb import crowdtruth
    from crowdnb.model_b import ModelB
    df = crowd(N_UNITS // (10 if quick else 1))
    J = as_judgments(df)
    gbs = bandwidth_gbs(2**28 if quick else 2**30)
    ct = lambda k: _quiet(lambda: crowdtruth.run(J, max_iter=k, tol=1e-300))
    ds = lambda k: _quiet(lambda: ModelB(max_iter=k, tol=0.0, accelerate=False).fit(J))
    ct(2); ds(2)
    ct_it = (_best(lambda: ct(12)) - _best(lambda: ct(2))) / 10
    ds_it = (_best(lambda: ds(12)) - _best(lambda: ds(2))) / 10
    n, units = len(df), len(df) // PER_UNIT                   # judgments (one label each here); units = patterns
    # what each kernel must read or write once per iteration (the task is open-ended: RQS stays 1, no triple sums)
    ct_bytes = (4 + 8 + 8) * n + (8 + 8 + 8 + 8) * units      # per judgment: annotation, count, worker; per unit: its
                                                              # start, SQS read, the two sums written
    ds_bytes = 4 * n + (8 + 8) * units                        # per label its one-hot column; per pattern: start, count
    return [Result("CrowdTruth, one iteration", f"{n:,} judgments", ct_it, ct_bytes / gbs / 1e9, None,
                   f"floor {ct_bytes / 2**20:.0f} MiB / {gbs:.1f} GB/s", "<= 0.5 s for the whole call"),
            Result("Dawid-Skene, one EM iteration", f"{n:,} labels", ds_it, ds_bytes / gbs / 1e9, None,
                   f"floor {ds_bytes / 2**20:.0f} MiB / {gbs:.1f} GB/s", "<= 5 ms")]


def unit_size(quick: bool = False):
    "CrowdTruth to convergence on the same number of judgments as many small units (x 5) and as fewer large ones (x 50)."
    from crowdnb.core import as_judgments, simulate_crowd
    from crowdnb import crowdtruth
    n = N_UNITS // (10 if quick else 1)
    small = as_judgments(crowd(n))
    large = as_judgments(simulate_crowd(n_units=n // 10, n_workers=N_WORKERS, n_labels=N_LABELS, workers_per_unit=50,
                                        seed=0).judgments)
    run = lambda J: _quiet(lambda: crowdtruth.run(J, max_iter=10, tol=1e-300))
    run(small); run(large)
    return [Result("CrowdTruth, 10 iterations: many small units (x 5) vs few large (x 50), reference = large",
                   f"{small.n_judgments:,} judgments", _best(lambda: run(small)), _best(lambda: run(large)), None,
                   "same judgments, other shape", "small <= 2x large (ratio >= 0.5)")]


def dask_per_iteration(quick: bool = False):
    """One CrowdTruth iteration and one Dawid-Skene EM iteration on a 2-process LocalCluster against the in-memory
    path (2 threads), same data.

    Two sizes for CrowdTruth: 200,000 judgments, where an in-memory iteration is ~1 ms and Dask's fixed cost per
    iteration (the messages of one keeper call per worker) shows most; and 1,000,000, the shape of the issue's other
    goals. Both sides are given judgments already read (`Judgments`; `DaskJudgments` shuffled and persisted), and an
    iteration is timed from one global update to the next (the median over 3 runs of 12), so the front door's scan
    and shuffle, whose time varies by more than an iteration on a busy machine, stay out of it."""
    try:
        import dask.dataframe as dd
        from distributed import Client, LocalCluster
    except ImportError:
        return [Result("Dask: one CrowdTruth iteration", "-", float("nan"), None, None, "skipped: crowdnb[dask] absent")]
    from crowdnb.core import as_judgments
    from crowdnb import crowdtruth, model_b
    from crowdnb.model_b import ModelB

    def iteration_seconds(module, update: str, run, data, runs: int = 3) -> float:
        "Median seconds between successive calls of `module.update` (once per iteration) over `runs` runs of 12."
        f, stamps = getattr(module, update), []
        def timed(*a, **k):
            stamps[-1].append(time.perf_counter())
            return f(*a, **k)
        setattr(module, update, timed)                        # the loops look it up per iteration
        try:
            for _ in range(runs):
                stamps.append([]); run(data, 12)
        finally:
            setattr(module, update, f)
        return float(np.median([d for s in stamps for d in np.diff(s)]))

    ct = lambda d, k: _quiet(lambda: crowdtruth.run(d, max_iter=k, tol=1e-300))
    ds = lambda d, k: _quiet(lambda: ModelB(max_iter=k, tol=0.0, accelerate=False).fit(d))
    cases = [("CrowdTruth", crowdtruth, "crowd_update", ct, n) for n in
             ((N_UNITS // 5, N_UNITS) if not quick else (N_UNITS // 20,))]
    cases.append(("Dawid-Skene EM", model_b, "m_step", ds, N_UNITS // (20 if quick else 1)))
    out = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        for name, module, update, run, n in cases:
            df = crowd(n)
            with threads(2):
                J = as_judgments(df)
                run(J, 2)
                mem = iteration_seconds(module, update, run, J)
            with Client(cl):
                dj = as_judgments(dd.from_pandas(df, npartitions=4)).persist()
                run(dj, 2)
                dsk = iteration_seconds(module, update, run, dj)
            out.append(Result(f"Dask (2 processes) vs in memory (2 threads): one {name} iteration",
                              f"{len(df):,} judgments", dsk, mem, None, "same code, same numbers",
                              "Dask within 1.5x of in memory"))
    return out


def ten_million_run(path: str) -> dict:
    "In a fresh process: `as_judgments` of the Parquet file, then CrowdTruth to convergence; seconds of each."
    from crowdnb.core import as_judgments
    from crowdnb import crowdtruth
    t0 = time.perf_counter(); J = as_judgments(path); t1 = time.perf_counter()
    r = _quiet(lambda: crowdtruth.run(J))
    t2 = time.perf_counter()
    return dict(front=t1 - t0, run=t2 - t1, iterations=len(r.history), rows=J.n_judgments,
                wqs=r.workers.wqs.sort_index().to_numpy().tolist())


def ten_million_files(tmp: str, quick: bool = False) -> tuple:
    """The 10M judgments (2M units x 5; 20,000 x 5 when quick) written in `tmp` as `bench_dask`'s folder of Parquet
    files, and as one Parquet file with the rows in the files' order: (folder, file)."""
    from pathlib import Path
    import pyarrow.parquet as pq
    from benchmarks.bench_dask import write
    folder = write(Path(tmp) / "judgments", 20_000 if quick else 2_000_000, 4 if quick else 20)
    path = str(Path(tmp) / "judgments.parquet")
    pq.write_table(pq.read_table(folder), path)
    return str(folder), path


def ten_million(quick: bool = False):
    """CrowdTruth on 10M judgments (2M units x 5, 500 workers, 5 labels) from a Parquet file, front door (reading
    included) and all, each setting in a fresh process (peak RSS from the OS): 1 thread (the reference column) against every core. The files
    are `bench_dask`'s: a unit's judgments are spread over several files, so they do not arrive in unit order."""
    import tempfile
    from benchmarks.common import isolated
    with tempfile.TemporaryDirectory(prefix="crowdnb-bench-engine-") as tmp:
        _, path = ten_million_files(tmp, quick)
        out = {}
        for n in (1, None):
            with threads(n): out[n] = isolated("bench_engine", "ten_million_run", path=path)
        with huge_pages(False): out["4k"] = isolated("bench_engine", "ten_million_run", path=path)
    (one, _), (many, peak), (small, _) = out[1], out[None], out["4k"]
    size = f"{many['rows']:,} judgments from Parquet ({many['iterations']} iterations)"
    total = lambda r: r["front"] + r["run"]
    return [Result(f"10M: as_judgments + CrowdTruth to convergence, {os.cpu_count()} threads vs 1 (front door "
                   f"{many['front']:.1f} s vs {one['front']:.1f} s)", size, total(many), total(one), peak,
                   f"peak RSS {peak / 1024:.2f} GiB; {huge_pages.describe()}", "<= 6 s; <= 4 GB"),
            Result(f"10M, {os.cpu_count()} threads: numpy's huge pages off vs as above (front door "
                   f"{small['front']:.1f} s vs {many['front']:.1f} s)", size, total(small), total(many), None,
                   "NUMPY_MADVISE_HUGEPAGE=0", "(the machine: how fast fresh memory faults in)")]


class huge_pages:
    """Context manager: numpy's huge-page advice for large arrays on (its default on Linux) or off
    (`NUMPY_MADVISE_HUGEPAGE`, read when numpy loads: for the fresh processes started inside the block)."""
    def __init__(self, on: bool): self.on = on
    def __enter__(self):
        self.old = os.environ.get("NUMPY_MADVISE_HUGEPAGE")
        os.environ["NUMPY_MADVISE_HUGEPAGE"] = "1" if self.on else "0"
    def __exit__(self, *a):
        os.environ.pop("NUMPY_MADVISE_HUGEPAGE", None)
        if self.old is not None: os.environ["NUMPY_MADVISE_HUGEPAGE"] = self.old

    @staticmethod
    def describe() -> str:
        "This machine's transparent huge pages mode and numpy's setting, as the runs above saw them."
        try: mode = open("/sys/kernel/mm/transparent_hugepage/enabled").read().split("[")[1].split("]")[0]
        except (OSError, IndexError): mode = "unknown"
        return f"THP {mode}, NUMPY_MADVISE_HUGEPAGE={os.environ.get('NUMPY_MADVISE_HUGEPAGE', 'unset')}"


def cluster_run(folder: str, n: int) -> dict:
    """In a fresh process: a LocalCluster of `n` single-thread worker processes reads the Parquet folder (a dask
    DataFrame: scan, shuffle by unit) and runs CrowdTruth to convergence; seconds of the front door and of the run."""
    import dask.dataframe as dd
    from distributed import Client, LocalCluster
    from crowdnb.core import as_judgments
    from crowdnb import crowdtruth
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cl, Client(cl):
        t0 = time.perf_counter(); dj = as_judgments(dd.read_parquet(folder)); t1 = time.perf_counter()
        r = _quiet(lambda: crowdtruth.run(dj))
        t2 = time.perf_counter()
    return dict(front=t1 - t0, run=t2 - t1, iterations=len(r.history), rows=dj.n_rows,
                wqs=r.workers.wqs.sort_index().to_numpy().tolist())


def factorize_threads(quick: bool = False):
    """The unit ids of the 10M judgments (2M distinct, `ten_million_files`' Parquet file): `hash_factorize` on every
    core against `pd.factorize` (one thread), warm (kernels loaded; the best of 3), with the check that every row
    names the same id."""
    import tempfile
    import pyarrow.parquet as pq
    from crowdnb.core import engine, hash_factorize, n_threads
    if engine() != "numba":
        return [Result("unit ids: hash_factorize", "-", float("nan"), None, None, "skipped: crowdnb[fast] absent")]
    with tempfile.TemporaryDirectory(prefix="crowdnb-bench-engine-") as tmp:
        col = pq.read_table(ten_million_files(tmp, quick)[1], columns=["unit"]).to_pandas()["unit"]
    n = n_threads()
    (c, u), (c0, u0) = hash_factorize(col, n), pd.factorize(col)
    same = bool(np.array_equal(np.asarray(u, object)[c], np.asarray(u0, object)[c0]))
    return [Result(f"unit ids hashed: hash_factorize on {n} threads vs pd.factorize", f"{len(col):,} ids "
                   f"({len(u):,} distinct)", _best(lambda: hash_factorize(col, n), 3),
                   _best(lambda: pd.factorize(col), 3), None, f"same id at every row: {same}",
                   "scales with cores (the front door's serial part)")]


def memory_vs_cluster(quick: bool = False):
    """The issue's 16-core check, on whatever machine runs it: CrowdTruth on 10M judgments from Parquet files (reading
    included), in memory on every core (the reference column) against a LocalCluster of one single-thread worker
    process per core, each in a fresh process. In memory should win. The files are `ten_million`'s."""
    try:
        import dask.dataframe, distributed  # noqa: F401
    except ImportError:
        return [Result("in memory vs a LocalCluster", "-", float("nan"), None, None, "skipped: crowdnb[dask] absent")]
    import tempfile
    from benchmarks.common import isolated
    cores = os.cpu_count()
    with tempfile.TemporaryDirectory(prefix="crowdnb-bench-engine-") as tmp:
        folder, path = ten_million_files(tmp, quick)
        mem, _ = isolated("bench_engine", "ten_million_run", path=path)
        dsk, _ = isolated("bench_engine", "cluster_run", folder=folder, n=cores)
    return [Result(f"CrowdTruth from Parquet to convergence: {cores}-process LocalCluster (front door "
                   f"{dsk['front']:.1f} s) vs in memory on {cores} threads (front door {mem['front']:.1f} s)",
                   f"{mem['rows']:,} judgments ({mem['iterations']} / {dsk['iterations']} iterations)",
                   dsk["front"] + dsk["run"], mem["front"] + mem["run"], None,
                   f"max |WQS difference| {np.abs(np.subtract(mem['wqs'], dsk['wqs'])).max():.1e}",
                   "in memory faster (ref/crowdnb < 1)")]


def machine_ceiling(quick: bool = False):
    """What this machine gives two threads, whatever the method: the same work twice, on 2 threads at once against
    one after the other (the reference column), for a compute-bound loop (16 independent multiply-add chains, no
    memory), a memory-bound one (a sum over 256 MiB) and a table-bound one (random rows of a 100 KB table read and
    added to, as the Dawid-Skene sweep and CrowdTruth's worker sums do). The thread goals are measured against these
    ceilings."""
    import threading
    try:
        import numba
    except ImportError:
        return [Result("machine ceiling", "-", float("nan"), None, None, "skipped: numba absent")]

    @numba.njit(nogil=True)
    def alu(n, b):
        a = np.ones(16)
        for _ in range(n):
            for k in range(16): a[k] = a[k] * b + 1e-9
        return a.sum()

    @numba.njit(nogil=True)
    def stream(x):
        t = 0.0
        for v in x: t += v
        return t

    @numba.njit(nogil=True)
    def table(rows, tab, out):   # what the Dawid-Skene sweep does per label: read 5 numbers of a row, add 5 to another
        for r in rows:
            for c in range(5): out[r * 5 + c] += tab[r * 5 + c] * 0.5

    x = np.ones((2 if quick else 32) * 2**20)
    n = 2_000_000 if quick else 30_000_000
    rows = np.random.default_rng(0).integers(0, 2500, (1 if quick else 10) * 10**6).astype(np.int32)
    tab = np.ones(2500 * 5)                                          # 100 KB, like 500 workers x 5 x 5 numbers
    outs = {}                                                        # one output table per thread
    jobs = {"compute-bound loop": lambda: alu(n, 0.9999999), "memory-bound sum": lambda: stream(x),
            "table-bound loop (random rows of a 100 KB table)":
                lambda: table(rows, tab, outs.setdefault(threading.get_ident(), np.zeros(tab.size)))}
    out = []
    for name, job in jobs.items():
        job()
        def both():
            ts = [threading.Thread(target=job) for _ in range(2)]
            for t in ts: t.start()
            for t in ts: t.join()
        out.append(Result(f"machine ceiling: {name}, the same work twice on 2 threads vs one after the other", "-",
                          _best(both, 3), _best(lambda: (job(), job()), 3), None, "-", "2x on 2 free cores"))
    return out


CASES = [machine_ceiling, crowdtruth_threads, dawid_skene_threads, per_iteration_floor, unit_size, factorize_threads,
         ten_million, dask_per_iteration, memory_vs_cluster]
