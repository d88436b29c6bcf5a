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

CASES = [load_and_arrays, csv_front_door]
