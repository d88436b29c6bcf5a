"""CrowdTruth 1.0 metrics: crowdnb against the loop-by-loop oracle of tests/test_crowdtruth_v1.py (there is no
reference package for CrowdTruth 1.0), and crowdnb alone on a million judgments."""
from __future__ import annotations
import importlib.util, tempfile
from pathlib import Path

import numpy as np

from benchmarks.common import Result, timeit, peak_memory
from crowdnb.core import simulate_crowd, as_judgments
from crowdnb import crowdtruth_v1 as ct1

def _oracle_module():
    "The loop oracle of tests/test_crowdtruth_v1.py (which imports the tests' conftest, so tests/ joins sys.path)."
    import sys
    tests = Path(__file__).resolve().parent.parent / "tests"
    if str(tests) not in sys.path: sys.path.insert(0, str(tests))
    spec = importlib.util.spec_from_file_location("_ct1_oracle", tests / "test_crowdtruth_v1.py")
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod

def _crowd(n_units, n_workers, workers_per_unit, n_labels=10, seed=0):
    return simulate_crowd(n_units=n_units, n_workers=n_workers, n_labels=n_labels, workers_per_unit=workers_per_unit,
                          multi_label=True, label_density=0.2, seed=seed)

def vs_loop_oracle(quick: bool = False):
    "8,000 judgments (800 sentences x 10 of 60 workers, 10 relations, multi-label): metrics only."
    n_units = 200 if quick else 800
    sim = _crowd(n_units, 60, 10)
    j = as_judgments(sim.judgments, sep="|", labels=sim.labels)
    res, secs = timeit(ct1.metrics, j, repeat=3)
    T = _oracle_module()
    rows = [(u, w, ls) for u, w, ls in zip(j.frame["unit"], j.frame["worker"], j.frame["labels"])]
    o, ref = timeit(T.oracle, rows, list(sim.labels))
    try:
        T.assert_matches_oracle(res, o, list(sim.labels)); agree = "yes (every metric within 1e-12)"
    except AssertionError as e:
        agree = f"NO: {str(e).splitlines()[0][:60]}"
    _, peak = peak_memory(ct1.metrics, j)
    return Result("crowdtruth_v1: metrics vs loop oracle", f"{len(rows):,} judgments", secs, ref, peak, agree, "")

def million(quick: bool = False):
    "1,000,000 judgments (50,000 sentences x 20 of 200 workers, 10 relations, multi-label): load+metrics and metrics only."
    n_units = 5_000 if quick else 50_000
    sim = _crowd(n_units, 200, 20, seed=1)
    def load_and_metrics():
        return ct1.metrics(sim.judgments, sep="|", labels=sim.labels)
    res, secs_all = timeit(load_and_metrics)
    _, peak_all = peak_memory(load_and_metrics)
    j = as_judgments(sim.judgments, sep="|", labels=sim.labels)
    res2, secs = timeit(ct1.metrics, j)
    _, peak = peak_memory(ct1.metrics, j)
    ok = (res2.workers["n_sentences"].sum() == len(sim.judgments)
          and np.allclose(res2.sentences["clarity"], res2.sentence_relation.max(axis=1))
          and res.workers.equals(res2.workers))
    size = f"{len(sim.judgments):,} judgments"
    agree = "identities hold" if ok else "IDENTITY FAILED"
    return [Result("crowdtruth_v1: load + metrics", size, secs_all, None, peak_all, agree, "< 30 s, < 4 GB"),
            Result("crowdtruth_v1: metrics only", size, secs, None, peak, agree, "< 30 s, < 4 GB")]

def workbooks(quick: bool = False):
    "write_workbooks with its formula guard vs plain pandas/openpyxl sheets (the 'reference' column): the guard's cost. A tenth of the worker ids look like formulas."
    n_units = 200 if quick else 2_000
    sim = _crowd(n_units, 100, 10, seed=2)
    df = sim.judgments.assign(worker=lambda t: t["worker"].where(t["worker"].str[-1] != "7", "=" + t["worker"]))
    res = ct1.metrics(df, sep="|", labels=sim.labels)
    import openpyxl, pandas as pd
    with tempfile.TemporaryDirectory() as tmp:
        paths, secs = timeit(ct1.write_workbooks, res, "bench", tmp)
        def plain():
            with pd.ExcelWriter(Path(tmp) / "plain.xlsx", engine="openpyxl") as xl:
                res.workers.to_excel(xl, sheet_name="workerMetrics")
                res.worker_sentence.to_excel(xl, sheet_name="workerSentenceScore")
                res.worker_relation.to_excel(xl, sheet_name="workerRelationScore")
            with pd.ExcelWriter(Path(tmp) / "plain2.xlsx", engine="openpyxl") as xl:
                res.sentences.to_excel(xl, sheet_name="sentenceMetrics")
                res.relations.to_excel(xl, sheet_name="relationMetrics")
                res.similarity_table().to_excel(xl, sheet_name="relationSimilarity")
        _, ref = timeit(plain)
        cells = [c for p in paths for ws in openpyxl.load_workbook(p).worksheets for row in ws.iter_rows() for c in row]
        formulas = sum(c.data_type == "f" for c in cells)
        kept = sum(isinstance(c.value, str) and c.value.startswith("=") for c in cells)
    return Result("crowdtruth_v1: write_workbooks (guarded) vs unguarded sheets", f"{len(df):,} judgments", secs, ref, None,
                  f"{formulas} formula cells, {kept} '='-text cells kept as text", "0 formulas")

CASES = [vs_loop_oracle, million, workbooks]
