"""Trust coefficients under both engines: the numba kernels (`crowdnb[fast]`) and the numpy path give the same
subset alphas and trust coefficients to 1e-12, on Likert data with missing ratings, units rated once and a
constant rater, at every level of measurement; a spy checks that the kernel path really ran."""
import numpy as np
import pytest

pytest.importorskip("numba")

import crowdnb.trust as trust
from crowdnb.core import Judgments, LEVELS, engine


def likert(k, n_items=30, seed=0):
    "k raters x n_items ratings on a 1-7 scale with 25% missing, two units rated once, rater 1 constant."
    rng = np.random.default_rng(seed + k)
    truth = rng.integers(1, 8, n_items)
    x = np.clip(truth + rng.choice([-2, -1, 0, 0, 1], (k, n_items)), 1, 7).astype(float)
    x[rng.random(x.shape) < 0.25] = np.nan
    x[1] = 4.0                                        # a constant rater
    x[:, :2] = np.nan; x[0, 0] = 2; x[k - 1, 1] = 6   # units rated once
    return x


def spy(monkeypatch, name):
    "Count the calls of trust.<name> (the engine-specific path) while still running it."
    calls, fn = [], getattr(trust, name)
    monkeypatch.setattr(trust, name, lambda *a, **kw: calls.append(1) or fn(*a, **kw))
    return calls


def both_engines(monkeypatch, f):
    "f() under CROWDNB_ENGINE=numba and =numpy, and how often the numba kernels' drivers ran in each."
    out = {}
    for eng in ("numba", "numpy"):
        monkeypatch.setenv("CROWDNB_ENGINE", eng)
        assert engine() == eng
        with monkeypatch.context() as m:
            calls = [spy(m, n) for n in ("_split_numba",)]
            out[eng] = f(), sum(map(len, calls))
    return out


def assert_same(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(np.nan_to_num(a), np.nan_to_num(b), rtol=0, atol=1e-12)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("k", [3, 5, 8, 12])
def test_subset_alphas_engines_agree(monkeypatch, level, k):
    j = Judgments.from_matrix(likert(k).T)
    r = both_engines(monkeypatch, lambda: trust.subset_alphas(j, level=level, chunk_mb=0.05).alpha.to_numpy())
    assert_same(r["numba"][0], r["numpy"][0])
    assert r["numpy"][1] == 0
    assert r["numba"][1] == 1                       # the kernel ran
    assert np.isfinite(r["numba"][0]).sum() > 0


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("k", [4, 9, 12])
def test_trust_coefficients_engines_agree(monkeypatch, level, k):
    j = Judgments.from_matrix(likert(k, seed=1).T)
    r = both_engines(monkeypatch, lambda: trust.trust_coefficients(j, level=level))
    (a, na), (b, nb) = r["numba"], r["numpy"]
    top = b.total.abs().max()                       # totals are sums of ~2^k terms: compare them relative to the largest
    assert_same(a.coefficient, b.coefficient); assert_same(a.total / top, b.total / top)
    assert a.outlier.tolist() == b.outlier.tolist() and a.subsets.tolist() == b.subsets.tolist()
    assert a.attrs == b.attrs and nb == 0 and na == 1


def test_chunking_and_progress_do_not_change_numba(monkeypatch):
    monkeypatch.setenv("CROWDNB_ENGINE", "numba")
    x = likert(11, seed=2)
    values, X = trust._one_hot(x, "interval")
    D = trust.squared_distances(values, None, "interval")
    ref = trust._split_alphas(X, D)
    for cm, show in ((0.001, False), (1.0, True), (64.0, False)):
        assert_same(trust._split_numba(X, D, cm, show), ref)


def test_counter_loop_engines_agree(monkeypatch):
    "The rank counter's sequential fallback (a chain of near-ties) is compiled under numba: same counts."
    tol, rng = 1e-10, np.random.default_rng(3)
    s = np.sort(np.concatenate([rng.integers(-3, 9, 400) / 8, 0.25 + np.arange(5) * 0.6 * tol]))
    r = {}
    for eng in ("numba", "numpy"):
        monkeypatch.setenv("CROWDNB_ENGINE", eng)
        r[eng] = trust.algorithm1_coefs(s, tol)
    np.testing.assert_array_equal(r["numba"], r["numpy"])
    np.testing.assert_array_equal(trust._counter_loop(s, tol), trust._counter_loop.py(s, tol))
