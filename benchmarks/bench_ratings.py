"""Ratings and sets of labels: `icc` (ANOVA on complete data against pingouin; REML on 1,000 raters x 100,000 units
with 30% missing, goal <= 10 s on 2 cores) and MASI alpha on 1M multi-label judgments (goal <= 2 s)."""
import os
import warnings

import numpy as np
import pandas as pd

from benchmarks.common import Result, timeit, max_abs_diff
from crowdnb.ratings import icc, icc_from_components, rating_design, reml_components


def _ratings(units, raters, missing, seed=0):
    rng = np.random.default_rng(seed)
    u, r = np.nonzero(rng.random((units, raters)) >= missing)
    y = rng.normal(size=units)[u] + 0.5 * rng.normal(size=raters)[r] + rng.normal(size=len(u))
    return u.astype(np.int64), r.astype(np.int64), y


def icc_vs_pingouin(quick: bool = False):
    units, raters = (500, 10) if quick else (5_000, 20)
    u, r, y = _ratings(units, raters, 0.0)
    df = pd.DataFrame({"unit": u, "worker": r, "label": y})
    ours, t = timeit(icc, df)
    try:
        import pingouin as pg
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref, tr = timeit(pg.intraclass_corr, df, targets="unit", raters="worker", ratings="label")
        agree = f"yes (max |diff| {max_abs_diff(ours['estimate'], ref['ICC']):.0e})"
    except ImportError:
        tr, agree = None, "n/a (pingouin absent)"
    return Result("icc, complete data (ANOVA) vs pingouin", f"{units:,} units x {raters} raters", t, tr, None, agree)


def icc_reml_large(quick: bool = False):
    units, raters = (10_000, 1_000) if quick else (100_000, 1_000)
    u, r, y = _ratings(units, raters, 0.3)
    def core(u, r, y, units, raters):
        d = rating_design(u, r, y, units, raters)
        kh = units / (1.0 / np.bincount(u, minlength=units)).sum()
        return icc_from_components(reml_components(d), units, kh, len(y), raters)
    core(*_ratings(200, 50, 0.3), 200, 50)            # loads numba's cached kernels (a one-time cost per process)
    cpu = os.times()
    out, t = timeit(core, u, r, y, units, raters)
    cpu = sum(os.times()[:2]) - sum(cpu[:2])
    return Result("icc REML core (codes in), 30% missing", f"{units:,} units x {raters:,} raters ({len(y):,} ratings)",
                  t, None, None, f"ICC2 {out.loc['ICC2', 'estimate']:.3f} (simulated 0.444); CPU {cpu:.1f} s, "
                  f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", "<= 10 s")


def icc_front_door(quick: bool = False):
    units, raters = (2_000, 100) if quick else (20_000, 200)
    u, r, y = _ratings(units, raters, 0.3)
    df = pd.DataFrame({"unit": u, "worker": r, "label": np.round(y, 1)})
    out, t = timeit(icc, df)
    return Result("icc front door (long DataFrame), REML", f"{len(df):,} ratings", t, None, None, out.attrs["method"])


CASES = [icc_vs_pingouin, icc_reml_large, icc_front_door]


def _multi(n_judgments, seed=0):
    "Multi-label judgments: 5 workers per unit, 12 labels, each answer 1-3 labels near the unit's own set."
    rng = np.random.default_rng(seed)
    units = n_judgments // 5
    base = rng.integers(0, 12, (units, 2))
    own = np.repeat(base, 5, axis=0)
    k = rng.integers(1, 4, units * 5)
    pick = np.where(rng.random((units * 5, 3)) < 0.7, own[:, rng.integers(0, 2, 3)], rng.integers(0, 12, (units * 5, 3)))
    lab = np.array([f"r{i:02d}" for i in range(12)])
    text = pd.Series(["|".join(sorted(set(lab[p[:m]]))) for p, m in zip(pick, k)])
    return pd.DataFrame({"unit": np.repeat(np.arange(units), 5), "worker": np.tile(np.arange(5), units), "label": text})


def masi_alpha_million(quick: bool = False):
    from crowdnb.core import as_judgments
    from crowdnb.agreement import krippendorff_alpha
    n = 100_000 if quick else 1_000_000
    df = _multi(n)
    j = as_judgments(df, sep="|")
    a, t = timeit(krippendorff_alpha, j, level="masi", repeat=3)
    _, t_door = timeit(krippendorff_alpha, df, level="masi", sep="|")
    return Result("MASI alpha, multi-label (Judgments in; DataFrame in: %.2f s)" % t_door, f"{n:,} judgments", t, None, None,
                  f"alpha {a:.3f}", "<= 2 s")


CASES += [masi_alpha_million]
