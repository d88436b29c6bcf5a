"""Trust coefficients (Algorithm 1 of seed 004): every subset alpha against the `krippendorff` package, the
coefficients against a literal transcription of the pseudocode run on the package's alphas, a planted
outlier, invariances, input formats and errors."""
from itertools import combinations
import warnings

import numpy as np
import pandas as pd
import pytest
import krippendorff
from hypothesis import given, settings, strategies as st, HealthCheck

from crowdnb.core import Judgments, simulate_crowd, as_judgments, LEVELS
from crowdnb.agreement import UndefinedAgreement
from crowdnb.trust import (reliability_data, subset_codes, code_masks, subset_alphas, algorithm1_coefs,
                           trust_coefficients, _subset_alphas)

TOL = 1e-10   # the tie tolerance of trust_coefficients (its default)


def J(x, workers=None):
    "Judgments from a raters x units array (the krippendorff package's layout, NaN = missing)."
    return Judgments.from_matrix(np.asarray(x, float).T, workers=workers)


def package_alpha(x, level):
    "The `krippendorff` package's alpha, NaN where it is undefined (the package raises or returns 0/0)."
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            a = float(krippendorff.alpha(reliability_data=x, level_of_measurement=level))
    except ValueError:
        return np.nan
    return a if np.isfinite(a) else np.nan


def package_subset_alphas(x, level):
    "Algorithm 1's first loop with the package: {subset tuple: alpha}, sizes 2..k, combinations order."
    k = len(x)
    return {c: package_alpha(x[list(c)], level) for n in range(2, k + 1) for c in combinations(range(k), n)}


def literal_algorithm1(alphas: dict, tol=TOL):
    "The pseudocode of seed 004 line by line; `tol` added to `score < alpha` (tol=0: literal). NaN alphas left out."
    alphas = dict(sorted(((c, a) for c, a in alphas.items() if not np.isnan(a)), key=lambda kv: kv[1]))
    coefs, coef, score = {}, 1, 0
    for comb_, alpha in alphas.items():
        if score + tol < alpha:
            coef += 1
            score = alpha
        for annotator in comb_:
            coefs[annotator] = coefs.get(annotator, 0) + coef * alpha
    top = max(coefs.values())
    return {a: c / top for a, c in coefs.items()}


def ratings(seed, k=6, n_units=20, n_values=5, miss=0.25, noise=1):
    "Random raters x units ratings around a true value, with missing entries."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_values, n_units)
    x = np.clip(truth + rng.integers(-noise, noise + 1, (k, n_units)), 0, n_values - 1).astype(float)
    x[rng.random(x.shape) < miss] = np.nan
    return x


# ---------------------------------------------------------------- subset alphas vs the krippendorff package
@pytest.mark.parametrize("level", LEVELS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 6), n_units=st.integers(1, 15),
       n_values=st.integers(2, 6), miss=st.sampled_from([0.0, 0.3, 0.6]))
def test_every_subset_alpha_matches_package(level, seed, k, n_units, n_values, miss):
    x = ratings(seed, k, n_units, n_values, miss, noise=2)
    x = x[~np.isnan(x).all(axis=1)]                                  # Judgments hold only workers who judged
    if len(x) < 2 or np.isnan(x).all(): return
    ref = package_subset_alphas(x, level)
    ours = subset_alphas(J(x), level)
    assert list(ours.workers) == list(ref)                            # same subsets, same (Algorithm 1) order
    r = np.array(list(ref.values()))
    np.testing.assert_array_equal(np.isnan(ours.alpha.to_numpy()), np.isnan(r))
    np.testing.assert_allclose(ours.alpha.to_numpy(), r, rtol=0, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("level", LEVELS)
def test_real_valued_and_ratio_data(level):
    "Non-integer values (e.g. averaged scores) and zeros in ratio data."
    rng = np.random.default_rng(7)
    x = np.round(rng.random((5, 12)) * 4, 1)
    x[rng.random(x.shape) < 0.2] = np.nan
    x[0, :3] = 0.0
    ref = np.array(list(package_subset_alphas(x, level).values()))
    np.testing.assert_allclose(subset_alphas(J(x), level).alpha.to_numpy(), ref, rtol=0, atol=1e-12)


# ---------------------------------------------------------------- coefficients vs the literal pseudocode
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(4))
def test_coefficients_match_literal_algorithm_on_package_alphas(level, seed):
    x = ratings(seed, k=7, n_units=25, n_values=3, miss=0.2)
    ref = literal_algorithm1(package_subset_alphas(x, level))
    ours = trust_coefficients(J(x), level=level)
    np.testing.assert_allclose(ours.coefficient.to_numpy(), [ref[r] for r in range(7)], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(ours.outlier.to_numpy(), [ref[r] <= 0.5 for r in range(7)])


def test_literal_float_comparison_depends_on_rounding():
    "Documented finding: with tie_tol=0 last-bit differences between alpha routines change the coefficients."
    x = ratings(3, k=8, n_units=30, n_values=3, miss=0.2)
    alphas = package_subset_alphas(x, "nominal")
    lit0 = literal_algorithm1(alphas, tol=0)
    ours0 = trust_coefficients(J(x), "nominal", tie_tol=0).coefficient.to_numpy()
    assert np.abs(ours0 - [lit0[r] for r in range(8)]).max() > 1e-5
    lit = literal_algorithm1(alphas)
    ours = trust_coefficients(J(x), "nominal").coefficient.to_numpy()
    np.testing.assert_allclose(ours, [lit[r] for r in range(8)], rtol=0, atol=1e-12)


def test_counter_matches_literal_loop_with_ties_negatives_and_nan():
    rng = np.random.default_rng(0)
    a = rng.choice([-0.4, -0.1, 0.0, 0.2, 0.2, 0.5, 0.9, np.nan], 200)
    coef = algorithm1_coefs(a)
    order = sorted((i for i in range(len(a)) if not np.isnan(a[i])), key=lambda i: a[i])
    c, score, want = 1, 0, {}
    for i in order:
        if score < a[i]: c, score = c + 1, a[i]
        want[i] = c
    np.testing.assert_array_equal(coef[order], [want[i] for i in order])
    assert np.isnan(coef[np.isnan(a)]).all()
    np.testing.assert_array_equal(np.unique(coef[a <= 0]), [1])


def test_hand_worked_example():
    x = np.array([[1, 1, 2, 2], [1, 1, 2, 2], [1, 2, 1, 2]], float)
    t = subset_alphas(J(x))
    np.testing.assert_allclose(t.alpha, [1, 1 / 8, 1 / 8, 7 / 18], atol=1e-15)
    r = trust_coefficients(J(x, workers=list("ABC")))
    assert r.index.tolist() == list("ABC") and r.index.name == "worker"
    np.testing.assert_allclose(r.total, [65 / 12, 65 / 12, 20 / 12], atol=1e-14)
    np.testing.assert_allclose(r.coefficient, [1, 1, 4 / 13], atol=1e-15)
    assert r.outlier.tolist() == [False, False, True]


# ---------------------------------------------------------------- planted outliers
@pytest.mark.parametrize("level", LEVELS)
def test_planted_random_rater_is_flagged(level):
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 8, 127)
    x = np.clip(truth + rng.choice([-1, 0, 0, 0, 1], (12, 127)), 0, 7).astype(float)
    x[5] = rng.integers(0, 8, 127)
    x[rng.random(x.shape) < 0.1] = np.nan
    r = trust_coefficients(J(x), level=level)
    assert r.outlier.to_numpy().nonzero()[0].tolist() == [5]


def test_planted_spammer_in_simulated_crowd_is_flagged():
    "Judgments input: simulate_crowd with 8 workers who all judge every unit, one of them a spammer."
    sim = simulate_crowd(n_units=150, n_workers=8, n_labels=4, workers_per_unit=8, spammer_fraction=1 / 8,
                         quality=(20, 2), difficulty=(1, 8), seed=5)
    j = as_judgments(sim.judgments, labels=sim.labels)
    r = trust_coefficients(j)
    assert r.index.tolist() == list(sim.spammer.index)
    assert r.outlier.tolist() == sim.spammer.tolist()
    assert sim.spammer.sum() == 1


# ---------------------------------------------------------------- invariances
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(3, 7), level=st.sampled_from(LEVELS))
def test_invariant_to_rater_order(seed, k, level):
    x = ratings(seed, k=k, n_units=15, n_values=4, miss=0.2)
    if np.isnan(x).all(axis=1).any(): return                    # a rater without ratings is not a worker
    try: base = trust_coefficients(J(x), level=level)
    except ValueError: return                                   # degenerate draw: no positive agreement
    perm = np.random.default_rng(seed).permutation(k)
    p = trust_coefficients(J(x[perm]), level=level)
    np.testing.assert_allclose(p.coefficient.to_numpy(), base.coefficient.to_numpy()[perm], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(p.outlier.to_numpy(), base.outlier.to_numpy()[perm])


def test_invariant_to_unit_order_and_input_untouched():
    x = ratings(1, k=6, n_units=20)
    keep = x.copy()
    base = trust_coefficients(J(x), "interval")
    np.testing.assert_array_equal(x, keep)
    perm = np.random.default_rng(0).permutation(20)
    np.testing.assert_allclose(trust_coefficients(J(x[:, perm]), "interval").coefficient, base.coefficient, atol=1e-12)


def test_order_of_tied_subsets_does_not_matter():
    x = ratings(3, k=8, n_units=30, n_values=3, miss=0.2)
    codes = subset_codes(8)
    a = _subset_alphas(x, "nominal", codes)
    assert len(np.unique(a)) < len(a) - 3
    M = code_masks(codes, 8)
    t = M.T @ (algorithm1_coefs(a) * a)
    for seed in range(10):
        s = np.random.default_rng(seed).permutation(len(a))
        t2 = M[s].T @ (algorithm1_coefs(a[s]) * a[s])
        np.testing.assert_allclose(t2 / t2.max(), t / t.max(), rtol=0, atol=1e-12)


def test_chunking_does_not_change_results():
    x = ratings(2, k=9, n_units=40, n_values=6)
    for level in LEVELS:
        np.testing.assert_allclose(trust_coefficients(J(x), level, chunk_mb=0.01).coefficient,
                                   trust_coefficients(J(x), level).coefficient, atol=1e-14)


# ---------------------------------------------------------------- input formats
def test_long_table_csv_and_judgments_give_the_same_result(tmp_path):
    x = ratings(4, k=5, n_units=12)
    r, u = np.nonzero(~np.isnan(x))
    long = pd.DataFrame({"annotator": np.array(list("abcde"))[r], "item": u, "rating": x[r, u]})
    shuffled = long.sample(frac=1, random_state=1)
    before = shuffled.copy()
    cols = dict(unit="item", worker="annotator", label="rating")
    a = trust_coefficients(shuffled, level="ordinal", **cols)
    pd.testing.assert_frame_equal(shuffled, before)
    b = trust_coefficients(J(x, workers=list("abcde")), level="ordinal")
    pd.testing.assert_frame_equal(a, b)
    long.to_csv(tmp_path / "r.csv", index=False)
    pd.testing.assert_frame_equal(trust_coefficients(tmp_path / "r.csv", level="ordinal", **cols), b)
    j = as_judgments(long, **cols)
    pd.testing.assert_frame_equal(trust_coefficients(j, level="ordinal"), b)
    pd.testing.assert_frame_equal(reliability_data(j), pd.DataFrame(x, index=pd.Index(list("abcde"), name="worker"),
                                                                     columns=pd.Index(range(12), name="unit")))


def test_four_ways_in_give_identical_results(tmp_path):
    """simulate_crowd as Judgments, as a long table with renamed columns, as a CSV path and through
    Judgments.from_matrix: identical trust coefficients and subset alphas (string labels, nominal)."""
    sim = simulate_crowd(n_units=60, n_workers=7, n_labels=3, workers_per_unit=5, seed=4)
    df = sim.judgments
    renamed = df.rename(columns={"unit": "sentence", "worker": "rater", "label": "tag"})
    cols = dict(unit="sentence", worker="rater", label="tag")
    renamed.to_csv(tmp_path / "c.csv", index=False)
    ways = [(as_judgments(df), {}), (renamed, cols), (tmp_path / "c.csv", cols),
            (Judgments.from_matrix(df.pivot(index="unit", columns="worker", values="label")), {})]
    tc = [trust_coefficients(d, **kw) for d, kw in ways]
    sa = [subset_alphas(d, **kw) for d, kw in ways]
    for t, s in zip(tc[1:], sa[1:]):
        pd.testing.assert_frame_equal(t, tc[0])
        pd.testing.assert_frame_equal(s, sa[0])
    assert tc[0].index.name == "worker" and list(tc[0].index) == [f"w{i}" for i in range(7)]


def test_string_labels_nominal_or_declared_ordinal():
    df = pd.DataFrame({"worker": list("aabbcc"), "unit": [1, 2] * 3, "label": list("xyxyxx")})
    r = trust_coefficients(df)
    assert r.index.tolist() == list("abc")
    with pytest.raises(TypeError, match="level='interval' needs numeric labels"):
        trust_coefficients(df, level="interval")
    with pytest.raises(ValueError, match="pass labels= in their scale order"):
        trust_coefficients(df, level="ordinal")
    # declared order: ordinal on codes 0, 1 (two values: the same as nominal)
    pd.testing.assert_frame_equal(trust_coefficients(df, level="ordinal", labels=["x", "y"]), r, check_like=True,
                                  check_exact=False, atol=1e-14)


def test_level_default_is_nominal():
    x = ratings(5, k=5, n_units=20)
    pd.testing.assert_frame_equal(trust_coefficients(J(x)), trust_coefficients(J(x), level="nominal"))
    assert trust_coefficients(J(x)).attrs["level"] == "nominal"


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("data, kwargs, exc, match", [
    (J(np.ones((1, 4))), {}, ValueError, "at least 2 workers, got 1"),
    (J([[1, np.nan], [np.nan, 2]]), {}, UndefinedAgreement, "no subset of workers has a defined alpha"),
    (J([[3, 3, 3], [3, 3, 3]]), {}, UndefinedAgreement, "no subset of workers has a defined alpha"),
    (J([[1, 2, 1, 2], [2, 1, 2, 1]]), {}, UndefinedAgreement, "no worker has a positive total"),
    (J(np.zeros((21, 3))), {}, ValueError, "max_workers=21"),
    (J(np.ones((3, 3))), {"level": "Nominal"}, ValueError, "level must be one of"),
    (J(-np.ones((3, 3))), {"level": "ratio"}, ValueError, "non-negative"),
    (np.ones((3, 3)), {}, TypeError, "Judgments.from_matrix"),
    (pd.DataFrame({"worker": [1], "unit": [1], "x": [1]}), {}, ValueError, r"lacks the column\(s\) label='label'"),
    (pd.DataFrame({"worker": [1, 1], "unit": [1, 1], "label": [1, 2]}), {}, ValueError, "duplicate judgments"),
    (pd.DataFrame({"worker": [1, None], "unit": [1, 1], "label": [1, 2]}), {}, ValueError, "worker column 'worker' has missing"),
    (pd.DataFrame({"worker": [1, 2], "unit": [1, 1], "label": [1, np.inf]}), {}, ValueError, "infinite"),
])
def test_errors(data, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        trust_coefficients(data, **kwargs)


def test_type_errors():
    with pytest.raises(TypeError, match="must be a Judgments, a long pandas DataFrame or a CSV path"):
        trust_coefficients({"a": [1, 2]})
    with pytest.raises(TypeError, match="booleans"):
        trust_coefficients(Judgments.from_matrix(np.ones((3, 3), bool)))


def test_max_workers_message_gives_memory_estimate():
    with pytest.raises(ValueError, match=r"33,554,406 subsets: about 1,792 MiB"):
        trust_coefficients(J(np.zeros((25, 3))))


def test_undefined_alphas_match_package_and_are_left_out():
    "No variation ({1, 2} only ever say 1) and no pairable values ({0, 3} share no unit) give NaN, like the package."
    x = np.array([[1, 1, 2, np.nan], [1, 1, np.nan, np.nan], [1, 1, np.nan, np.nan], [np.nan, np.nan, np.nan, 2]])
    t = subset_alphas(J(x))
    ref = package_subset_alphas(x, "nominal")
    assert np.isnan(t.alpha[t.workers == (1, 2)]).all() and np.isnan(t.alpha[t.workers == (0, 3)]).all()
    np.testing.assert_allclose(t.alpha.to_numpy(), list(ref.values()), atol=1e-12, equal_nan=True)


def test_progress_bar_can_be_forced_on_and_off(capsys):
    x = ratings(0, k=5, n_units=10)
    a = trust_coefficients(J(x), progress=True)
    assert "subset alphas" in capsys.readouterr().err
    b = trust_coefficients(J(x), progress=False)
    assert "subset alphas" not in capsys.readouterr().err
    pd.testing.assert_frame_equal(a, b)
