"""Model B (Dawid-Skene) EM: crowdnb's sparse log-space EM vs crowd-kit's DawidSkene, per iteration, same data,
same start (majority-vote shares), same number of iterations; the log-likelihoods reached are compared."""
import time

import numpy as np
import pandas as pd

from benchmarks.common import Result, peak_memory
from crowdnb.core import as_judgments
from crowdnb.model_b import ModelB, ModelBParams, as_patterns, em, random_model


def simulate(n_items, n_annot=200, n_values=5, per_item=5, seed=0):
    "Long table (task, worker, label) of n_items * per_item labels from a planted model B."
    rng = np.random.default_rng(seed)
    base = random_model(n_annot, n_values, seed=rng)
    truth_model = ModelBParams(base.gamma, 0.6 * np.eye(n_values) + 0.4 * base.lam)
    items = np.repeat(np.arange(n_items), per_item)
    workers = np.argsort(rng.random((n_items, n_annot)), axis=1)[:, :per_item].ravel()   # distinct per item
    truth = rng.choice(n_values, size=n_items, p=truth_model.gamma)
    cdf = np.cumsum(truth_model.lam, axis=2)
    labels = (rng.random(len(items))[:, None] > cdf[workers, truth[items]]).sum(1)
    return pd.DataFrame({"task": items, "worker": workers, "label": labels})


def _wall(fn):
    t0 = time.perf_counter(); out = fn(); return out, time.perf_counter() - t0


def crowdkit_model(ds, values, n_annot):
    "crowd-kit's fitted priors_/errors_ as a ModelBParams (errors_.loc[(worker, observed), true] = λ_{observed|true})."
    m = len(values)
    lam = np.zeros((n_annot, m, m))
    e = ds.errors_
    w = e.index.get_level_values(0).to_numpy()
    obs = pd.Index(values).get_indexer(e.index.get_level_values(1))
    lam[w[:, None], np.arange(m)[None, :], obs[:, None]] = e[list(values)].to_numpy()
    return ModelBParams(ds.priors_.reindex(values).to_numpy(), lam, values)


def em_vs_crowdkit(quick: bool = False):
    from crowdkit.aggregation import DawidSkene
    n_items = 20_000 if quick else 200_000
    df = simulate(n_items)
    j = as_judgments(df, unit="task", worker="worker", label="label")
    p = as_patterns(j)                       # one-off: sparse one-hot patterns (not timed per iteration)
    k1, k2 = 2, 12
    # per-iteration cost as the marginal cost of k2 - k1 extra iterations (excludes each side's set-up)
    (_, t1), (ours, t2) = _wall(lambda: em(p, max_iter=k1, tol=0)), _wall(lambda: em(p, max_iter=k2, tol=0))
    ours_it = (t2 - t1) / (k2 - k1)
    c1, c2 = 2, 5
    (_, r1) = _wall(lambda: DawidSkene(n_iter=c1, tol=-np.inf).fit(df))
    (ds, r2) = _wall(lambda: DawidSkene(n_iter=c2, tol=-np.inf).fit(df))
    ref_it = (r2 - r1) / (c2 - c1)
    _, peak = peak_memory(lambda: em(p, max_iter=3, tol=0))
    # same log-likelihood after the same number of iterations from the same start
    same = em(p, max_iter=c2, tol=0)
    ll_ck = crowdkit_model(ds, list(p.values), p.n_annotators).log_likelihood(p)
    diff = abs(same.log_lik - ll_ck)
    agree = f"{'yes' if diff < 1e-6 * abs(ll_ck) else 'NO'} (log L {same.log_lik:.4f} vs {ll_ck:.4f}, |diff| {diff:.1e})"
    print(f"model B EM per iteration: crowdnb {ours_it * 1e3:.1f} ms, crowd-kit {ref_it * 1e3:.1f} ms, "
          f"ratio {ref_it / ours_it:.1f}x")
    return Result("model B EM per iteration vs crowd-kit DawidSkene", f"{len(df):,} labels, {n_items:,} items, "
                  "200 annotators, 5 values", ours_it, ref_it, peak, agree, ">= 8x")


def estimator_vs_crowdkit(quick: bool = False):
    "End to end, front door included: ModelB().fit(long table) vs DawidSkene().fit(long table), same start and iterations."
    from crowdkit.aggregation import DawidSkene
    n_items = 20_000 if quick else 100_000
    df = simulate(n_items)
    n_iter = 20
    (ours, secs) = _wall(lambda: ModelB(max_iter=n_iter, tol=0, accelerate=False, relabel=False).fit(df, unit="task"))
    (ds, ref) = _wall(lambda: DawidSkene(n_iter=n_iter, tol=-np.inf).fit(df))
    diff = float(np.abs(ours.gamma_.to_numpy() - ds.priors_.reindex(ours.gamma_.index).to_numpy()).max())
    agree = f"{'yes' if diff < 1e-8 else 'NO'} (max |Δγ| {diff:.1e})"
    return Result("model B estimator fit, 20 EM iterations vs crowd-kit", f"{len(df):,} labels, {n_items:,} items",
                  secs, ref, None, agree, "")


CASES = [em_vs_crowdkit, estimator_vs_crowdkit]
