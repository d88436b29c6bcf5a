"""Model A (Rzhetsky, Shatkay & Wilbur 2009): MAP estimation on loop-design data (crowdnb alone: no reference package implements model A)."""
import numpy as np
from benchmarks.common import Result, timeit, peak_memory
from crowdnb.core import Judgments
from crowdnb.model_a import ModelA, sample

THETA = np.array([0.55, 0.9, 0.7, 0.8, 0.6, 0.95, 0.75, 0.65])

def map_loop_design(quick: bool = False):
    n = 10_000 if quick else 100_000
    X, _ = sample(THETA, [0.1, 0.2, 0.3, 0.4], n, seed=0)
    J = Judgments.from_matrix(X, missing=-1)                     # the front door, once (not timed)
    run = lambda: ModelA(n_starts=10, seed=0, progress=False).fit(J)
    m, secs = timeit(run, repeat=3)
    _, peak = peak_memory(run)
    err = float(np.max(np.abs(m.theta_.to_numpy() - THETA)))
    return Result("model A MAP, 10 starts (count patterns + TNC)", f"{n:,} loop-design items, 8 annotators, M=4",
                  secs, None, peak, f"max |θ̂ - θ| = {err:.3f}; {len(m.optima_)} optimum/a", "< 1 s")

def annealing_loop_design(quick: bool = False):
    n = 10_000 if quick else 100_000
    X, _ = sample(THETA, [0.1, 0.2, 0.3, 0.4], n, seed=0)
    J = Judgments.from_matrix(X, missing=-1)
    m, secs = timeit(lambda: ModelA(optimizer="annealing", n_starts=2, max_iter=100, seed=0, progress=False).fit(J))
    err = float(np.max(np.abs(m.theta_.to_numpy() - THETA)))
    return Result("model A MAP, 2 dual_annealing runs", f"{n:,} loop-design items", secs, None, None,
                  f"max |θ̂ - θ| = {err:.3f}", "")

def loglik_counted_vs_per_item(quick: bool = False):
    "One log-likelihood evaluation: crowdnb (patterns counted once) vs a per-item vectorised evaluation of Table 7."
    from crowdnb.model_a import pattern_probability, prepare, _loglik
    n = 10_000 if quick else 100_000
    om = np.array([0.1, 0.2, 0.3, 0.4])
    X, _ = sample(THETA, om, n, seed=0)
    prep = prepare(X, omega=om)
    t = prep.t
    g, v = t.group[t.item_pattern], t.v[t.item_pattern]          # per item: triplet and value codes
    def per_item():
        P = pattern_probability(THETA[t.groups], om)              # G x M x M x M
        return float(np.log(P[g, v[:, 0], v[:, 1], v[:, 2]]).sum())
    ref, ref_s = timeit(per_item, repeat=20)
    ours, secs = timeit(lambda: _loglik(prep, THETA), repeat=20)
    return Result("model A log L, one evaluation (counted vs per item)", f"{n:,} loop-design items", secs, ref_s, None,
                  f"yes (|diff| {abs(ours - ref):.1e})" if abs(ours - ref) < 1e-6 * abs(ref) else "NO", "")

CASES = [map_loop_design, annealing_loop_design, loglik_counted_vs_per_item]
