"""Agreement coefficients: parity with krippendorff, scikit-learn and statsmodels, brute-force checks of the
pairwise tables of seed 002, and the published spatial-prepositions tables (when ../shared/data is present)."""
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from hypothesis.extra.numpy import arrays

from conftest import shared
from crowdnb.core import Judgments, as_judgments
from crowdnb.agreement import (krippendorff_alpha, alpha_bootstrap, cohen_kappa, scott_pi, fleiss_kappa,
                               coincidence_matrix, unit_value_counts, pairwise_agreement,
                               spatial_prepositions_agreements, read_published_agreements, agreement_table)

LEVELS = ["nominal", "ordinal", "interval", "ratio"]
nan = np.nan
KRIPP = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
                  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
                  [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
                  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def reliability(draw, max_raters=6, max_units=25, max_values=6, missing=True):
    "A raters x units float matrix of small non-negative integers with NaN holes."
    r = draw(st.integers(2, max_raters)); u = draw(st.integers(1, max_units)); v = draw(st.integers(2, max_values))
    m = draw(arrays(np.float64, (r, u), elements=st.integers(0, v - 1).map(float)))
    if missing:
        holes = draw(arrays(np.bool_, (r, u), elements=st.booleans()))
        m = np.where(holes & (draw(st.floats(0, 0.6)) > 0.3), nan, m)
    return m


# ---------------------------------------------------------------- Krippendorff's alpha
def test_krippendorff_published_example():
    import krippendorff
    paper = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
    for level, value in paper.items():
        ours = krippendorff_alpha(KRIPP, level=level)
        assert round(ours, 3) == value
        assert ours == pytest.approx(krippendorff.alpha(KRIPP, level_of_measurement=level), abs=1e-14)


@SETTINGS
@given(reliability(), st.sampled_from(LEVELS))
def test_alpha_parity_with_krippendorff(data, level):
    import krippendorff
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try: ref = krippendorff.alpha(data, level_of_measurement=level)
        except ValueError: ref = None          # no pairable unit, or a one-value domain
    if ref is None or not np.isfinite(ref):
        with pytest.raises(ValueError): krippendorff_alpha(data, level=level)
    else:
        assert krippendorff_alpha(data, level=level) == pytest.approx(ref, abs=1e-12)


@SETTINGS
@given(st.integers(2, 5), st.integers(1, 15), st.sampled_from([[-3.0, -1.5, 0.0, 0.25, 2.0], [0, 1, 5_000_000],
                                                               [10.0, 11.0, 13.0], [-2, -1]]),
       st.sampled_from(["nominal", "ordinal", "interval"]), st.integers(0, 2**32 - 1))
def test_alpha_parity_negative_fractional_and_wide_values(r, u, values, level, seed):
    """Values off the fast path (fractions, a range over 10^6) and on it (negative whole numbers)."""
    import krippendorff
    rng = np.random.default_rng(seed)
    data = np.asarray(values, float)[rng.integers(0, len(values), (r, u))]
    data[rng.random((r, u)) < 0.25] = nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try: ref = krippendorff.alpha(data, level_of_measurement=level)
        except ValueError: ref = None
    if ref is None or not np.isfinite(ref):
        with pytest.raises(ValueError): krippendorff_alpha(data, level=level)
    else:
        assert krippendorff_alpha(data, level=level) == pytest.approx(ref, abs=1e-12)
        ints = np.where(np.isnan(data), -999, data)
        if np.all(np.mod(ints, 1) == 0) and not np.isnan(data).any():       # integer dtype input, same answer
            assert krippendorff_alpha(ints.astype(int), level=level) == pytest.approx(ref, abs=1e-12)


@SETTINGS
@given(reliability(max_raters=5, max_units=15), st.sampled_from(LEVELS))
def test_alpha_same_from_long_table_and_judgments(data, level):
    r, u = np.nonzero(~np.isnan(data))
    long = pd.DataFrame({"unit": u, "worker": r, "label": data[r, u].astype(int)})
    before = long.copy()
    try: a = krippendorff_alpha(data, level=level)
    except ValueError:
        return
    assert krippendorff_alpha(long, level=level) == pytest.approx(a, abs=1e-12)
    pd.testing.assert_frame_equal(long, before)                      # the caller's table is not modified
    j = as_judgments(long)
    # Judgments drops raters without judgments; alpha only depends on pairable values, so it is unchanged
    assert krippendorff_alpha(j, level=level) == pytest.approx(a, abs=1e-12)


def test_alpha_value_domain_and_strings():
    import krippendorff
    words = np.array([["low", "mid", None], ["low", "high", "high"], ["mid", "mid", "high"]], dtype=object)
    dom = ["low", "mid", "high"]
    ref = krippendorff.alpha(np.array([[0, 1, nan], [0, 2, 2], [1, 1, 2]]), level_of_measurement="ordinal")
    assert krippendorff_alpha(words, "ordinal", value_domain=dom) == pytest.approx(ref, abs=1e-14)
    with pytest.raises(ValueError, match="value_domain"):
        krippendorff_alpha(words, "ordinal")
    with pytest.raises(ValueError, match="outside value_domain"):
        krippendorff_alpha(words, value_domain=["low", "mid"])


def test_alpha_degenerate():
    with pytest.raises(ValueError, match="at least two raters"): krippendorff_alpha([[1, 2, 3]])
    with pytest.raises(ValueError, match="no unit has ratings from two"): krippendorff_alpha([[1, nan], [nan, 2]])
    with pytest.raises(ValueError, match="no variation"): krippendorff_alpha([[3, 3], [3, 3]])
    with pytest.raises(ValueError, match="non-negative"): krippendorff_alpha([[-1, 2], [1, 2]], "ratio")
    with pytest.raises(TypeError): krippendorff_alpha("abc")
    # a constant rater among varying ones is ordinary data (same as the reference)
    import krippendorff
    d = [[1, 1, 1, 1], [1, 2, 3, 1], [1, 2, 2, 1]]
    assert krippendorff_alpha(d, "interval") == pytest.approx(krippendorff.alpha(d, level_of_measurement="interval"), abs=1e-14)


def test_coincidence_matrix_identities():
    o = coincidence_matrix(unit_value_counts(KRIPP)[0])
    assert np.allclose(o, o.T)
    # each pairable unit contributes its m_u pairable values
    m = (~np.isnan(KRIPP)).sum(0)
    assert o.sum() == pytest.approx(m[m >= 2].sum())


def test_alpha_bootstrap_seeded_and_consistent():
    a = alpha_bootstrap(KRIPP, "ordinal", n_boot=300, seed=7, progress=False)
    b = alpha_bootstrap(KRIPP, "ordinal", n_boot=300, seed=7, progress=False, batch=17)   # batching is invisible
    assert np.array_equal(a.samples, b.samples)
    assert a.alpha == pytest.approx(0.8153875037548814, abs=1e-12)
    assert a.low <= a.alpha <= a.high and len(a.samples) + a.n_undefined == 300
    # the bootstrap mean of a statistic that is nearly unbiased stays near it
    assert abs(np.mean(a.samples) - a.alpha) < 0.1
    with pytest.raises(ValueError, match="ci"): alpha_bootstrap(KRIPP, ci=1.5)


# ---------------------------------------------------------------- Cohen, Scott, Fleiss
@st.composite
def two_raters(draw):
    n = draw(st.integers(1, 40)); v = draw(st.integers(2, 5))
    a = draw(arrays(np.float64, n, elements=st.integers(0, v - 1).map(float)))
    b = draw(arrays(np.float64, n, elements=st.integers(0, v - 1).map(float)))
    holes = draw(arrays(np.bool_, n, elements=st.booleans()))
    a = np.where(holes & (np.arange(n) % 3 == 0), nan, a)
    b = np.where(holes & (np.arange(n) % 3 == 1), nan, b)
    return a, b


@SETTINGS
@given(two_raters(), st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_parity_with_sklearn(ab, weights):
    from sklearn.metrics import cohen_kappa_score
    a, b = ab
    both = ~np.isnan(a) & ~np.isnan(b)
    if not both.any():
        with pytest.raises(ValueError, match="no item"): cohen_kappa(a, b, weights)
        return
    labels = np.unique(np.concatenate([a[both], b[both]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = cohen_kappa_score(a[both], b[both], weights=weights, labels=labels)
    if not np.isfinite(ref):
        with pytest.raises(ValueError, match="expected agreement is 1"): cohen_kappa(a, b, weights)
    else:
        assert cohen_kappa(a, b, weights) == pytest.approx(ref, abs=1e-12)


@SETTINGS
@given(two_raters())
def test_scott_pi_identities(ab):
    """Scott's pi = Fleiss' kappa of two raters (statsmodels), and 1 - alpha = (2N-1)/(2N) (1 - pi)."""
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss, aggregate_raters
    import krippendorff
    a, b = ab
    both = ~np.isnan(a) & ~np.isnan(b)
    if not both.any() or len(np.unique(np.concatenate([a[both], b[both]]))) < 2:
        return
    pi = scott_pi(a, b)
    table, _ = aggregate_raters(np.stack([a[both], b[both]], axis=1).astype(int))
    assert pi == pytest.approx(sm_fleiss(table, method="fleiss"), abs=1e-12)
    n = both.sum()
    alpha = krippendorff.alpha(np.stack([a[both], b[both]]), level_of_measurement="nominal")
    assert 1 - alpha == pytest.approx((2 * n - 1) / (2 * n) * (1 - pi), abs=1e-12)


@SETTINGS
@given(reliability(missing=False, max_raters=7, max_units=30))
def test_fleiss_parity_with_statsmodels(data):
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss, aggregate_raters
    table, _ = aggregate_raters(data.T.astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sm_fleiss(table, method="fleiss")
    if not np.isfinite(ref):
        with pytest.raises(ValueError): fleiss_kappa(data)
    else:
        assert fleiss_kappa(data) == pytest.approx(ref, abs=1e-12)
        assert fleiss_kappa(table, counts=True) == pytest.approx(ref, abs=1e-12)


def _fleiss_brute(data):
    "Fleiss with missing ratings by hand: per unit, agreeing ordered pairs among its raters."
    pu, allv = [], []
    for col in data.T:
        v = col[~np.isnan(col)]
        if len(v) < 2: continue
        agree = sum(1 for i, j in itertools.permutations(range(len(v)), 2) if v[i] == v[j])
        pu.append(agree / (len(v) * (len(v) - 1))); allv.extend(v)
    allv = np.array(allv)
    pe = sum((allv == c).mean() ** 2 for c in np.unique(allv))
    return (np.mean(pu) - pe) / (1 - pe)


@SETTINGS
@given(reliability())
def test_fleiss_with_missing_against_brute_force(data):
    try: ours = fleiss_kappa(data)
    except ValueError:
        return
    assert ours == pytest.approx(_fleiss_brute(data), abs=1e-12)


def test_fleiss_published_example():
    t = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                  [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    assert round(fleiss_kappa(t, counts=True), 3) == 0.210
    with pytest.raises(ValueError, match="non-negative integers"): fleiss_kappa(-t, counts=True)


# ---------------------------------------------------------------- pairwise agreement (seed 002)
def _brute_pairs(df, key, rule, cats, perfect=1.0):
    "Seed 002 by the letter: loops over rater pairs and over pairs of their annotations."
    out = {}
    raters = sorted(df.rater.unique())
    for c in cats:
        for r1, r2 in itertools.combinations(raters, 2):
            A = df[df.rater == r1]; B = df[df.rater == r2]
            if rule == "choice": A, B = A[A.cat == c], B[B.cat == c]
            s = agree = y1 = y2 = z1 = z2 = f = 0
            for _, a in A.iterrows():
                for _, b in B.iterrows():
                    if any(a[k] != b[k] for k in key): continue
                    s += 1
                    if rule == "yesno":
                        ya, yb = c in a.ans.split(";"), c in b.ans.split(";")
                        y1 += ya; y2 += yb; agree += ya == yb
                    else:
                        z1 += a.ans == "none"; z2 += b.ans == "none"; agree += a.ans == b.ans; f += a.cand
            if s == 0: continue
            po = agree / s
            if rule == "yesno": pe = (y1 * y2 + (s - y1) * (s - y2)) / s ** 2
            else: pe = (z1 / s) * (z2 / s) + s * (1 - z1 / s) * (1 - z2 / s) / f
            out[(c, r1, r2)] = (s, agree, po, pe, perfect if po == 1 and pe == 1 else (po - pe) / (1 - pe))
    return out


@st.composite
def annotations(draw, rule):
    n = draw(st.integers(2, 30))
    rows = []
    for _ in range(n):
        q = draw(st.integers(0, 4)); r = draw(st.sampled_from("abcd"))
        if rule == "yesno":
            ans = ";".join(draw(st.lists(st.sampled_from(["on", "in", "over"]), max_size=3, unique=True)))
            rows.append(dict(q=q, rater=r, ans=ans, cat="x", cand=1))
        else:
            cat = draw(st.sampled_from(["on", "in"]))
            ans = draw(st.sampled_from(["none", "box", "cup", "ball"]))
            rows.append(dict(q=q, rater=r, ans=ans, cat=cat, cand=3 + q))
    return pd.DataFrame(rows)


def _compare(res, brute):
    got = {(r.category, r.rater1, r.rater2): (r.shared, r.agreements, r.observed, r.expected, r.kappa)
           for r in res.pairs.itertuples()}
    assert set(got) == set(brute)
    for k, v in brute.items():
        assert got[k][:2] == v[:2]
        assert np.allclose(got[k][2:], v[2:], atol=1e-12, rtol=0)


@SETTINGS
@given(annotations("yesno"))
def test_pairwise_yesno_against_brute_force(df):
    brute = _brute_pairs(df, ["q"], "yesno", ["on", "in", "over"])
    if not brute:
        with pytest.raises(ValueError, match="no two raters share"):
            pairwise_agreement(df, "q", "rater", "ans", sep=";", categories=["on", "in", "over"])
        return
    before = df.copy()
    res = pairwise_agreement(df, "q", "rater", "ans", sep=";", categories=["on", "in", "over"])
    pd.testing.assert_frame_equal(df, before)
    _compare(res, brute)
    s = np.array([v[0] for v in brute.values()]); k = np.array([v[4] for v in brute.values()])
    assert res.total["kappa"] == pytest.approx((s * k).sum() / s.sum(), abs=1e-12)


@SETTINGS
@given(annotations("choice"))
def test_pairwise_choice_against_brute_force(df):
    brute = _brute_pairs(df, ["q", "cat"], "choice", ["on", "in"])
    if not brute:
        return
    res = pairwise_agreement(df, ["q", "cat"], "rater", "ans", rule="choice", by="cat", categories=["on", "in"],
                             candidates="cand")
    _compare(res, brute)
    for c in ["on", "in"]:
        sel = [v for kk, v in brute.items() if kk[0] == c]
        if sel:
            s = np.array([v[0] for v in sel]); o = np.array([v[2] for v in sel])
            assert res.by_category.loc[c, "observed"] == pytest.approx((s * o).sum() / s.sum(), abs=1e-12)


@SETTINGS
@given(st.integers(0, 10_000))
def test_pairwise_kappa_is_cohens_kappa_of_the_pair(seed):
    """Without duplicate answers, each pair's kappa is Cohen's kappa of the two raters' yes/no vectors."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame([(q, r, bool(rng.random() < 0.4)) for q in range(12) for r in "abc" if rng.random() < 0.8],
                      columns=["q", "rater", "yes"])
    try: res = pairwise_agreement(df, "q", "rater", "yes")
    except ValueError:
        return
    wide = df.pivot(index="q", columns="rater", values="yes")
    for r in res.pairs.itertuples():
        both = wide[[r.rater1, r.rater2]].dropna()
        if r.expected < 1:
            assert r.kappa == pytest.approx(cohen_kappa(both[r.rater1].astype(int), both[r.rater2].astype(int)), abs=1e-12)


def test_pairwise_errors_and_filters():
    df = pd.DataFrame({"q": [1, 1, 2, 2], "r": ["a", "b", "a", "b"], "yes": [True, True, False, True]})
    with pytest.raises(ValueError, match="rule must be"): pairwise_agreement(df, "q", "r", "yes", rule="vote")
    with pytest.raises(ValueError, match="duplicates must be"): pairwise_agreement(df, "q", "r", "yes", duplicates="x")
    with pytest.raises(ValueError, match="after the rater filter"): pairwise_agreement(df, "q", "r", "yes", raters=["z"])
    with pytest.raises(ValueError, match="missing values"):
        pairwise_agreement(df.assign(q=[1, None, 2, 2]), "q", "r", "yes")
    with pytest.raises(TypeError): pairwise_agreement(df.to_numpy(), "q", "r", "yes")
    res = pairwise_agreement(df, "q", "r", "yes")
    assert res.pairs.loc[0, "shared"] == 2 and res.pairs.loc[0, "observed"] == 0.5


# ---------------------------------------------------------------- the published spatial-prepositions tables
def test_spatial_prepositions_tables_reproduced():
    folder = shared("spatial-prepositions-2019")
    ours = spatial_prepositions_agreements(folder)
    for name, fname in [("semantic", "semantic agreements.csv"), ("comparative", "comparative agreements.csv")]:
        n_users, pub = read_published_agreements(folder / fname)
        mine = agreement_table(ours[name])
        assert len(ours[name].raters) == n_users
        assert list(mine.index) == list(pub.index)
        assert mine["shared"].tolist() == pub["shared"].tolist()
        np.testing.assert_allclose(mine[["expected", "observed", "kappa"]].to_numpy(),
                                   pub[["expected", "observed", "kappa"]].to_numpy(), rtol=0, atol=1e-9)


def test_alpha_rejects_infinite_values_at_metric_levels():
    """An infinite rating would make the interval/ratio distances infinite and alpha a silent NaN."""
    for level in ("interval", "ratio"):
        with pytest.raises(ValueError, match="finite values"):
            krippendorff_alpha([[1, np.inf, 2], [1, 2, 2]], level=level)
        with pytest.raises(ValueError, match="finite values"):
            alpha_bootstrap([[1, np.inf, 2], [1, 2, 2]], level, n_boot=5, seed=0, progress=False)


def test_weighted_kappa_of_string_labels_needs_their_order():
    """Sorted strings are not a scale order ('hi' < 'lo' < 'mid'): weighted kappa/pi refuse them without labels=,
    and with labels= equal scikit-learn on the integer codes of that order."""
    from sklearn.metrics import cohen_kappa_score
    a, b = ["lo", "mid", "mid", "hi", "lo"], ["lo", "hi", "mid", "hi", "mid"]
    order = {"lo": 0, "mid": 1, "hi": 2}
    for w in ("linear", "quadratic"):
        with pytest.raises(ValueError, match="labels="): cohen_kappa(a, b, weights=w)
        with pytest.raises(ValueError, match="labels="): scott_pi(a, b, weights=w)
        ref = cohen_kappa_score([order[v] for v in a], [order[v] for v in b], weights=w)
        assert cohen_kappa(a, b, weights=w, labels=list(order)) == pytest.approx(ref, abs=1e-14)
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-14)     # unweighted: no order needed
