"""Model B (Dawid-Skene) EM: crowdnb's sparse log-space EM vs crowd-kit's DawidSkene, per iteration, same data,
same start (majority-vote shares), same number of iterations; the log-likelihoods reached are compared. Also: the
time to a converged optimum on Table 14 (default SQUAREM path vs plain EM, 10 starts), the per-iteration cost of a
small pattern set (one start, and 100 starts side by side), and 10M labels."""
import time

import numpy as np
import pandas as pd

from benchmarks.common import Result, peak_memory, bandwidth_gbs, engine_env, engines
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


_engine, _engines = engine_env, engines   # one home: benchmarks.common


def _per_iter(p, k1, k2, repeat=2):
    "Seconds per EM iteration on `p` as the marginal cost of k2 - k1 extra iterations (best of `repeat`), in the engine set."
    em(p, max_iter=1, tol=0)                                       # warm-up: kernel compiled or loaded from its cache
    best = float("inf")
    for _ in range(repeat):
        (_, t1), (_, t2) = _wall(lambda: em(p, max_iter=k1, tol=0)), _wall(lambda: em(p, max_iter=k2, tol=0))
        best = min(best, (t2 - t1) / (k2 - k1))
    return best


def _by_engine(p, k1, k2, repeat=2):
    "{engine: (seconds per iteration, peak MiB of a 3-iteration run, log L after k2 iterations)} for each engine."
    out = {}
    for name in _engines():
        with _engine(name):
            it = _per_iter(p, k1, k2, repeat)
            _, peak = peak_memory(lambda: em(p, max_iter=3, tol=0))
            out[name] = (it, peak, em(p, max_iter=k2, tol=0).log_lik)
    return out


def _engines_note(res):
    "'numba 8.1 ms, numpy 41.0 ms per iteration; peak 30 / 180 MiB' and whether the engines' log L agree."
    names = list(res)
    txt = ", ".join(f"{n} {res[n][0] * 1e3:.1f} ms" for n in names) + " per iteration; peak " + \
        " / ".join(f"{res[n][1]:.0f}" for n in names) + " MiB"
    if len(names) == 2:
        a, b = res[names[0]][2], res[names[1]][2]
        txt += f"; engines' log L {'agree' if abs(a - b) <= 1e-10 * abs(b) else 'DIFFER'} (|diff| {abs(a - b):.1e})"
    return txt


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
    # per-iteration cost as the marginal cost of k2 - k1 extra iterations (excludes each side's set-up), per engine
    res = _by_engine(p, k1, k2)
    eng = next(iter(res))
    ours_it, peak = res[eng][0], res[eng][1]
    c1, c2 = 2, 5
    (_, r1) = _wall(lambda: DawidSkene(n_iter=c1, tol=-np.inf).fit(df))
    (ds, r2) = _wall(lambda: DawidSkene(n_iter=c2, tol=-np.inf).fit(df))
    ref_it = (r2 - r1) / (c2 - c1)
    # same log-likelihood after the same number of iterations from the same start
    same = em(p, max_iter=c2, tol=0)
    ll_ck = crowdkit_model(ds, list(p.values), p.n_annotators).log_likelihood(p)
    diff = abs(same.log_lik - ll_ck)
    agree = f"{'yes' if diff < 1e-6 * abs(ll_ck) else 'NO'} (log L {same.log_lik:.4f} vs {ll_ck:.4f}, |diff| {diff:.1e})"
    floor = _bytes_per_iter(p) / (bandwidth_gbs() * 1e9)
    print(f"model B EM per iteration ({eng}): crowdnb {ours_it * 1e3:.1f} ms, crowd-kit {ref_it * 1e3:.1f} ms, "
          f"ratio {ref_it / ours_it:.1f}x; memory-bandwidth floor {floor * 1e3:.1f} ms; {_engines_note(res)}")
    return Result(f"model B EM per iteration vs crowd-kit DawidSkene ({eng})", f"{len(df):,} labels, {n_items:,} items, "
                  f"200 annotators, 5 values (bandwidth floor {floor * 1e3:.1f} ms; {_engines_note(res)})", ours_it,
                  ref_it, peak, agree, "<= 10 ms, >= 40x")


def _bytes_per_iter(p):
    "Bytes one EM iteration must move: the one-hot matrix twice (indices + values) and ~8 passes over items x classes."
    nnz = p.onehot.nnz
    return 2 * nnz * (p.onehot.indices.itemsize + 8) + 8 * 8 * p.n_patterns * p.n_values


def em_10m(quick: bool = False):
    "Per-iteration cost at 10M labels (crowdnb alone: crowd-kit needs seconds per iteration here)."
    n_items = 200_000 if quick else 2_000_000
    df = simulate(n_items)
    p = as_patterns(as_judgments(df, unit="task", worker="worker", label="label"))
    del df
    res = _by_engine(p, 1, 4, repeat=1)
    eng = next(iter(res))
    floor = _bytes_per_iter(p) / (bandwidth_gbs() * 1e9)
    print(f"model B EM per iteration, {n_items * 5:,} labels: {_engines_note(res)}; floor {floor * 1e3:.0f} ms")
    return Result(f"model B EM per iteration, large ({eng})", f"{n_items * 5:,} labels (bandwidth floor {floor * 1e3:.0f} ms; "
                  f"{_engines_note(res)})", res[eng][0], None, res[eng][1], "n/a", "<= 120 ms")


N14 = np.array([1882, 443, 1863, 506, 1376, 1152, 1412, 1366])   # Table 14 of Rzhetsky et al. (2009)


def time_to_optimum():
    """Table 14, 10 random starts, both to tol = 1e-10: the EM loop itself (SQUAREM, the default path, vs plain EM;
    the time to a converged optimum), and the whole `fit` call, which also tabulates the runs and groups the optima."""
    from crowdnb.model_b import fit, _em_loop, _one_thread
    p = as_patterns(N14)
    rng = np.random.default_rng(14)
    starts = [random_model(3, 2, seed=rng) for _ in range(10)]
    G, L = np.stack([s.gamma for s in starts]), np.stack([s.lam for s in starts])
    loop = lambda acc: _em_loop(p, G, L, tol=1e-10, accelerate=acc)
    with _one_thread(p):
        (fast, t_fast), (plain, t_plain) = (min((_wall(lambda: loop(acc)) for _ in range(3)), key=lambda r: r[1])
                                            for acc in (True, False))
    sat = float(N14 @ np.log(N14 / N14.sum()))                   # saturated maximum: an independent optimum
    ll = lambda r: np.array([ModelBParams(g, l).log_likelihood(p) for g, l in zip(r[0], r[1])])
    ok = (np.abs(ll(fast) - sat) < 1e-6).all() and (np.abs(ll(plain) - sat) < 1e-6).all()
    f_fast, tf_fast = min((_wall(lambda: fit(N14, method="em", n_starts=10, seed=14, accelerate=True, progress=False))
                           for _ in range(3)), key=lambda r: r[1])
    _, tf_plain = _wall(lambda: fit(N14, method="em", n_starts=10, seed=14, accelerate=False, progress=False))
    _, peak = peak_memory(lambda: fit(N14, method="em", n_starts=10, seed=14, accelerate=True, progress=False))
    ok_fit = (np.abs(f_fast.runs.log_lik - sat) < 1e-6).all()
    return [Result("model B time to optimum, 10 starts, EM loop (SQUAREM vs plain EM)",
                   f"Table 14, 8 patterns; iterations {fast[2].sum():,} vs {plain[2].sum():,} in all", t_fast, t_plain, None,
                   f"{'yes' if ok else 'NO'}: every end point within 1e-6 of the saturated log L", ">= 10x"),
            Result("model B fit, 10 starts, whole call (SQUAREM vs plain EM)", "Table 14, 8 patterns", tf_fast, tf_plain,
                   peak, f"{'yes' if ok_fit else 'NO'}: every run within 1e-6 of the saturated log L", "<= 1 s")]


def small_overhead():
    "Per-iteration cost on 8 patterns: one start (Python overhead), and per start with 100 starts side by side."
    from crowdnb.model_b import _em_loop, _one_thread
    p = as_patterns(N14)
    rng = np.random.default_rng(0)
    starts = [random_model(3, 2, seed=rng) for _ in range(100)]
    G, L = np.stack([s.gamma for s in starts]), np.stack([s.lam for s in starts])
    n = 2000
    with _one_thread(p):
        _, one = min((_wall(lambda: _em_loop(p, G[:1], L[:1], tol=0, max_iter=n)) for _ in range(3)), key=lambda r: r[1])
        _, many = min((_wall(lambda: _em_loop(p, G, L, tol=0, max_iter=n)) for _ in range(3)), key=lambda r: r[1])
    _, peak = peak_memory(lambda: _em_loop(p, G, L, tol=0, max_iter=10))
    return Result("model B EM per iteration, 8 patterns: 100 starts side by side (per start) vs one start",
                  f"Table 14; one start {one / n * 1e6:.1f} us/iteration", many / n / 100, one / n, peak, "n/a",
                  "few us per start")


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


CASES = [em_vs_crowdkit, estimator_vs_crowdkit, em_10m, time_to_optimum, small_overhead]
