"""Aggregation models (crowdnb.aggregation) against crowd-kit, per fit with the same iterations, on one simulated crowd
(1M labels; --quick: 100k): majority vote, Wawa, ZBS, one-coin and full Dawid-Skene, MACE, GLAD, KOS, M-MSR; and the
bootstrap of worker intervals (200 resamples) and CrowdTruth's WQS interval. Ratios are crowd-kit seconds / crowdnb
seconds, measured in the same run; labels' agreement is reported. crowd-kit's M-MSR builds its worker x worker matrix
with a Python loop over pairs of workers and its GLAD runs scipy per M step on pandas: they are timed on a smaller crowd
(stated in the size column)."""
import time
import warnings

import numpy as np
import pandas as pd

from benchmarks.common import Result, timeit
from crowdnb.core import as_judgments, simulate_crowd

GOAL = ">= 20x"


def crowd(n_labels_total: int, n_workers: int = 1000, per_unit: int = 10, K: int = 4, seed: int = 0):
    "A simulated crowd of about `n_labels_total` labels: (Judgments, crowd-kit frame, n)."
    sim = simulate_crowd(n_labels_total // per_unit, n_workers, K, per_unit, seed=seed)
    df = sim.judgments
    return as_judgments(df), df.rename(columns={"unit": "task"}), len(df)


def pairs(n_iter: int = 5):
    "(name, crowdnb estimator, crowd-kit estimator, crowd-kit on a small crowd) with the same iterations."
    import crowdkit.aggregation as ca
    from crowdnb import aggregation as ag
    return [("majority vote", lambda: ag.MajorityVote(seed=0), lambda: ca.MajorityVote(), False),
            ("Wawa", lambda: ag.Wawa(seed=0), lambda: Labels(ca.Wawa()), False),
            ("ZBS", lambda: ag.ZeroBasedSkill(n_iter=n_iter, seed=0), lambda: Labels(ca.ZeroBasedSkill(n_iter=n_iter)), False),
            ("one-coin DS", lambda: ag.OneCoinDawidSkene(n_iter=n_iter, tol=0, seed=0),
             lambda: ca.OneCoinDawidSkene(n_iter=n_iter, tol=-np.inf), False),
            ("Dawid-Skene", lambda: ag.DawidSkene(max_iter=n_iter, tol=0, accelerate=False, relabel=False),
             lambda: ca.DawidSkene(n_iter=n_iter, tol=-np.inf), False),
            ("MACE (VB, 1 start)", lambda: ag.MACE(n_starts=1, n_iter=n_iter, seed=0),
             lambda: ca.MACE(n_restarts=1, n_iter=n_iter, random_state=0), False),
            ("GLAD", lambda: ag.GLAD(n_iter=n_iter, tol=None, optimizer="CG", seed=0),
             lambda: ca.GLAD(n_iter=n_iter, tol=-np.inf), True),
            ("KOS", lambda: ag.KOS(n_iter=n_iter, seed=0), None, False),
            ("M-MSR", lambda: ag.MMSR(n_iter=n_iter, tol=0, seed=0), lambda: ca.MMSR(n_iter=n_iter, tol=0), True)]


class Labels:
    "crowd-kit's fit, then its skill-weighted vote (Wawa's and ZBS's own predict fail scikit-learn's tag check here)."
    def __init__(self, est): self.est = est
    def fit_predict(self, ck):
        import crowdkit.aggregation as ca
        return ca.MajorityVote().fit(ck, skills=self.est.fit(ck).skills_).labels_


def case_fits(quick: bool = False):
    """Per fit, same iterations: every model at 1M labels (100k quick) against crowd-kit. CROWDNB_BENCH_SKIP_BIG=1 skips
    the informative timing of crowdnb's GLAD and M-MSR on the big crowd (minutes on 2 cores)."""
    import os
    skip_big = os.environ.get("CROWDNB_BENCH_SKIP_BIG", "") == "1"
    warnings.simplefilter("ignore")
    n = 100_000 if quick else 1_000_000
    J, ck, size = crowd(n)
    Js, cks, small = crowd(20_000, n_workers=100)
    out = []
    for name, ours, ref, on_small in pairs():
        (est, t_ours) = timeit(lambda: ours().fit(J))
        label = f"{size:,} labels"
        if ref is None:           # crowd-kit's KOS is binary only: a binary crowd of the same size
            Jb, ckb, nb = crowd(n, K=2)
            est, t_ours = timeit(lambda: ours().fit(Jb))
            import crowdkit.aggregation as ca
            r, t_ref = timeit(lambda: ca.KOS(n_iter=5).fit_predict(ckb))
            agree = (est.labels_ == r[est.labels_.index]).mean()
            out.append(Result(f"aggregation {name} (binary)", f"{nb:,} labels", t_ours, t_ref, None, f"labels {agree:.3f}", GOAL))
            continue
        if on_small:
            est_s, t_ours = timeit(lambda: ours().fit(Js))
            r, t_ref = timeit(lambda: ref().fit_predict(cks))
            agree = (est_s.labels_ == r[est_s.labels_.index]).mean()
            big = f"; ours {t_ours_big(ours, J):.2f} s" if not skip_big else ""
            out.append(Result(f"aggregation {name}", f"{small:,} labels (crowd-kit too slow at {size:,}{big})",
                              t_ours, t_ref, None, f"labels {agree:.3f}", GOAL))
            continue
        r, t_ref = timeit(lambda: ref().fit_predict(ck))
        agree = (est.labels_ == r[est.labels_.index]).mean()
        out.append(Result(f"aggregation {name}", label, t_ours, t_ref, None, f"labels {agree:.3f}", GOAL))
        if name == "majority vote":   # crowd-kit reads a DataFrame: ours from the same frame, validation included
            _, t_df = timeit(lambda: ours().fit(ck, format="crowdkit"))
            out.append(Result(f"aggregation {name} from a DataFrame (as_judgments included)", label, t_df, t_ref,
                              None, "n/a", "informative"))
    return out


def t_ours_big(ours, J) -> float:
    "crowdnb's seconds on the big crowd."
    return timeit(lambda: ours().fit(J))[1]


def case_bootstrap(quick: bool = False):
    "theta_interval with 200 resamples (one-coin DS, MACE) and CrowdTruth's WQS interval, at 1M labels (100k quick)."
    warnings.simplefilter("ignore")
    from crowdnb import aggregation as ag, crowdtruth
    n = 100_000 if quick else 1_000_000
    J, _, size = crowd(n)
    out = []
    for name, est in (("one-coin DS", ag.OneCoinDawidSkene(n_iter=5, tol=0, seed=0)), ("majority vote", ag.MajorityVote(seed=0))):
        est.fit(J)
        _, t = timeit(lambda: est.theta_interval(n_boot=200, seed=0))
        out.append(Result(f"aggregation bootstrap 200 ({name})", f"{size:,} labels", t, None, None, "n/a", "<= 30 s"))
    fitted, t_fit = timeit(lambda: crowdtruth.run(J, labels=list(J.labels)))
    run = crowdtruth.run
    crowdtruth.run = lambda data, **kw: fitted        # the bootstrap alone: the fit is reused
    try: _, t_boot = timeit(lambda: ag.wqs_interval(J, labels=list(J.labels), seed=0))
    finally: crowdtruth.run = run
    out.append(Result("aggregation wqs_interval 200 (bootstrap only)", f"{size:,} labels (CrowdTruth fit {t_fit:.1f} s)",
                      t_boot, None, None, "n/a", "<= 30 s"))
    return out


CASES = [case_fits, case_bootstrap]
