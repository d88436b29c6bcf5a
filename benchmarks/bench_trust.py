"""Trust coefficients (Algorithm 1 of seed 004): crowdnb's all-subsets algebra vs looping the `krippendorff`
package over the 2^k - k - 1 subsets followed by the pseudocode as written. The raters x items arrays enter
crowdnb through `Judgments.from_matrix(x.T)` (the one door for wide data), outside the timed call."""
from itertools import combinations
import warnings

import numpy as np

from benchmarks.common import Result, timeit, peak_memory, max_abs_diff, engine_env
from crowdnb.core import Judgments, engine
from crowdnb.trust import trust_coefficients

TIE_TOL = 1e-10   # trust_coefficients' default; the reference loop uses the same tie tolerance


def likert(k, n_items, seed=0, miss=0.1):
    "k raters x n_items ratings on the 0-7 scale of seed 004; the last rater answers at random."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 8, n_items)
    x = np.clip(truth + rng.choice([-1, 0, 0, 0, 1], (k, n_items)), 0, 7).astype(float)
    x[-1] = rng.integers(0, 8, n_items)
    x[rng.random(x.shape) < miss] = np.nan
    return x


def reference(x, level):
    "Algorithm 1 with the krippendorff package: alpha per subset, sort, rank counter, accumulate, normalise."
    import krippendorff
    k = len(x)
    alphas = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for n in range(2, k + 1):
            for c in combinations(range(k), n):
                try: alphas[c] = float(krippendorff.alpha(reliability_data=x[list(c)], level_of_measurement=level))
                except ValueError: alphas[c] = float("nan")
    alphas = dict(sorted(((c, a) for c, a in alphas.items() if np.isfinite(a)), key=lambda kv: kv[1]))
    coefs, coef, score = {}, 1, 0
    for comb_, alpha in alphas.items():
        if score + TIE_TOL < alpha:
            coef += 1
            score = alpha
        for r in comb_:
            coefs[r] = coefs.get(r, 0) + coef * alpha
    top = max(coefs.values())
    return np.array([coefs[r] / top for r in range(k)])


def _case(level, k=12, n_items=127):
    x = likert(k, n_items)
    j = Judgments.from_matrix(x.T)
    ours, secs = timeit(lambda: trust_coefficients(j, level=level, progress=False).coefficient.to_numpy(), repeat=5)
    _, peak = peak_memory(trust_coefficients, j, level=level, progress=False)
    ref, ref_s = timeit(reference, x, level)
    d = max_abs_diff(ours, ref)
    print(f"trust ({level}): crowdnb {secs:.4f} s, krippendorff loop {ref_s:.3f} s, ratio {ref_s / secs:.1f}x, "
          f"max |diff| {d:.1e}")
    return Result(f"trust coefficients ({level})", f"{k} raters x {n_items} items, {2**k - k - 1:,} subsets",
                  secs, ref_s, peak, f"{'yes' if d <= 1e-12 else 'NO'} (max |diff| {d:.0e})", ">= 10x, 1e-12")


def trust_interval(): return _case("interval")
def trust_ordinal(): return _case("ordinal")
def trust_nominal(): return _case("nominal")


def _with_engine(eng, fn, *args, **kwargs):
    "fn(*args, **kwargs) with CROWDNB_ENGINE=eng (None: as set outside), the variable restored afterwards."
    if eng is None: return fn(*args, **kwargs)
    with engine_env(eng): return fn(*args, **kwargs)


def _many_raters(level, quick=False):
    """The default limit max_raters=20 (1,048,555 subsets), 127 items: time and peak memory of the engine in use
    (numba with crowdnb[fast]), and in the same run the numpy engine's time for comparison."""
    k = 16 if quick else 20
    j = Judgments.from_matrix(likert(k, 127).T)
    run = lambda: trust_coefficients(j, level=level, progress=False)
    eng = engine()
    r, secs = timeit(run, repeat=2)                      # the first call also loads (or compiles) the kernels
    _, peak = peak_memory(run)
    msg = f"trust {k} raters ({level}): engine {eng} {secs:.2f} s, peak {peak:.0f} MiB"
    other = ""
    if eng == "numba":
        r_np, np_s = _with_engine("numpy", timeit, run, repeat=1 if level == "ordinal" else 2)
        _, np_peak = _with_engine("numpy", peak_memory, run)
        d = max_abs_diff(r.coefficient, r_np.coefficient)
        msg += f"; numpy {np_s:.2f} s ({np_s / secs:.1f}x), peak {np_peak:.0f} MiB, max |diff| {d:.0e}"
        other = f"; numpy engine {np_s:.2f} s, max |diff| {d:.0e}"
    print(msg)
    ok = r.outlier.to_numpy().nonzero()[0].tolist() == [k - 1]
    return Result(f"trust coefficients ({level}, many raters, {eng})", f"{k} raters x 127 items, {2**k - k - 1:,} subsets",
                  secs, None, peak, ("planted outlier flagged" if ok else "PLANTED OUTLIER MISSED") + other,
                  "<= 3 s, bounded memory" if level == "interval" else "bounded memory")


def trust_many_raters(quick: bool = False): return _many_raters("interval", quick)
def trust_many_raters_nominal(quick: bool = False): return _many_raters("nominal", quick)
def trust_many_raters_ordinal(quick: bool = False): return _many_raters("ordinal", quick)


CASES = [trust_interval, trust_ordinal, trust_nominal, trust_many_raters, trust_many_raters_nominal,
         trust_many_raters_ordinal]
