"""Ratings and sets of labels: `icc` (ANOVA on complete data against pingouin; REML on 1,000 raters x 100,000 units
with 30% missing, goal <= 10 s on 2 cores) and MASI alpha on 1M multi-label judgments (goal <= 2 s)."""
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
    def core():
        d = rating_design(u, r, y, units, raters)
        kh = units / (1.0 / np.bincount(u, minlength=units)).sum()
        return icc_from_components(reml_components(d), units, kh, len(y), raters)
    out, t = timeit(core)
    return Result("icc REML core (codes in), 30% missing", f"{units:,} units x {raters:,} raters ({len(y):,} ratings)",
                  t, None, None, f"ICC2 {out.loc['ICC2', 'estimate']:.3f} (simulated 0.444)", "<= 10 s")


def icc_front_door(quick: bool = False):
    units, raters = (2_000, 100) if quick else (20_000, 200)
    u, r, y = _ratings(units, raters, 0.3)
    df = pd.DataFrame({"unit": u, "worker": r, "label": np.round(y, 1)})
    out, t = timeit(icc, df)
    return Result("icc front door (long DataFrame), REML", f"{len(df):,} ratings", t, None, None, out.attrs["method"])


CASES = [icc_vs_pingouin, icc_reml_large, icc_front_door]
