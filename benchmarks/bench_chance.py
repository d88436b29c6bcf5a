"""Chance-corrected agreement: `coefficient_table` (Gwet's AC, Fleiss, Conger, Krippendorff, Brennan-Prediger and
percent agreement, with standard errors, intervals and p-values) against irrcac 0.4.4, Gwet's irrCAC ported to
Python. irrcac pins scipy 1.12 and pandas < 3, so it runs in its own environment (`.oracles/irrcac/`, made by
tools/oracles/irrcac_fixtures.py); its time is measured inside that process (tools/oracles/irrcac_bench.py), not
the interpreter start. The cases skip the reference cleanly when that environment is absent."""
import json, subprocess, tempfile
from pathlib import Path

import numpy as np

from benchmarks.common import Result, timeit, peak_memory, max_abs_diff
from crowdnb.core import Judgments
from crowdnb.chance import coefficient_table

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / ".oracles" / "irrcac" / "bin" / "python"
HELPER = ROOT / "tools" / "oracles" / "irrcac_bench.py"
ROWS = {"gwet": None, "fleiss": "Fleiss' kappa", "conger": "Conger's kappa", "krippendorff": "Krippendorff's alpha",
        "bp": "Brennan-Prediger"}
WEIGHTS = ("identity", "quadratic")


def _ratings(units, raters, labels=5, missing=0.3, seed=0):
    "A units x raters matrix of ratings 1..labels (70% right, else random), NaN where missing."
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, labels + 1, units)
    m = np.where(rng.random((units, raters)) < 0.7, truth[:, None], rng.integers(1, labels + 1, (units, raters))).astype(float)
    m[rng.random((units, raters)) < missing] = np.nan
    return m


def _irrcac(m, weights):
    "irrcac's results and in-process seconds per weights, or None when the oracle environment is absent."
    if not ORACLE.exists(): return None
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.npy"; np.save(path, m)
        out = subprocess.run([str(ORACLE), str(HELPER), str(path), *weights], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _diff(table, ref):
    "Largest |difference| of estimate, se and interval between our table and irrcac's five coefficients."
    worst = 0.0
    for m, row in ROWS.items():
        r = row or table.index[0]
        ours = table.loc[r, ["estimate", "se", "ci_low", "ci_high"]].to_numpy(float)
        theirs = [ref[m][k] for k in ("estimate", "se", "ci_low", "ci_high")]
        worst = max(worst, max_abs_diff(ours, theirs))
    return worst


def table_vs_irrcac(quick: bool = False):
    units, raters = (2_000, 10) if quick else (20_000, 50)
    m = _ratings(units, raters)
    J = Judgments.from_matrix(m)
    ref = _irrcac(m, WEIGHTS)
    out = []
    for w in WEIGHTS:
        table, secs = timeit(coefficient_table, J, w, repeat=3)
        _, peak = peak_memory(coefficient_table, J, w)
        if ref is None:
            agree, ref_s = "skipped reference: .oracles/irrcac absent (tools/oracles/irrcac_fixtures.py)", None
        else:
            d = _diff(table, ref[w])
            agree, ref_s = (f"yes (max |diff| {d:.0e})" if d < 1e-9 else f"NO (max |diff| {d:.1e})"), ref[w]["seconds"]
        out.append(Result(f"coefficient_table ({w}) vs irrcac raw.CAC, 5 coefficients + se/CI/p",
                          f"{raters} raters x {units:,} units, 30% missing", secs, ref_s, peak, agree, ">= 10x"))
    return out


def table_from_matrix(quick: bool = False):
    "End to end from the wide matrix: Judgments.from_matrix and the first (uncached) table, vs irrcac's whole run."
    units, raters = (2_000, 10) if quick else (20_000, 50)
    m = _ratings(units, raters, seed=1)
    table, secs = timeit(lambda: coefficient_table(Judgments.from_matrix(m), "identity"))
    ref = _irrcac(m, ("identity",))
    if ref is None:
        return Result("from_matrix + coefficient_table (identity), cold", f"{raters} x {units:,}", secs, None, None,
                      "skipped reference: .oracles/irrcac absent")
    d = _diff(table, ref["identity"])
    return Result("from_matrix + coefficient_table (identity), cold", f"{raters} raters x {units:,} units", secs,
                  ref["identity"]["seconds"], None, f"yes (max |diff| {d:.0e})" if d < 1e-9 else f"NO ({d:.1e})",
                  "(front door included)")


def bootstrap_table(quick: bool = False):
    units, raters = (1_000, 10) if quick else (5_000, 20)
    n_boot = 200 if quick else 1000
    J = Judgments.from_matrix(_ratings(units, raters, seed=2))
    gw = coefficient_table(J, "quadratic")
    res, secs = timeit(coefficient_table, J, "quadratic", se="bootstrap", n_boot=n_boot, seed=0, progress=False)
    ratio = (res["se"] / gw["se"]).to_numpy()
    ok = bool(np.all(np.abs(ratio - 1) < 0.15))
    return Result(f"coefficient_table bootstrap ({n_boot} resamples, all 6 coefficients)", f"{raters} x {units:,}", secs,
                  None, None, f"bootstrap se / Gwet se in [{ratio.min():.2f}, {ratio.max():.2f}]" if ok else
                  f"SE MISMATCH {ratio.round(2)}", "< 10 s")


CASES = [table_vs_irrcac, table_from_matrix, bootstrap_table]
