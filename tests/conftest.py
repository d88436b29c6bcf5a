"""Shared test fixtures: the repository root and the optional ../shared/data folder."""
from pathlib import Path
import os, pytest

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("MPLBACKEND", "Agg")

def shared(*parts):
    "Path under ../shared/data, or skip the test when it is absent (as on a user's machine)."
    from crowdnb.core import shared_data
    p = shared_data(*parts)
    if p is None: pytest.skip(f"../shared/data/{'/'.join(parts)} is absent")
    return p

def four_ways(tmp_path, **sim_kw):
    "One simulated single-label crowd as Judgments, as a long table with its own column names, as a CSV file, and as a units x workers matrix: (sim, {way: (data, input options)}, the renamed table)."
    from crowdnb.core import Judgments, as_judgments, simulate_crowd
    sim = simulate_crowd(**(dict(n_units=40, n_workers=12, n_labels=4, workers_per_unit=5, seed=3) | sim_kw))
    df = sim.judgments
    renamed = df.rename(columns={"unit": "item", "worker": "rater", "label": "answer"})
    path = tmp_path / "crowd.csv"
    renamed.to_csv(path, index=False)
    cols = dict(unit="item", worker="rater", label="answer", labels=sim.labels)
    wide = df.pivot(index="unit", columns="worker", values="label")
    return sim, {"judgments": (as_judgments(df, labels=sim.labels), {}), "long table": (renamed, cols),
                 "csv path": (path, cols), "from_matrix": (Judgments.from_matrix(wide, labels=sim.labels), {})}, renamed
