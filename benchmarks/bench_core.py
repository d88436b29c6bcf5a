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

CASES = [load_and_arrays, csv_front_door, from_matrix_and_codes, memory_bandwidth]
