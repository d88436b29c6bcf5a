"""crowdnb.ratings: intraclass correlations against Shrout & Fleiss (1979), pingouin (balanced data) and statsmodels'
REML (crossed random effects, unbalanced data); set distances and alpha against hand computations and NLTK."""
import warnings

import numpy as np
import pandas as pd
import pytest

from crowdnb.core import Judgments
from crowdnb.ratings import icc, rating_design, reml_components, unit_gram

# Shrout & Fleiss (1979), Table 2: six targets x four judges; Table 4: the six ICCs to two decimals
SF = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])
SF_TABLE4 = [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]


def long(m):
    u, w = np.nonzero(~np.isnan(np.asarray(m, float)))
    return pd.DataFrame({"unit": u, "worker": w, "label": np.asarray(m, float)[u, w]})


def test_shrout_fleiss_table4():
    res = icc(long(SF))
    assert list(res.index) == ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]
    np.testing.assert_allclose(res["estimate"], SF_TABLE4, atol=0.005)
    assert res.attrs["method"] == "anova"


@pytest.mark.parametrize("seed,n,k", [(0, 30, 4), (1, 12, 7), (2, 200, 3)])
def test_pingouin_balanced(seed, n, k):
    pg = pytest.importorskip("pingouin")
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(n, 1)) + 0.5 * rng.normal(size=(1, k)) + rng.normal(size=(n, k))
    df = long(m)
    old = pg.options.get("round.column.CI95")
    pg.options["round.column.CI95"] = None          # pingouin rounds its intervals to 2 decimals by default
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = pg.intraclass_corr(df, targets="unit", raters="worker", ratings="label").set_index("Type")
    finally:
        pg.options["round.column.CI95"] = old
    ours = icc(df)
    names = ["ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(1,k)", "ICC(A,k)", "ICC(C,k)"]
    np.testing.assert_allclose(ours["estimate"], ref.loc[names, "ICC"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours["F"], ref.loc[names, "F"], rtol=1e-10)
    np.testing.assert_allclose(ours["df2"], ref.loc[names, "df2"], rtol=0)
    np.testing.assert_allclose(ours["p_value"], ref.loc[names, "pval"], rtol=1e-9, atol=1e-300)
    ci = np.vstack(ref.loc[names, "CI95"].to_numpy())
    np.testing.assert_allclose(ours[["ci_low", "ci_high"]].to_numpy(float), ci, rtol=1e-10, atol=1e-12)


def test_reml_equals_anova_on_complete_data():
    rng = np.random.default_rng(5)
    m = rng.normal(size=(60, 1)) + 0.7 * rng.normal(size=(1, 5)) + rng.normal(size=(60, 5))
    a, r = icc(long(m), method="anova"), icc(long(m), method="reml")
    assert r.attrs["method"] == "reml"
    np.testing.assert_allclose(r.drop(columns="description").to_numpy(float),
                               a.drop(columns="description").to_numpy(float), rtol=1e-6)


def dense_one_way_reml(u, y, n):
    "REML of y = mu + a_u + w by its definition: -2 l_R = log|V| + log|X'V^-1 X| + y'Py, V dense (small data only)."
    from scipy import optimize
    Z = np.zeros((len(y), n)); Z[np.arange(len(y)), u] = 1
    X = np.ones((len(y), 1))
    def f(t):
        V = np.exp(t[0]) * Z @ Z.T + np.exp(t[1]) * np.eye(len(y))
        Vi = np.linalg.inv(V)
        XVX = X.T @ Vi @ X
        P = Vi - Vi @ X @ np.linalg.inv(XVX) @ X.T @ Vi
        return np.linalg.slogdet(V)[1] + np.linalg.slogdet(XVX)[1] + y @ P @ y
    t = optimize.minimize(f, [0.0, 0.0], method="Nelder-Mead", options=dict(xatol=1e-10, fatol=1e-12, maxiter=4000)).x
    return np.exp(t)


def test_reml_statsmodels_unbalanced():
    smf = pytest.importorskip("statsmodels.formula.api")
    rng = np.random.default_rng(3)
    n, k = 40, 6
    u, r = np.nonzero(rng.random((n, k)) > 0.3)
    y = rng.normal(size=n)[u] + 0.7 * rng.normal(size=k)[r] + rng.normal(size=len(u))
    df = pd.DataFrame({"y": y, "unit": u, "rater": r, "g": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = smf.mixedlm("y ~ 1", df, groups="g", vc_formula={"unit": "0 + C(unit)", "rater": "0 + C(rater)"},
                          re_formula="0").fit(reml=True, method=["lbfgs"])
    comp = reml_components(rating_design(u, r, y, n, k))
    np.testing.assert_allclose([comp.s2b, comp.s2a, comp.s2e], [*fit.vcomp, fit.scale], rtol=1e-4)
    np.testing.assert_allclose([comp.s2a1, comp.s2w], dense_one_way_reml(u, y, n), rtol=1e-4)
    res = icc(df, worker="rater", label="y")
    np.testing.assert_allclose(res.loc["ICC2", "estimate"], comp.s2a / (comp.s2a + comp.s2b + comp.s2e), rtol=1e-12)


def test_reml_simulation_recovers_components():
    rng = np.random.default_rng(11)
    n, k = 3000, 12
    u, r = np.nonzero(rng.random((n, k)) >= 0.3)
    y = 1.0 * rng.normal(size=n)[u] + 0.5 * rng.normal(size=k)[r] + np.sqrt(0.5) * rng.normal(size=len(u))
    comp = reml_components(rating_design(u, r, y, n, k))
    np.testing.assert_allclose([comp.s2a, comp.s2e], [1.0, 0.5], rtol=0.08)
    assert 0.05 < comp.s2b < 0.8        # 12 raters: the rater variance is estimated from 12 draws


def test_no_unit_dropped_and_direct_basis_agrees():
    rng = np.random.default_rng(2)
    m = rng.normal(size=(50, 1)) + rng.normal(size=(50, 6))
    m[rng.random(m.shape) < 0.4] = np.nan
    m[0, 1:], m[0, 0] = np.nan, 0.5                      # a unit rated once
    df = long(m)
    res = icc(df)
    assert res.attrs["n_units"] == 50 and res.attrs["n_ratings"] == len(df)
    small = icc(df, memory=1)                            # sparse product per evaluation instead of the basis
    np.testing.assert_allclose(small["estimate"], res["estimate"], rtol=1e-6)


def test_unit_gram_matches_plain_sum():
    rng = np.random.default_rng(4)
    u, r = np.nonzero(rng.random((500, 300)) > 0.25)
    d = rating_design(u, r, rng.normal(size=len(u)), 500, 300)
    assert d.basis[0] == "taylor"
    m = np.zeros((500, 300)); m[u, r] = 1
    for lam in (0.0, 0.3, 50.0):
        np.testing.assert_allclose(unit_gram(d, lam), m.T @ (m / (m.sum(1, keepdims=True) + lam)), rtol=1e-12, atol=1e-12)


def _sim(units, raters, miss, seed):
    rng = np.random.default_rng(seed)
    u, r = np.nonzero(rng.random((units, raters)) >= miss)
    return u, r, rng.normal(size=units)[u] + 0.5 * rng.normal(size=raters)[r] + rng.normal(size=len(u))


# components from the previous implementation (commit 40fc09c: derivative-free L-BFGS-B plus Newton on central
# differences, float64 group Grams), which the exact-gradient optimiser and the bitset counts must reproduce
PREVIOUS = {(300, 200, 0.2, 0): [1.05124464662, 0.264516179277, 0.999028306936, 1.05190284305, 1.26458779741],
            (2000, 50, 0.5, 1): [0.956838868018, 0.184597953579, 1.00883348402, 0.956915186882, 1.19243482887],
            (1000, 20, 0.6, 5): [1.00484417881, 0.159705229231, 0.971801165308, 1.00316440294, 1.13045844254]}


@pytest.mark.parametrize("args", list(PREVIOUS))
def test_reml_matches_previous_implementation(args):
    u, r, y = _sim(*args)
    comp = reml_components(rating_design(u, r, y, args[0], args[1]))
    np.testing.assert_allclose(comp.to_numpy(), PREVIOUS[args], rtol=2e-8)


def dense_two_way_reml(u, r, y, n, k):
    "REML of y = mu + a_u + b_r + e by its definition, V dense (small data only): (s2a, s2b, s2e)."
    from scipy import optimize
    Za, Zb = np.eye(n)[u], np.eye(k)[r]
    X = np.ones((len(y), 1))
    def f(t):
        V = np.exp(t[0]) * Za @ Za.T + np.exp(t[1]) * Zb @ Zb.T + np.exp(t[2]) * np.eye(len(y))
        Vi = np.linalg.inv(V)
        XVX = X.T @ Vi @ X
        P = Vi - Vi @ X @ np.linalg.inv(XVX) @ X.T @ Vi
        return np.linalg.slogdet(V)[1] + np.linalg.slogdet(XVX)[1] + y @ P @ y
    res = optimize.minimize(f, [0.0, -1.0, 0.0], method="BFGS", options=dict(gtol=1e-9))
    return np.exp(res.x)


def test_reml_two_way_by_definition():
    u, r, y = _sim(30, 5, 0.35, 8)
    comp = reml_components(rating_design(u, r, y, 30, 5))
    np.testing.assert_allclose([comp.s2a, comp.s2b, comp.s2e], dense_two_way_reml(u, r, y, 30, 5), rtol=1e-5)


def test_reml_gradient_central_differences():
    from crowdnb.ratings import reml_two_way
    u, r, y = _sim(400, 30, 0.4, 2)
    d = rating_design(u, r, y, 400, 30)
    f = lambda ta, tb: reml_two_way(d, np.exp(-ta), np.exp(-tb))[0]
    h = 1e-5
    fd = [(f(0.3 + h, -1.0) - f(0.3 - h, -1.0)) / (2 * h), (f(0.3, -1.0 + h) - f(0.3, -1.0 - h)) / (2 * h)]
    np.testing.assert_allclose(reml_two_way(d, np.exp(-0.3), np.exp(1.0), gradient=True)[2], fd, rtol=1e-6)


def test_engines_give_the_same_basis(monkeypatch):
    pytest.importorskip("numba")
    u, r, y = _sim(600, 120, 0.25, 6)
    monkeypatch.setenv("CROWDNB_ENGINE", "numba")
    fast = rating_design(u, r, y, 600, 120)
    monkeypatch.setenv("CROWDNB_ENGINE", "numpy")
    slow = rating_design(u, r, y, 600, 120)
    assert fast.basis[0] == slow.basis[0] == "taylor"
    np.testing.assert_allclose(fast.basis[1], slow.basis[1], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(reml_components(fast).to_numpy(), reml_components(slow).to_numpy(), rtol=1e-9)


# ---------------------------------------------------------------- sets of labels
from crowdnb.agreement import krippendorff_alpha, alpha_bootstrap
from crowdnb.distances import masi_distance, jaccard_distance
from crowdnb.ratings import label_agreement

MULTI = pd.DataFrame({"unit": [1, 1, 1, 2, 2, 2, 3, 3], "worker": list("abcabcab"),
                      "label": ["x|y", "x", "x|y", "z", "y|z", "x", "y", "y"]})


def test_set_alpha_hand():
    # hand computation in nbs/20_agreement.ipynb: MASI 32/95, Jaccard 79/226
    assert abs(krippendorff_alpha(MULTI, level="masi", sep="|") - 32 / 95) < 1e-15
    assert abs(krippendorff_alpha(MULTI, level="jaccard", sep="|") - 79 / 226) < 1e-15


def test_masi_two_thirds_not_067():
    assert masi_distance({1, 2}, {1, 2, 3, 4}) == 1 - 0.5 * (2 / 3)
    assert masi_distance({1, 2}, {1, 2, 3, 4}) != 1 - 0.5 * 0.67          # NLTK < 3.9 (nltk #3361)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nltk_annotation_task(seed):
    nltk_agreement = pytest.importorskip("nltk.metrics.agreement")
    from nltk.metrics.distance import masi_distance as nltk_masi, jaccard_distance as nltk_jaccard
    rng = np.random.default_rng(seed)
    labels = np.array(list("abcde"))
    rows = []
    for u in range(40):
        for w in range(4):
            if rng.random() < 0.2: continue
            k = rng.integers(1, 4)
            rows.append((f"w{w}", f"u{u}", frozenset(rng.choice(labels, k, replace=False))))
    df = pd.DataFrame({"unit": [r[1] for r in rows], "worker": [r[0] for r in rows], "label": ["|".join(sorted(r[2])) for r in rows]})
    for name, fn in (("masi", nltk_masi), ("jaccard", nltk_jaccard)):
        task = nltk_agreement.AnnotationTask(data=rows, distance=fn)
        assert abs(krippendorff_alpha(df, level=name, sep="|") - task.alpha()) < 1e-12


def test_nltk_masi_constant():
    dist = pytest.importorskip("nltk.metrics.distance")
    # nltk >= 3.9 uses 2/3 as the definition does; older versions used 0.67 (documented in nbs/20a_distances.ipynb)
    assert abs(dist.masi_distance({1, 2}, {1, 2, 3, 4}) - masi_distance({1, 2}, {1, 2, 3, 4})) < 1e-15


def test_bootstrap_with_distance_and_label_agreement():
    b = alpha_bootstrap(MULTI, level="jaccard", sep="|", n_boot=100, seed=1, progress=False)
    assert abs(b.alpha - 79 / 226) < 1e-15 and b.low <= b.alpha <= b.high
    la = label_agreement(MULTI, sep="|")
    for lab in "xyz":
        binary = MULTI.assign(label=[lab in a.split("|") for a in MULTI.label]).astype({"label": str})
        assert abs(la.loc[lab, "alpha"] - krippendorff_alpha(binary)) < 1e-14
