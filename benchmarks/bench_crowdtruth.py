"""CrowdTruth 2.0: crowdnb.crowdtruth (reference mode) against the `crowdtruth` 2.1 package, and crowdnb alone at 1M judgments."""
from __future__ import annotations
import copy, logging, warnings

import numpy as np
import pandas as pd

from benchmarks.common import Result, timeit, peak_memory, max_abs_diff
from crowdnb.core import simulate_crowd, as_judgments, shared_data
from crowdnb import crowdtruth as ct

SCORES = {"workers": ["wqs", "wwa", "wsa", "wqs_initial"], "units": ["uqs", "uqs_initial"], "annotations": ["aqs", "aqs_initial"]}


def _reference_load(table: pd.DataFrame, labels, prep=str):
    "crowdtruth 2.1 `load` of a long table (custom platform: judgment, unit, worker, start, submit)."
    import crowdtruth
    from crowdtruth.configuration import DefaultConfig

    class Config(DefaultConfig):
        inputColumns = ["text"]
        outputColumns = ["answer"]
        customPlatformColumns = ["judgment", "unit", "worker", "started", "submitted"]
        open_ended_task = labels is None
        annotation_vector = [str(x) for x in labels] if labels is not None else []
        def processJudgments(self, judgments):
            judgments["answer"] = judgments["answer"].map(prep)
            return judgments

    logging.getLogger().setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return crowdtruth.load(data_frame=table, config=Config())


def _reference_metrics(data, config):
    import crowdtruth
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return crowdtruth.run(copy.deepcopy(data), config)


def _agree(ours, ref) -> str:
    d = 0.0
    for part, cols in SCORES.items():
        o = getattr(ours, part); r = ref[part]
        if part == "annotations": o = o.set_axis(o.index.map(str))
        for c in cols:
            if c in r.columns: d = max(d, max_abs_diff(o[c].to_numpy(), r[c].reindex(o.index).to_numpy()))
    return f"{'yes' if d < 1e-9 else 'NO'} (max |diff| {d:.0e})"


def _compare(name, table, labels, size, crowd_kw=None, prep=str):
    "Metrics-only and load+metrics timings of crowdtruth 2.1 and crowdnb's reference mode on one table."
    crowd_kw = crowd_kw or {}
    ref_table = pd.DataFrame({"judgment": np.arange(len(table)), "unit": table["unit"].to_numpy(),
                              "worker": table["worker"].to_numpy(), "started": table.get("started", "2020-01-01 10:00:00"),
                              "submitted": table.get("submitted", "2020-01-01 10:01:00"),
                              "answer": table["label"].to_numpy(), "text": "x"})
    (data, config), ref_load_s = timeit(_reference_load, ref_table, labels, prep)
    ref, ref_metrics_s = timeit(_reference_metrics, data, config)
    J = as_judgments(table[["unit", "worker", "label"]], labels=labels, empty="drop")
    ours, metrics_s = timeit(ct.run, J, reference=True, repeat=3)
    _, both_s = timeit(ct.run, table[["unit", "worker", "label"]], labels=labels, reference=True, repeat=3)
    _, peak = peak_memory(ct.run, J, reference=True)
    agree = _agree(ours, ref)
    return [Result(f"crowdtruth 2.0 metrics, {name}", size, metrics_s, ref_metrics_s, peak, agree, ">= 100x"),
            Result(f"crowdtruth 2.0 load + metrics, {name}", size, both_s, ref_load_s + ref_metrics_s, None, agree, "")]


def closed_task(quick: bool = False):
    "The same generated closed task (4 labels, 10 workers per unit, 20% spammers): 8,000 judgments."
    n_units = 200 if quick else 800
    sim = simulate_crowd(n_units=n_units, n_workers=100, n_labels=4, workers_per_unit=10, seed=0)
    return _compare("generated closed task", sim.judgments, sim.labels, f"{len(sim.judgments):,} judgments")


def rte(quick: bool = False):
    "The RTE data of the crowdtruth tutorials (800 sentence pairs x 10 workers, labels 0/1), when ../shared/data is present."
    path = shared_data("crowdtruth-core", "tutorial", "data", "rte.standardized.csv")
    if path is None or quick: return []
    t = pd.read_csv(path)
    table = pd.DataFrame({"unit": t["orig_id"], "worker": t["!amt_worker_ids"], "label": t["response"],
                          "started": t["start"], "submitted": t["end"]})
    return _compare("rte.standardized.csv", table, [0, 1], f"{len(t):,} judgments")


def crowd_table(n_units: int, n_workers: int = 2000, per_unit: int = 20, n_labels: int = 10, seed: int = 0) -> pd.DataFrame:
    "A large single-label crowd without a units x workers draw: worker k of unit s is (a_s + b_s k) mod n_workers with b_s coprime to n_workers (so the workers of a unit are distinct); 20% spammers, Beta(8, 2) qualities, as in `simulate_crowd`."
    rng = np.random.default_rng(seed)
    steps = np.array([b for b in range(1, n_workers) if np.gcd(b, n_workers) == 1])
    a, b = rng.integers(0, n_workers, n_units), rng.choice(steps, n_units)
    w = ((a[:, None] + b[:, None] * np.arange(per_unit)) % n_workers).ravel()
    u = np.repeat(np.arange(n_units), per_unit)
    q = rng.beta(8.0, 2.0, n_workers); q[rng.random(n_workers) < 0.2] = 0.0
    d = rng.beta(1.0, 6.0, n_units)
    truth = rng.integers(0, n_labels, n_units)
    ans = np.where(rng.random(len(u)) < q[w] * (1 - d[u]), truth[u], rng.integers(0, n_labels, len(u)))
    names = lambda p, n: pd.Index([f"{p}{k}" for k in range(n)], dtype=str)
    return pd.DataFrame({"unit": names("u", n_units).take(u), "worker": names("w", n_workers).take(w),
                         "label": names("L", n_labels).take(ans)})


def _crowd_run(n_units: int, engine: str = "") -> dict:
    "Time `as_judgments` and `run` (default mode) on `crowd_table(n_units)` in the given engine (runs in its own process for the peak RSS)."
    import os, time
    if engine: os.environ["CROWDNB_ENGINE"] = engine
    t = crowd_table(n_units)
    labels = [f"L{k}" for k in range(10)]
    ct.run(crowd_table(200)[["unit", "worker", "label"]], labels=labels)   # kernels loaded from their cache (or compiled once)
    t0 = time.perf_counter(); J = as_judgments(t, labels=labels); t1 = time.perf_counter()
    res = ct.run(J); t2 = time.perf_counter()
    return dict(judgments=len(t), load=t1 - t0, metrics=t2 - t1, iterations=len(res.history), converged=res.converged)


def million(quick: bool = False):
    "crowdnb alone, default mode: 50,000 units x 20 workers (of 2,000), 10 labels = 1,000,000 judgments; from Judgments and from the DataFrame, in each engine (same run)."
    from benchmarks.common import engines, engine_env
    n_units = 5_000 if quick else 50_000
    sim = simulate_crowd(n_units=n_units, n_workers=2000, n_labels=10, workers_per_unit=20, seed=0)
    J, load_s = timeit(as_judgments, sim.judgments, labels=sim.labels)
    size, rows, scores = f"{len(sim.judgments):,} judgments", [], {}
    for eng in engines():
        with engine_env(eng):
            ct.run(sim.judgments.head(500), labels=sim.labels)             # kernels loaded from their cache (or compiled once)
            res, secs = timeit(ct.run, J, repeat=2)
            _, both_s = timeit(ct.run, sim.judgments, labels=sim.labels)
            _, peak = peak_memory(ct.run, sim.judgments, labels=sim.labels)
        scores[eng] = res.workers.wqs.to_numpy()
        w = res.workers.join(sim.spammer)
        sep = w.loc[w.spammer, "wqs"].max() < w.loc[~w.spammer, "wqs"].median()
        note = f"{eng} engine: {len(res.history)} iterations, converged={res.converged}, spammers below median WQS: {sep}"
        if len(scores) == 2: note += f"; engines agree: max |diff WQS| {max_abs_diff(*scores.values()):.0e}"
        rows += [Result(f"crowdtruth 2.0 metrics from Judgments ({eng})", size, secs, None, None, note, "<= 3 s"),
                 Result(f"crowdtruth 2.0 load + metrics from a DataFrame ({eng})", size, both_s, None, peak, note, "")]
    return rows + [Result("core: as_judgments, single-label strings", size, load_s, None, None, "-", "<~ 1 s")]


def ten_million(quick: bool = False):
    "crowdnb alone, default mode, in a fresh process per engine (peak RSS of that process): 500,000 units x 20 workers (of 2,000), 10 labels = 10,000,000 judgments, generated without a dense draw."
    from benchmarks.common import isolated, engines
    n_units = 50_000 if quick else 500_000
    rows = []
    for eng in engines():
        out, rss = isolated("bench_crowdtruth", "_crowd_run", n_units=n_units, engine=eng)
        size = f"{out['judgments']:,} judgments"
        note = f"{eng} engine: {out['iterations']} iterations, converged={out['converged']}; peak = RSS of the process (input table included)"
        rows += [Result(f"crowdtruth 2.0 metrics from Judgments ({eng})", size, out["metrics"], None, rss, note, "<= 45 s, <= 8 GB"),
                 Result(f"crowdtruth 2.0 load + metrics from a DataFrame ({eng})", size, out["load"] + out["metrics"], None, rss, note, "")]
    return rows + [Result("core: as_judgments, single-label strings", size, out["load"], None, rss, "-", "<~ 15 s")]


CASES = [closed_task, rte, million, ten_million]
