"""crowdnb.dask at scale: 30,000,000 simulated judgments written as partitioned Parquet (in chunks: the driver never
holds them), scored by CrowdTruth and by Dawid-Skene (model B EM) on a local cluster of two worker processes; the
time, and the peak memory (RSS) of each worker process against the in-memory path's peak on the same kind of data.

The big case runs only when asked: `python -m benchmarks --only dask` (or CROWDNB_BENCH_DASK=1); `--quick` runs a
300,000-judgment version and checks it against the in-memory path. The cluster and the in-memory measurements run
in subprocesses (`python -m benchmarks.bench_dask ...`), so worker processes start from an importable main module
and every peak is a fresh process's own.
"""
from __future__ import annotations
import json, os, subprocess, sys, tempfile, time, warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import Result

N_WORKERS, N_LABELS, PER_UNIT = 500, 5, 5
ROOT = Path(__file__).resolve().parent.parent


def _mix(x, salt: int) -> np.ndarray:
    "splitmix64 of x + salt as floats in [0, 1): reproducible random numbers per unit/judgment, whatever the chunk."
    with np.errstate(over="ignore"):
        z = np.asarray(x, np.uint64) + np.uint64(salt * 0x9E3779B97F4A7C15 % 2**64)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) / 2.0**53


def chunk(c: int, n_chunks: int, n_units: int) -> pd.DataFrame:
    """Chunk c of the simulated judgments: unit u's j-th judgment is in chunk (u + j) % n_chunks, so every unit is
    spread over several files (as judgments written in time order are). A planted Dawid-Skene crowd: a true label
    per unit, per worker an accuracy in [0.3, 0.95]; a wrong answer is uniform over the other labels."""
    parts = []
    for j in range(PER_UNIT):
        u = np.arange((c - j) % n_chunks, n_units, n_chunks, dtype=np.int64)
        w = (np.floor(_mix(u, 1) * N_WORKERS).astype(np.int64) + 97 * j) % N_WORKERS   # 5 distinct workers per unit
        truth = np.floor(_mix(u, 2) * N_LABELS).astype(np.int64)
        acc = 0.3 + 0.65 * _mix(np.arange(N_WORKERS), 3)[w]
        r = _mix(u * PER_UNIT + j, 4)
        wrong = (truth + 1 + np.floor(_mix(u * PER_UNIT + j, 5) * (N_LABELS - 1)).astype(np.int64)) % N_LABELS
        parts.append(pd.DataFrame({"unit": u, "worker": w, "label": np.where(r < acc, truth, wrong)}))
    df = pd.concat(parts, ignore_index=True)
    return pd.DataFrame({"unit": "u" + df.unit.astype(str).str.zfill(9), "worker": "w" + df.worker.astype(str).str.zfill(4),
                         "label": "L" + df.label.astype(str)})


def write(folder: Path, n_units: int, n_chunks: int) -> Path:
    "The judgments as a folder of Parquet files, one chunk at a time."
    folder.mkdir(parents=True, exist_ok=True)
    for c in range(n_chunks):
        chunk(c, n_chunks, n_units).to_parquet(folder / f"part-{c:04d}.parquet", index=False)
    return folder


def _labels(): return [f"L{k}" for k in range(N_LABELS)]


def _peak_mib() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024     # Linux: KiB


def run_cluster(folder: str, ct_iter: int, ds_iter: int, check: bool) -> dict:
    "On a 2-process LocalCluster: scan, CrowdTruth (ct_iter iterations) and model B EM (ds_iter); times and worker peaks."
    import dask.dataframe as dd
    from distributed import Client, LocalCluster
    import crowdnb.dask as cd
    from crowdnb import crowdtruth
    from crowdnb.model_b import ModelB
    out = {}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        t0 = time.perf_counter()
        judged = dd.read_parquet(folder)
        dj = cd.judgments(judged, labels=_labels())
        out["scan_s"] = time.perf_counter() - t0
        out["rows"], out["partitions"] = dj.n_rows, dj.npartitions
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")          # capped iterations: 'did not converge'
            ct = crowdtruth.run(dj, max_iter=ct_iter, tol=1e-12)
        out["ct_s"], out["ct_iter"] = time.perf_counter() - t0, len(ct.history)
        out["ct_wqs"] = ct.workers.wqs.to_numpy().tolist()
        if check: out["ct_units"] = ct.units.uqs.compute().sort_index().to_numpy().tolist()
        del ct                                       # its partition states leave the workers
        t0 = time.perf_counter()
        ds = ModelB(accelerate=False, max_iter=ds_iter, tol=0.0).fit(dj)
        out["ds_s"], out["ds_iter"] = time.perf_counter() - t0, ds.n_iter_
        out["ds_confusion"] = ds.confusion_.to_numpy().ravel().tolist()
        out["ds_log_lik"] = ds.log_lik_
        out["worker_peak_mib"] = sorted(client.run(_peak_mib).values())
    return out


def run_memory(folder: str, ct_iter: int, ds_iter: int, method: str) -> dict:
    "The in-memory path on the same files (read with pandas): time and this process's peak RSS."
    from crowdnb import crowdtruth
    from crowdnb.model_b import ModelB
    df = pd.read_parquet(folder)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "ct":
            r = crowdtruth.run(df, labels=_labels(), max_iter=ct_iter, tol=1e-12)
            out = dict(wqs=r.workers.wqs.to_numpy().tolist(), units=r.units.uqs.to_numpy().tolist())
        else:
            m = ModelB(accelerate=False, max_iter=ds_iter, tol=0.0).fit(df)
            out = dict(confusion=m.confusion_.to_numpy().ravel().tolist(), log_lik=m.log_lik_)
    return out | dict(seconds=time.perf_counter() - t0, peak_mib=_peak_mib(), rows=len(df))


def _sub(*args) -> dict:
    "Run this module in a fresh Python process and read its JSON answer (the last line of its output)."
    r = subprocess.run([sys.executable, "-m", "benchmarks.bench_dask", *map(str, args)], cwd=ROOT, capture_output=True,
                       text=True, env={**os.environ, "CROWDNB_PROGRESS": "0"})
    if r.returncode != 0: raise RuntimeError(r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def _asked() -> bool:
    "The big case runs only when asked: --only naming this module, or CROWDNB_BENCH_DASK=1."
    argv = sys.argv
    named = any(a == "--only" and i + 1 < len(argv) and "dask" in argv[i + 1] for i, a in enumerate(argv)) or \
        any(a.startswith("--only=") and "dask" in a for a in argv)
    return named or os.environ.get("CROWDNB_BENCH_DASK") == "1"


def dask_scale(quick: bool = False):
    "CrowdTruth and Dawid-Skene on partitioned Parquet on a local 2-worker cluster; peaks against the in-memory path."
    n_units = 60_000 if quick else 6_000_000                      # x 5 judgments each
    n_chunks = 6 if quick else 60
    ct_iter, ds_iter = (3, 10)
    size = f"{n_units * PER_UNIT:,} judgments, {n_chunks} Parquet files, {N_WORKERS} workers, {N_LABELS} labels"
    if not quick and not _asked():
        return [Result("dask: CrowdTruth + Dawid-Skene on a local cluster", size, float("nan"), None, None,
                       "skipped: run with --only dask (or --quick for a small check)")]
    with tempfile.TemporaryDirectory(prefix="crowdnb-bench-dask-") as tmp:
        t0 = time.perf_counter()
        folder = write(Path(tmp) / "judgments", n_units, n_chunks)
        gen_s = time.perf_counter() - t0
        print(f"dask bench: wrote {size} in {gen_s:.0f}s", file=sys.stderr, flush=True)
        d = _sub("cluster", folder, ct_iter, ds_iter, int(quick))
        print(f"dask bench: cluster {json.dumps({k: v for k, v in d.items() if not isinstance(v, list) or len(v) < 5})}",
              file=sys.stderr, flush=True)
        # the in-memory peak: on the same data when small, else on 1/30 and 1/10 of it (the first files), extrapolated
        mem = {}
        for method in ("ct", "ds"):
            if quick:
                m = _sub("memory", folder, ct_iter, ds_iter, method)
                mem[method] = dict(peak=m["peak_mib"], how="same data", res=m)
            else:
                small = []
                for frac in (30, 10):
                    sub = Path(tmp) / f"small-{frac}"
                    write(sub, n_units // frac, n_chunks // frac)
                    small.append(_sub("memory", sub, ct_iter, ds_iter, method))
                (a, b) = small
                slope = (b["peak_mib"] - a["peak_mib"]) / (b["rows"] - a["rows"])
                peak = b["peak_mib"] + slope * (n_units * PER_UNIT - b["rows"])
                mem[method] = dict(peak=peak, how=f"extrapolated from {a['rows']:,} ({a['peak_mib']:.0f} MiB) and "
                                                  f"{b['rows']:,} ({b['peak_mib']:.0f} MiB) judgments")
            print(f"dask bench: in-memory {method} peak {mem[method]['peak']:.0f} MiB ({mem[method]['how']})",
                  file=sys.stderr, flush=True)
    worker = max(d["worker_peak_mib"])
    rows = []
    for method, name, secs, iters in (("ct", "CrowdTruth", d["ct_s"], d["ct_iter"]), ("ds", "Dawid-Skene EM", d["ds_s"], d["ds_iter"])):
        agree = f"worker peak {worker:.0f} MiB vs in-memory {mem[method]['peak']:.0f} MiB ({mem[method]['how']})"
        if quick:
            r = mem[method]["res"]
            diff = max(abs(np.asarray(r["wqs"]) - np.asarray(d["ct_wqs"])).max(),
                       np.nanmax(abs(np.asarray(r["units"], float) - np.asarray(d["ct_units"], float)))) if method == "ct" \
                else abs(np.asarray(r["confusion"]) - np.asarray(d["ds_confusion"])).max()
            agree = f"{'yes' if diff < 1e-10 else 'NO'} (max |diff| {diff:.1e}); " + agree
        rows.append(Result(f"dask: {name}, {iters} iterations (scan {d['scan_s']:.0f}s before)", size, secs, None, worker,
                           agree, "worker peak < in-memory peak"))
    return rows


CASES = [dask_scale]

if __name__ == "__main__":        # the subprocesses: `cluster FOLDER CT_ITER DS_ITER CHECK` or `memory FOLDER CT_ITER DS_ITER ct|ds`
    what, folder, ct_iter, ds_iter, extra = sys.argv[1:6]
    if what == "cluster": res = run_cluster(folder, int(ct_iter), int(ds_iter), bool(int(extra)))
    else: res = run_memory(folder, int(ct_iter), int(ds_iter), extra)
    print(json.dumps(res))
