"""CrowdTruth 2.0 under both engines: the numba kernels (crowdnb[fast]) give the numpy engine's scores to 1e-12.
The numpy engine is itself checked against the crowdtruth package and hand derivations in test_crowdtruth.py, so
this is an identity test between two implementations of the same sums."""
import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

from crowdnb.core import simulate_crowd, as_judgments
from crowdnb import crowdtruth as ct

PARTS = {"workers": ["wqs", "wwa", "wsa"], "units": ["uqs"], "annotations": ["aqs"]}


def _both(monkeypatch, data, **kw):
    out = {}
    for eng in ("numpy", "numba"):
        monkeypatch.setenv("CROWDNB_ENGINE", eng)
        out[eng] = ct.run(data, progress=False, **kw)
    return out["numpy"], out["numba"]


def _same(a, b, eps=1e-12):
    assert len(a.history) == len(b.history)
    for part, cols in PARTS.items():
        x, y = getattr(a, part), getattr(b, part)
        assert x.index.equals(y.index)
        for c in cols:
            np.testing.assert_allclose(y[c].to_numpy(float), x[c].to_numpy(float), rtol=0, atol=eps, err_msg=f"{part}.{c}")
    np.testing.assert_allclose(b.history.to_numpy(float), a.history.to_numpy(float), rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("reference", [False, True])
def test_single_label(monkeypatch, seed, reference):
    sim = simulate_crowd(n_units=80, n_workers=25, n_labels=5, workers_per_unit=6, seed=seed)
    _same(*_both(monkeypatch, sim.judgments, labels=sim.labels, reference=reference))


@pytest.mark.parametrize("reference", [False, True])
def test_multi_label(monkeypatch, reference):
    sim = simulate_crowd(n_units=60, n_workers=15, n_labels=4, workers_per_unit=5, seed=11, multi_label=True)
    _same(*_both(monkeypatch, sim.judgments, sep="|", labels=sim.labels, reference=reference))


def test_open_ended(monkeypatch):
    sim = simulate_crowd(n_units=50, n_workers=12, n_labels=6, workers_per_unit=4, seed=5)
    _same(*_both(monkeypatch, sim.judgments))


def test_counts_above_one(monkeypatch):
    "Repeated answers read as counts (WorkVec entries of 2): the kernels keep the counts per pair."
    sim = simulate_crowd(n_units=40, n_workers=10, n_labels=3, workers_per_unit=4, seed=7)
    df = pd.concat([sim.judgments, sim.judgments.iloc[::3]], ignore_index=True)
    J = as_judgments(df, labels=sim.labels, duplicates="count")
    assert (J.work_vectors().data > 1).any()
    _same(*_both(monkeypatch, J))


def test_units_with_zero_sqs(monkeypatch):
    "Units where every pair of workers disagrees have SQS = 0: some triples of RQS lose their denominator."
    rows = [(f"u{s}", f"w{k}", "abc"[(s + k) % 3] if s < 30 else "abc"[k]) for s in range(33) for k in range(3)]
    df = pd.DataFrame(rows, columns=["unit", "worker", "label"])
    a, b = _both(monkeypatch, df, labels=list("abc"))
    assert (a.units.uqs == 0).any()
    _same(a, b)


@pytest.mark.parametrize("multi", [False, True])
def test_kernels_agree_on_random_scores(monkeypatch, multi):
    """The RQS sums and the per-unit sums for arbitrary scores, with and without units at SQS = 0; one entry per
    judgment (the `_unit_sums1` kernel) and several (`_unit_sums`)."""
    sim = simulate_crowd(n_units=70, n_workers=20, n_labels=4, workers_per_unit=5, seed=3, multi_label=multi)
    ix = ct.CrowdIndex(as_judgments(sim.judgments, labels=sim.labels, **(dict(sep="|") if multi else {})))
    assert (ix.V.nnz > len(ix.unit)) == multi
    rng = np.random.default_rng(1)
    for zero in (0.0, 0.3):
        s, w = rng.random(ix.n_units) * (rng.random(ix.n_units) >= zero), rng.random(ix.n_workers)
        monkeypatch.setenv("CROWDNB_ENGINE", "numba")
        nb = np.array(ct.triple_sums(ix, s))
        monkeypatch.setenv("CROWDNB_ENGINE", "numpy")
        np.testing.assert_allclose(nb, np.array(ct.triple_sums(ix, s)), rtol=1e-12, atol=1e-300)
    a = rng.random(ix.n_labels)
    for weighted, clamp in ((False, 0.0), (True, ct.TINY)):
        monkeypatch.setenv("CROWDNB_ENGINE", "numba")
        nb = ct.step_sums(ix, w, a, weighted, clamp)
        monkeypatch.setenv("CROWDNB_ENGINE", "numpy")
        npy = ct.step_sums(ix, w, a, weighted, clamp)
        for x, y in zip(nb, npy): np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-15)
        u = rng.random(ix.n_units)
        monkeypatch.setenv("CROWDNB_ENGINE", "numba")
        nb = ct.worker_sums(ix, w, a, u, weighted, clamp)
        monkeypatch.setenv("CROWDNB_ENGINE", "numpy")
        npy = ct.worker_sums(ix, w, a, u, weighted, clamp)
        for x, y in zip(nb, npy): np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-15)
