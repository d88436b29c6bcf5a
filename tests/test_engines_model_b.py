"""Model B: the fused numba sweep (`_sweep`) and the numpy E/M steps give the same log L trace, parameters and posteriors."""
import numpy as np
import pytest

pytest.importorskip("numba")

from crowdnb import model_b
from crowdnb.model_b import ModelBParams, as_patterns, em, fit, random_model


@pytest.fixture
def sweeps(monkeypatch):
    "Force the kernel on small data and count its calls."
    calls = []
    real = model_b._sweep
    monkeypatch.setattr(model_b, "_FUSED_MIN", 0)
    monkeypatch.setattr(model_b, "_sweep", lambda *a: (calls.append(1), real(*a))[1])
    return calls


def _data(seed, n_items, n_annot, n_values, p_obs, repeat=1):
    rng = np.random.default_rng(seed)
    x, _ = random_model(n_annot, n_values, seed=rng).sample(n_items, mask=rng.random((n_items, n_annot)) < p_obs, seed=rng)
    x[(x < 0).all(1), 0] = 1                                      # every item annotated once at least
    return np.tile(x, (repeat, 1))                                # repeat > 1: repeated patterns


def _both(monkeypatch, fn):
    out = {}
    for eng in ("numpy", "numba"):
        monkeypatch.setenv("CROWDNB_ENGINE", eng)
        out[eng] = fn()
    return out["numpy"], out["numba"]


def _close(a, b, tol=1e-10):
    if isinstance(a, tuple):
        for x, y in zip(a, b, strict=True): _close(x, y, tol)
    else: np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("seed, n_items, n_annot, n_values, p_obs, repeat",
                         [(0, 50, 3, 2, 1.0, 4), (1, 200, 6, 3, 0.6, 1), (2, 400, 8, 5, 0.4, 2), (3, 120, 4, 9, 0.8, 1)])
@pytest.mark.parametrize("accelerate", [False, True])
def test_em_same_trace_parameters_posteriors(monkeypatch, sweeps, seed, n_items, n_annot, n_values, p_obs, repeat,
                                             accelerate):
    x = _data(seed, n_items, n_annot, n_values, p_obs, repeat)
    kw = dict(init=random_model(n_annot, n_values, seed=seed + 100), max_iter=40, tol=0, accelerate=accelerate)
    ref, new = _both(monkeypatch, lambda: em(x, **kw))
    assert sweeps, "the kernel did not run"
    assert len(ref.history) == len(new.history) and ref.n_iter == new.n_iter
    _close(new.history, ref.history)
    _close(new.model.gamma, ref.model.gamma); _close(new.model.lam, ref.model.lam)
    _close(new.posterior, ref.posterior)
    assert np.all(np.diff(new.history[:-1]) >= -1e-9 * abs(new.history[0]))          # still monotone


def test_priors_and_missing(monkeypatch, sweeps):
    x = _data(5, 300, 5, 3, 0.5)
    kw = dict(init="vote", max_iter=30, tol=0, prior_gamma=1.0, prior_lam=np.broadcast_to(np.eye(3), (5, 3, 3)))
    ref, new = _both(monkeypatch, lambda: em(x, **kw))
    assert sweeps
    _close(new.history, ref.history); _close(new.model.lam, ref.model.lam); _close(new.posterior, ref.posterior)


def test_impossible_pattern(monkeypatch, sweeps):
    "λ = 0 where a pattern needs it: log L is -inf on both engines, and the other patterns' posteriors agree."
    x = _data(6, 100, 4, 3, 0.9)
    p = as_patterns(x)
    m = random_model(4, 3, seed=7)
    lam = m.lam.copy(); lam[0, :, p.codes[0, 0]] = 0; lam[0] /= lam[0].sum(1, keepdims=True)
    bad = ModelBParams(m.gamma, lam, p.values)
    G, L = bad.gamma[None], bad.lam[None]
    W, ll = model_b.e_step(p, G, L)
    monkeypatch.setenv("CROWDNB_ENGINE", "numba")
    g, n, ll_f, post = model_b._fused(p, G, L, post=True)
    assert sweeps and np.isneginf(ll[0]) and np.isneginf(ll_f[0])
    _close(post, model_b.e_step(p, G, L, weighted=False)[0])
    _close(model_b.m_step(g, n), model_b.m_step(*model_b.expected_counts(p, W)))


def test_underflow_falls_back_to_log_space(monkeypatch, sweeps):
    "Tiny λ (products below 1e-280) take the log-space path and still agree."
    x = _data(8, 80, 40, 2, 1.0)
    p = as_patterns(x)
    lam = np.full((40, 2, 2), 1e-9); lam[:, 0, 0] = lam[:, 1, 1] = 1 - 1e-9
    G, L = np.array([[0.5, 0.5]]), lam[None]
    W, ll = model_b.e_step(p, G, L)
    monkeypatch.setenv("CROWDNB_ENGINE", "numba")
    g, n, ll_f, post = model_b._fused(p, G, L, post=True)
    _close(ll_f, ll); _close(model_b.m_step(g, n), model_b.m_step(*model_b.expected_counts(p, W)))
    _close(post, model_b.e_step(p, G, L, weighted=False)[0])


def test_repeated_labels_counted(monkeypatch, sweeps):
    "A label given twice (duplicates='count') is a one-hot entry of 2: the kernel sees the column twice."
    import pandas as pd
    rng = np.random.default_rng(9)
    df = pd.DataFrame({"unit": rng.integers(0, 60, 400), "worker": rng.integers(0, 5, 400), "label": rng.integers(0, 3, 400)})
    df = df.drop_duplicates(["unit", "worker"])
    df = pd.concat([df, df.iloc[:30]])                                  # 30 labels given twice
    p = as_patterns(df, unit="unit", worker="worker", label="label", duplicates="count")
    assert p.onehot.data.max() == 2
    ref, new = _both(monkeypatch, lambda: em(p, max_iter=25, tol=0))
    assert sweeps
    _close(new.history, ref.history); _close(new.model.lam, ref.model.lam); _close(new.posterior, ref.posterior)


def test_many_starts_side_by_side(monkeypatch, sweeps):
    x = _data(10, 300, 6, 3, 0.7)
    ref, new = _both(monkeypatch, lambda: fit(x, method="em", n_starts=6, seed=3, max_iter=200, progress=False,
                                              accelerate=True))
    assert sweeps
    _close(new.runs.log_lik.to_numpy(), ref.runs.log_lik.to_numpy())
    assert (new.runs.n_iter.to_numpy() == ref.runs.n_iter.to_numpy()).all()
    _close(new.models[0].lam, ref.models[0].lam)


def test_smoothing_stays_on_numpy(monkeypatch, sweeps):
    x = _data(11, 100, 4, 2, 0.8)
    ref, new = _both(monkeypatch, lambda: em(x, eps=0.1, max_iter=20, tol=0))
    _close(new.history[:-1], ref.history[:-1])
    assert len(sweeps) == 1                          # smoothed steps stay on numpy: only the end point's posterior


# --- the compiled loops for small pattern sets (_em1) -----------------------------------------------------------

def _small(seed, J=4, M=3, n=3000):
    m = random_model(J, M, seed=seed)
    m = ModelBParams(m.gamma, 0.7 * np.eye(M) + 0.3 * m.lam)
    return as_patterns(m.sample(n, seed=seed)[0])


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("accelerate", [False, True])
def test_compiled_loop_matches_numpy(monkeypatch, seed, accelerate):
    """The compiled loop takes the numpy loop's iterations (plain EM: to the same end points; SQUAREM: its accept/reject
    ties between log Ls equal to rounding may go either way near the end, so the same optimum)."""
    p = _small(seed)
    rng = np.random.default_rng(seed)
    st = [random_model(4, 3, seed=rng) for _ in range(3)]
    G, L = np.stack([s.gamma for s in st]), np.stack([s.lam for s in st])
    calls = []
    orig = model_b._em_loop_compiled
    monkeypatch.setattr(model_b, "_em_loop_compiled", lambda *a: calls.append(1) or orig(*a))
    monkeypatch.setenv("CROWDNB_ENGINE", "numba")
    c = model_b._em_loop(p, G, L, tol=1e-10, accelerate=accelerate, history=True)
    monkeypatch.setenv("CROWDNB_ENGINE", "numpy")
    n = model_b._em_loop(p, G, L, tol=1e-10, accelerate=accelerate, history=True)
    assert calls == [1]
    np.testing.assert_allclose(c[4][:10], n[4][:10], atol=1e-9)
    if not accelerate: np.testing.assert_array_equal(c[2], n[2])
    atol = 1e-7 if accelerate else 1e-12
    np.testing.assert_allclose(c[0], n[0], atol=atol); np.testing.assert_allclose(c[1], n[1], atol=atol)


def test_compiled_loop_with_priors_and_monotone(monkeypatch):
    "With pseudo-counts: the same MAP optimum, and the objective never decreases (SQUAREM included)."
    p = _small(3)
    res = {}
    for eng in ("numba", "numpy"):
        monkeypatch.setenv("CROWDNB_ENGINE", eng)
        res[eng] = em(p, init=random_model(4, 3, seed=9), accelerate=True, prior_gamma=0.5, prior_lam=0.25)
        assert np.all(np.diff(res[eng].history) >= -1e-9)
    a, b = res["numba"], res["numpy"]
    assert abs(a.log_lik - b.log_lik) < 1e-8
    np.testing.assert_allclose(a.model.lam, b.model.lam, atol=1e-6)


def test_fit_many_starts_compiled(monkeypatch):
    "fit on Table 14's 8 patterns: every start reaches the saturated log L under both engines."
    n14 = np.array([1882, 443, 1863, 506, 1376, 1152, 1412, 1366], float)
    sat = float(n14 @ np.log(n14 / n14.sum()))
    for eng in ("numba", "numpy"):
        monkeypatch.setenv("CROWDNB_ENGINE", eng)
        f = fit(list(n14), method="em", n_starts=5, seed=1, accelerate=True, progress=False)
        assert (np.abs(f.runs.log_lik - sat) < 1e-6).all()
