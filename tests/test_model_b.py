"""Model B (Dawid-Skene, seed 001 sections 9-13): properties, recovery, symmetries and parity with crowd-kit."""
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from crowdnb import model_b
from crowdnb.core import Judgments, as_judgments, simulate_crowd
from crowdnb.model_b import (ModelB, ModelBParams, as_patterns, best_permutation, count_parameters, em, f_perm, fit,
                             random_model)

N14 = [1882, 443, 1863, 506, 1376, 1152, 1412, 1366]   # seed, Table 14 data


def _random_data(seed, n_items, n_annot, n_values, p_obs):
    rng = np.random.default_rng(seed)
    model = random_model(n_annot, n_values, seed=rng)
    mask = rng.random((n_items, n_annot)) < p_obs
    mask[np.arange(n_items), rng.integers(0, n_annot, n_items)] = True        # every item annotated once at least
    x, _ = model.sample(n_items, mask=mask, seed=rng)
    return x, model


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n_items=st.integers(5, 60), n_annot=st.integers(1, 6),
       n_values=st.integers(2, 4), p_obs=st.floats(0.2, 1.0), accelerate=st.booleans())
def test_em_never_decreases_log_likelihood(seed, n_items, n_annot, n_values, p_obs, accelerate):
    "For eps = 0, EM (plain or SQUAREM-guarded) is monotone in log L from any start, with missing annotations."
    x, _ = _random_data(seed, n_items, n_annot, n_values, p_obs)
    if len(np.unique(x[x >= 0])) < 2: return
    start = random_model(n_annot, len(np.unique(x[x >= 0])), seed=seed + 1)
    r = em(x, init=start, max_iter=60, tol=0, accelerate=accelerate)
    h = r.history
    assert np.all(np.diff(h) >= -1e-9 * (1 + np.abs(h[:-1])))
    # the reported log L is the model's log-likelihood of the data (an independent evaluation)
    assert np.isclose(r.log_lik, r.model.log_likelihood(x), rtol=1e-12, atol=1e-9)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 5), j=st.integers(1, 4))
def test_permutation_keeps_likelihood_and_permutes_posterior(seed, n, j):
    "Eq. 53/54: a relabelling gives the same likelihood and the permuted posterior."
    rng = np.random.default_rng(seed)
    model = random_model(j, n, seed=rng)
    x, _ = model.sample(50, seed=rng)
    pi = rng.permutation(n)
    other = model.permute(pi)
    assert np.isclose(other.log_likelihood(x), model.log_likelihood(x), rtol=1e-12)
    assert np.allclose(other.posterior(x), model.posterior(x)[:, pi], atol=1e-12)
    # the theta sum of eq. 55 is maximised by best_permutation(weighted=True) among all n! relabellings
    best = max(model.permute(q).theta().sum() for q in itertools.permutations(range(n)))
    assert np.isclose(model.permute(best_permutation(model, weighted=True)).theta().sum(), best)


@pytest.mark.parametrize("n", range(1, 8))
def test_best_permutation_matches_brute_force(n):
    "The assignment-problem π* attains max F(π) over all n! permutations (eq. 56), n <= 7."
    rng = np.random.default_rng(n)
    for _ in range(5):
        lam = rng.dirichlet(np.ones(n), size=(3, n))
        brute = max(itertools.permutations(range(n)), key=lambda q: f_perm(lam, q))
        pi = best_permutation(lam)
        assert np.isclose(f_perm(lam, pi), f_perm(lam, brute), rtol=0, atol=1e-12)
        assert sorted(pi) == list(range(n))


def test_counts_of_section_10():
    "Seed section 10: 7/7, 26/18, 63/36 (the latter two count the λ's only) and 342 of section 3."
    assert count_parameters(2)[:2] == (7, 7)
    assert (count_parameters(3).observations, count_parameters(3).lam) == (26, 18)
    assert (count_parameters(4).observations, count_parameters(4).lam) == (63, 36)
    assert count_parameters(7, 8).parameters == 342


def test_table_14_maximum_is_saturated_and_matches_the_paper():
    "M = 2, 3 annotators: 7 parameters for 7 classes, so the ML fit reproduces the frequencies (paper: -19866.653175)."
    n = np.array(N14, float)
    r = em(N14, init=random_model(3, 2, seed=0), accelerate=True)
    assert np.isclose(r.log_lik, n @ np.log(n / n.sum()), rtol=0, atol=1e-6)
    assert abs(r.log_lik - (-19866.653175)) < 1e-6
    fitted = ModelBParams(r.model.gamma, r.model.lam).pattern_probabilities().to_numpy()
    assert np.allclose(fitted, n / n.sum(), atol=1e-7)
    best = r.model.permute(best_permutation(r.model)).params().to_numpy()
    assert np.allclose(best, [0.605934, 0.376684, 0.232731, 0.494840, 0.454763, 0.060050, 0.212534], atol=2e-6)


def test_recovers_planted_parameters():
    "EM from the vote start recovers planted γ and Λ (5 annotators, 3 values, 6,000 items, 30% missing)."
    rng = np.random.default_rng(11)
    truth = ModelBParams([0.5, 0.3, 0.2], 0.55 * np.eye(3) + 0.45 * rng.dirichlet(np.ones(3), size=(5, 3)))
    x, c = truth.sample(6000, mask=rng.random((6000, 5)) < 0.7, seed=rng)
    r = em(x, accelerate=True)
    m = r.model.permute(best_permutation(r.model))
    assert np.abs(m.gamma - truth.gamma).max() < 0.03
    assert np.abs(m.lam - truth.lam).max() < 0.06
    # the MAP labels agree with the planted truth on most items (vs. 3-4 noisy annotators each)
    post = m.posterior(x)
    assert np.mean(m.values[post.argmax(1)] == c) > 0.8


def test_same_fixed_point_as_crowdkit_dawid_skene():
    "Same start (majority-vote shares) and iteration count as crowd-kit's DawidSkene: same γ, Λ and posteriors."
    DawidSkene = pytest.importorskip("crowdkit.aggregation").DawidSkene
    rng = np.random.default_rng(3)
    truth = ModelBParams([0.4, 0.35, 0.25], 0.6 * np.eye(3) + 0.4 * rng.dirichlet(np.ones(3), size=(12, 3)))
    x, _ = truth.sample(500, mask=rng.random((500, 12)) < 0.4, seed=rng)
    r, c = np.nonzero(x >= 0)
    df = pd.DataFrame({"task": r, "worker": c, "label": x[r, c]})
    n_iter = 40
    # crowd-kit: probas <- MV shares; params <- M(probas); n_iter times (E, M); tol=-inf forces every iteration
    ds = DawidSkene(n_iter=n_iter, tol=-np.inf).fit(df)
    ours = em(x, init="vote", max_iter=n_iter, tol=0)
    assert ours.n_iter == n_iter
    prior = ds.priors_.sort_index().to_numpy()
    assert np.allclose(prior, ours.model.gamma, atol=1e-9)
    lam_ck = np.zeros_like(ours.model.lam)      # errors_.loc[(worker, observed), true] = λ_{observed|true}
    for (w, obs), row in ds.errors_.iterrows():
        lam_ck[w, :, list(ours.model.values).index(obs)] = row.reindex(ours.model.values).to_numpy()
    assert np.allclose(lam_ck, ours.model.lam, atol=1e-8)
    # crowd-kit's probas_ come from its last E step, i.e. our posterior after n_iter - 1 iterations
    prev = em(x, init="vote", max_iter=n_iter - 1, tol=0)
    probas = ds.probas_.sort_index()[list(ours.model.values)].to_numpy()
    assert np.allclose(probas, prev.posterior[np.unique(r)], atol=1e-8)
    # run long: crowd-kit (its own ELBO stop criterion is unreliable here: the clipped ELBO can dip, so we force
    # the iterations) lands on the fixed point our accelerated EM converges to
    ds_long = DawidSkene(n_iter=300, tol=-np.inf).fit(df)
    conv = em(x, init="vote", tol=1e-12, accelerate=True)
    assert conv.converged
    assert np.allclose(ds_long.priors_.sort_index().to_numpy(), conv.model.gamma, atol=1e-6)


def test_inputs_agree_and_are_not_mutated():
    "Matrix, DataFrame, Judgments and pattern counts give the same likelihood; the caller's data are untouched."
    x, _ = _random_data(5, 40, 3, 3, 0.7)
    x[x == 3] = 2   # keep values 1..2 only, for a 2-value model
    model = random_model(3, 2, seed=1)
    before = x.copy()
    ll = model.log_likelihood(x)
    r, c = np.nonzero(x >= 0)
    long = pd.DataFrame({"unit": r, "worker": c, "label": x[r, c]})
    assert np.isclose(model.log_likelihood(long), ll)                    # a DataFrame is a long table
    j = Judgments.from_matrix(x, missing=-1)
    assert np.isclose(model.log_likelihood(j), ll)
    assert np.array_equal(x, before)
    full = model.sample(300, seed=2)[0]
    pats = pd.Series(["".join(map(str, r)) for r in full]).value_counts()
    assert np.isclose(model.log_likelihood(pats.to_dict()), model.log_likelihood(full))


def test_bad_input_messages():
    with pytest.raises(ValueError, match="row 1, column 0"):
        as_patterns(np.array([[1, 2], [9, 1]]), labels=[1, 2])
    with pytest.raises(TypeError, match="must hold integers"):
        as_patterns(np.array([["a", "b"]]))
    with pytest.raises(ValueError, match="gamma must sum to 1"):
        ModelBParams([0.2, 0.2], [[[0.5, 0.5], [0.5, 0.5]]])
    with pytest.raises(ValueError, match="method must be"):
        fit(N14, method="bogus")
    with pytest.raises(ValueError, match="init posterior must have shape"):
        em(np.array([[1, 2], [2, 1]]), init=np.ones((3, 2)) / 2)


def test_fit_reports_both_modes_and_smoothing_picks_pi_star():
    "Table 14: plain EM finds the two label-swapped modes of equal log L; the smoothed schedule ends in the π* one."
    f = fit(N14, method="em", n_starts=8, seed=1, progress=False, accelerate=True)
    top = f.optima[f.optima.log_lik > -19866.653176]
    assert len(top) == 2 and sorted(top.preferred) == [False, True]
    s = fit(N14, method="smoothed", n_starts=3, seed=1, progress=False, accelerate=True)
    assert s.optima.preferred[0] and abs(s.optima.log_lik[0] + 19866.653175) < 1e-6


def test_fit_records_iterations_and_convergence_of_every_start():
    "FitB.runs: one row per start with its log L, EM iterations and whether it met `tol` before `max_iter`."
    f = fit(N14, method="em", n_starts=3, seed=2, progress=False, accelerate=True)
    assert list(f.runs.columns) == ["log_lik", "n_iter", "converged"] and len(f.runs) == 3
    assert f.runs.converged.all() and (f.runs.n_iter > 0).all()
    assert np.isclose(f.runs.log_lik.max(), f.optima.log_lik[0])
    short = fit(N14, method="em", n_starts=2, seed=2, progress=False, max_iter=5)
    assert short.runs.n_iter.tolist() == [5, 5] and not short.runs.converged.any()


# ---------------------------------------------------------------- the estimator
def _ck_frame(seed=3, n_items=400, n_workers=10, repeats=False):
    "A crowd-kit style long table (task, worker, label) from a planted model; with `repeats`, some labels given twice."
    rng = np.random.default_rng(seed)
    truth = ModelBParams([0.4, 0.35, 0.25], 0.6 * np.eye(3) + 0.4 * rng.dirichlet(np.ones(3), size=(n_workers, 3)))
    x, c = truth.sample(n_items, mask=rng.random((n_items, n_workers)) < 0.4, seed=rng)
    r, w = np.nonzero(x >= 0)
    df = pd.DataFrame({"task": r, "worker": w, "label": x[r, w]})
    if repeats:   # a third of the judgments repeated once more: a fresh draw from the same worker's row of Λ
        k = rng.choice(len(df), len(df) // 3, replace=False)
        cdf = np.cumsum(truth.lam[w[k], np.searchsorted(truth.values, c[r[k]])], axis=1)
        again = truth.values[np.minimum((rng.random(len(k))[:, None] > cdf).sum(1), 2)]
        df = pd.concat([df, pd.DataFrame({"task": r[k], "worker": w[k], "label": again})], ignore_index=True)
    return df


@pytest.mark.parametrize("repeats", [False, True])
def test_estimator_matches_crowdkit_dawid_skene(repeats):
    "ModelB and crowd-kit's DawidSkene on the same long table, same start (vote shares), same iterations: 1e-8."
    DawidSkene = pytest.importorskip("crowdkit.aggregation").DawidSkene
    df = _ck_frame(repeats=repeats)
    n_iter = 30
    ds = DawidSkene(n_iter=n_iter, tol=-np.inf).fit(df)           # tol=-inf: every iteration runs
    kw = dict(unit="task", duplicates="count" if repeats else "error")
    ours = ModelB(max_iter=n_iter, tol=0, accelerate=False, relabel=False).fit(df, **kw)
    assert ours.n_iter_ == n_iter and not ours.converged_
    pd.testing.assert_series_equal(ours.gamma_, ds.priors_.reindex(ours.gamma_.index), check_names=False,
                                   check_exact=False, rtol=0, atol=1e-8)
    ck = ds.errors_.reindex(pd.MultiIndex.from_product([ours.theta_.index, ours.gamma_.index]), fill_value=0.0)
    # crowd-kit: errors_.loc[(worker, observed), true]; ours: confusion_.loc[(worker, true), observed]
    ck_lam = ck[list(ours.gamma_.index)].to_numpy().reshape(len(ours.theta_), 3, 3).transpose(0, 2, 1)
    np.testing.assert_allclose(ours.confusion_.to_numpy().reshape(-1, 3, 3), ck_lam, rtol=0, atol=1e-8)
    # crowd-kit's probas_ and labels_ come from its last E step, i.e. our posterior after n_iter - 1 iterations
    prev = ModelB(max_iter=n_iter - 1, tol=0, accelerate=False, relabel=False).fit(df, **kw)
    np.testing.assert_allclose(prev.posterior_.to_numpy(), ds.probas_.loc[prev.posterior_.index, list(ours.gamma_.index)],
                               rtol=0, atol=1e-8)
    assert (prev.labels_ == ds.labels_.loc[prev.labels_.index]).all()


def test_repeated_labels_are_counts():
    "A label given twice counts twice: the same as two identical labels from one worker in Dawid & Skene's n_il."
    df = _ck_frame(seed=5, repeats=True)
    j = as_judgments(df, unit="task", duplicates="count")
    p = as_patterns(j)
    assert p.onehot.sum() == len(df)                                # every label occurrence is counted
    counted = ModelB(max_iter=200, tol=0).fit(j)
    last = ModelB(max_iter=200, tol=0).fit(df, unit="task", duplicates="last")
    assert np.abs(counted.confusion_.to_numpy() - last.confusion_.to_numpy()).max() > 1e-3
    assert np.isclose(counted.log_lik_, counted.params_.log_likelihood(p))


def _four_ways_data():
    sim = simulate_crowd(n_units=150, n_workers=8, n_labels=3, workers_per_unit=4, seed=7)
    return sim.judgments


def test_estimator_four_ways_identical(tmp_path):
    "Judgments, a long table with other column names, a CSV path and Judgments.from_matrix: identical fits."
    long = _four_ways_data()
    renamed = long.rename(columns={"unit": "item", "worker": "annotator", "label": "answer"})
    path = tmp_path / "j.csv"; renamed.to_csv(path, index=False)
    wide = long.pivot(index="unit", columns="worker", values="label")
    opts = dict(unit="item", worker="annotator", label="answer")
    fits = [ModelB(n_starts=3, seed=4).fit(as_judgments(long)), ModelB(n_starts=3, seed=4).fit(renamed, **opts),
            ModelB(n_starts=3, seed=4).fit(path, **opts), ModelB(n_starts=3, seed=4).fit(Judgments.from_matrix(wide))]
    for f in fits[1:]:
        pd.testing.assert_series_equal(f.theta_, fits[0].theta_, check_exact=False, rtol=0, atol=1e-12)
        pd.testing.assert_frame_equal(f.posterior_, fits[0].posterior_, check_exact=False, rtol=0, atol=1e-12)
        pd.testing.assert_series_equal(f.labels_, fits[0].labels_)
        pd.testing.assert_frame_equal(f.confusion_, fits[0].confusion_, check_exact=False, rtol=0, atol=1e-12)
    f = fits[0]
    assert f.theta_.index.name == "worker" and list(f.gamma_.index) == ["L0", "L1", "L2"]
    assert f.confusion_.index.names == ["worker", "true"] and f.confusion_.columns.name == "observed"
    assert list(f.optima_.columns[:4]) == ["log_lik", "visits", "spread", "comment"]
    assert {"θ[w0]", "γ[L0]", "F", "preferred"} <= set(f.optima_.columns)
    assert np.isclose(f.theta_["w2"], (f.gamma_ * np.diag(f.confusion_.loc["w2"])).sum())     # eq. 39


def test_large_matrix_without_deduplication(monkeypatch):
    "Above the dense limit patterns are not deduplicated: every item is its own pattern with count 1 (was an IndexError)."
    x, _ = _random_data(0, 300, 4, 3, 0.7)
    small = em(x, max_iter=20, tol=0)
    monkeypatch.setattr(model_b, "_DENSE_LIMIT", 10)                 # the > 20M-cell path, cheaply
    p = as_patterns(x)
    assert p.n_patterns == len(x) and np.array_equal(p.counts, np.ones(len(x)))
    big = em(x, max_iter=20, tol=0)
    assert np.isclose(big.log_lik, small.log_lik, rtol=0, atol=1e-8)
    np.testing.assert_allclose(big.posterior, small.posterior, atol=1e-10)


def test_low_level_fit_reads_a_long_table():
    "model_b.fit(df) reads a long table (it used to read it as a matrix and fail on its object columns)."
    df = _four_ways_data()
    f = fit(df, method="em", n_starts=2, seed=0, init="vote")
    j = as_judgments(df)
    assert np.isclose(f.optima.log_lik[0], ModelB(n_starts=2, seed=0, relabel=False).fit(j).log_lik_)
    assert [c for c in f.optima.columns if c.startswith("θ[")] == [f"θ[{x}]" for x in range(1, j.n_workers + 1)]


def test_closed_label_set_with_an_unused_label():
    "A declared label nobody chose gets γ = 0 and keeps its column: the label set is the caller's."
    df = _four_ways_data()
    m = ModelB().fit(df, labels=["L0", "L1", "L2", "L3"])
    assert list(m.posterior_.columns) == ["L0", "L1", "L2", "L3"]
    assert m.gamma_["L3"] == 0 and np.allclose(m.posterior_["L3"], 0)
    np.testing.assert_allclose(m.confusion_.sum(axis=1).to_numpy(), 1)
