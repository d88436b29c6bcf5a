"""Agreement coefficients: parity with krippendorff, scikit-learn and statsmodels, brute-force checks of the
pairwise tables of seed 002, the published spatial-prepositions tables (when ../shared/data is present), and the
front door: a Judgments, a long table with its own column names, a CSV path and Judgments.from_matrix give the
same numbers."""
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from hypothesis.extra.numpy import arrays

from conftest import shared
from crowdnb.core import Judgments, as_judgments, simulate_crowd, LEVELS
from crowdnb.agreement import (krippendorff_alpha, alpha_bootstrap, cohen_kappa, scott_pi, fleiss_kappa,
                               fleiss_kappa_counts, coincidence_matrix, unit_value_counts, reliability_codes,
                               pairwise_agreement, spatial_prepositions_agreements, read_published_agreements,
                               agreement_table, UndefinedAgreement)

nan = np.nan
KRIPP = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
                  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
                  [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
                  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def J(rows, **kw):
    "Judgments from a raters x units array (the krippendorff package's layout), through the door for wide data."
    return Judgments.from_matrix(np.asarray(rows, dtype=object if np.asarray(rows).dtype.kind in "OU" else float).T, **kw)


def package_alpha(data, level, **kw):
    "The krippendorff package's alpha, None where it raises or is not finite."
    import krippendorff
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try: ref = krippendorff.alpha(data, level_of_measurement=level, **kw)
        except ValueError: return None
    return ref if np.isfinite(ref) else None


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
        ours = krippendorff_alpha(J(KRIPP), level=level)
        assert round(ours, 3) == value
        assert ours == pytest.approx(krippendorff.alpha(KRIPP, level_of_measurement=level), abs=1e-14)


def test_long_table_with_its_own_column_names_is_read_as_a_long_table():
    """The reported bug: a long table (sentence_id, worker_id, relation) was read as a raters x units matrix.
    Oracle: the krippendorff package on the raters x units codes of the same judgments."""
    sim = simulate_crowd(n_units=60, n_workers=9, n_labels=3, workers_per_unit=5, seed=11)
    df = sim.judgments.rename(columns={"unit": "sentence_id", "worker": "worker_id", "label": "relation"})
    before = df.copy()
    wide = df.pivot(index="worker_id", columns="sentence_id", values="relation")
    codes = wide.apply(lambda c: c.map({"L0": 0, "L1": 1, "L2": 2})).to_numpy(float)
    ref = package_alpha(codes, "nominal")
    ours = krippendorff_alpha(df, unit="sentence_id", worker="worker_id", label="relation")
    assert ours == pytest.approx(ref, abs=1e-14)
    pd.testing.assert_frame_equal(df, before)
    with pytest.raises(ValueError, match=r"lacks the column\(s\) unit='unit'.*its columns are \['sentence_id'"):
        krippendorff_alpha(df)
    with pytest.raises(TypeError, match="Judgments.from_matrix"):
        krippendorff_alpha(codes)


def test_label_matrix_route_equals_judgments():
    """krippendorff_alpha(j) and the matrix route give one number: -1 codes are missing only when declared so."""
    sim = simulate_crowd(n_units=40, n_workers=6, workers_per_unit=3, seed=2)
    j = as_judgments(sim.judgments)
    m = j.label_matrix()                                      # units x workers, -1 = not judged
    a = krippendorff_alpha(j)
    assert krippendorff_alpha(Judgments.from_matrix(m, missing=-1)) == pytest.approx(a, abs=1e-15)
    assert krippendorff_alpha(Judgments.from_matrix(np.where(m < 0, nan, m))) == pytest.approx(a, abs=1e-15)


@SETTINGS
@given(reliability(), st.sampled_from(LEVELS))
def test_alpha_parity_with_krippendorff(data, level):
    ref = package_alpha(data, level)
    if ref is None:
        with pytest.raises(ValueError): krippendorff_alpha(J(data), level=level)
    else:
        assert krippendorff_alpha(J(data), level=level) == pytest.approx(ref, abs=1e-12)


@SETTINGS
@given(st.integers(2, 5), st.integers(1, 15), st.sampled_from([[-3.0, -1.5, 0.0, 0.25, 2.0], [0, 1, 5_000_000],
                                                               [10.0, 11.0, 13.0], [-2, -1]]),
       st.sampled_from(["nominal", "ordinal", "interval"]), st.integers(0, 2**32 - 1))
def test_alpha_parity_negative_fractional_and_wide_values(r, u, values, level, seed):
    """Fractions, a range over 10^6 and negative whole numbers as labels."""
    rng = np.random.default_rng(seed)
    data = np.asarray(values, float)[rng.integers(0, len(values), (r, u))]
    data[rng.random((r, u)) < 0.25] = nan
    ref = package_alpha(data, level)
    if ref is None:
        with pytest.raises(ValueError): krippendorff_alpha(J(data), level=level)
    else:
        assert krippendorff_alpha(J(data), level=level) == pytest.approx(ref, abs=1e-12)


@SETTINGS
@given(reliability(max_raters=5, max_units=15), st.sampled_from(LEVELS))
def test_alpha_same_from_long_table_csv_and_matrix(tmp_path_factory, data, level):
    r, u = np.nonzero(~np.isnan(data))
    long = pd.DataFrame({"item": u, "coder": r, "score": data[r, u].astype(int)})
    before = long.copy()
    try: a = krippendorff_alpha(J(data), level=level)
    except ValueError:
        return
    assert krippendorff_alpha(long, level=level, unit="item", worker="coder", label="score") == pytest.approx(a, abs=1e-12)
    pd.testing.assert_frame_equal(long, before)                      # the caller's table is not modified
    p = tmp_path_factory.mktemp("csv") / "r.csv"
    long.to_csv(p, index=False)
    assert krippendorff_alpha(p, level=level, unit="item", worker="coder", label="score") == pytest.approx(a, abs=1e-12)


def test_alpha_label_order_and_strings():
    import krippendorff
    words = np.array([["low", "mid", None], ["low", "high", "high"], ["mid", "mid", "high"]], dtype=object)
    dom = ["low", "mid", "high"]
    ref = krippendorff.alpha(np.array([[0, 1, nan], [0, 2, 2], [1, 1, 2]]), level_of_measurement="ordinal")
    assert krippendorff_alpha(J(words, labels=dom), "ordinal") == pytest.approx(ref, abs=1e-14)
    assert krippendorff_alpha(J(words), "ordinal", labels=dom) == pytest.approx(ref, abs=1e-14)
    with pytest.raises(ValueError, match="pass labels= in their scale order"):
        krippendorff_alpha(J(words), "ordinal")
    with pytest.raises(ValueError, match="labels .'high'. occur in the judgments"):
        krippendorff_alpha(J(words), labels=["low", "mid"])
    with pytest.raises(TypeError, match="level='interval' needs numeric labels"):
        krippendorff_alpha(J(words), "interval")


def test_alpha_declared_numeric_order_is_the_ordinal_scale():
    "labels= in a non-sorted order is the ordinal scale: same as recoding the values by their declared rank."
    import krippendorff
    data = np.array([[1, 2, 3, 3], [1, 3, 3, 2], [2, 2, 3, 1]], float)
    rank = {3: 0, 1: 1, 2: 2}
    ref = krippendorff.alpha(np.vectorize(rank.get)(data).astype(float), level_of_measurement="ordinal")
    assert krippendorff_alpha(J(data), "ordinal", labels=[3, 1, 2]) == pytest.approx(ref, abs=1e-14)


def test_alpha_degenerate():
    with pytest.raises(ValueError, match="at least two workers"): krippendorff_alpha(J([[1, 2, 3]]))
    with pytest.raises(UndefinedAgreement, match="no unit has judgments from two"): krippendorff_alpha(J([[1, nan], [nan, 2]]))
    with pytest.raises(UndefinedAgreement, match="no variation"): krippendorff_alpha(J([[3, 3], [3, 3]]))
    with pytest.raises(ValueError, match="non-negative"): krippendorff_alpha(J([[-1, 2], [1, 2]]), "ratio")
    with pytest.raises(TypeError): krippendorff_alpha(123)
    import krippendorff
    d = [[1, 1, 1, 1], [1, 2, 3, 1], [1, 2, 2, 1]]          # a constant rater among varying ones: ordinary data
    assert krippendorff_alpha(J(d), "interval") == pytest.approx(krippendorff.alpha(d, level_of_measurement="interval"), abs=1e-14)


def test_coincidence_matrix_and_counts_identities():
    j = J(KRIPP)
    n = unit_value_counts(j)
    assert list(n.columns) == [1, 2, 3, 4, 5] and n.index.name == "unit" and n.columns.name == "label"
    o = coincidence_matrix(n)
    assert np.allclose(o, o.T)
    m = (~np.isnan(KRIPP)).sum(0)                            # each pairable unit contributes its m_u values
    assert o.sum() == pytest.approx(m[m >= 2].sum())
    codes, labels = reliability_codes(j)
    assert codes.shape == (4, 12) and list(labels) == [1, 2, 3, 4, 5]
    np.testing.assert_array_equal(np.where(codes.to_numpy() < 0, nan, labels.to_numpy()[codes.to_numpy()]), KRIPP)


def test_alpha_bootstrap_seeded_and_consistent():
    a = alpha_bootstrap(J(KRIPP), "ordinal", n_boot=300, seed=7, progress=False)
    b = alpha_bootstrap(J(KRIPP), "ordinal", n_boot=300, seed=7, progress=False, batch=17)   # batching is invisible
    assert np.array_equal(a.samples, b.samples)
    assert a.alpha == pytest.approx(0.8153875037548814, abs=1e-12)
    assert a.low <= a.alpha <= a.high and len(a.samples) + a.n_undefined == 300
    assert abs(np.mean(a.samples) - a.alpha) < 0.1
    with pytest.raises(ValueError, match="ci must be in"): alpha_bootstrap(J(KRIPP), ci=1.5)
    c = alpha_bootstrap(J(KRIPP), "ordinal", n_boot=300, seed=np.random.default_rng(7), progress=False)
    assert np.array_equal(a.samples, c.samples)                       # an int seed and its Generator agree


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
@given(two_raters(), st.sampled_from(["identity", "linear", "quadratic"]))
def test_cohen_kappa_parity_with_sklearn(ab, weights):
    """Weights over the label set of the judgments (every label either worker used), as sklearn's labels=."""
    from sklearn.metrics import cohen_kappa_score
    a, b = ab
    both = ~np.isnan(a) & ~np.isnan(b)
    if not both.any():
        with pytest.raises(ValueError): cohen_kappa(J([a, b]), weights=weights)
        return
    labels = np.unique(np.concatenate([a[~np.isnan(a)], b[~np.isnan(b)]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = cohen_kappa_score(a[both], b[both], weights=None if weights == "identity" else weights, labels=labels)
    if not np.isfinite(ref):
        with pytest.raises(UndefinedAgreement, match="expected agreement is 1"): cohen_kappa(J([a, b]), weights=weights)
    else:
        assert cohen_kappa(J([a, b]), weights=weights) == pytest.approx(ref, abs=1e-12)


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
    pi = scott_pi(J([a, b]))
    table, _ = aggregate_raters(np.stack([a[both], b[both]], axis=1).astype(int))
    assert pi == pytest.approx(sm_fleiss(table, method="fleiss"), abs=1e-12)
    n = both.sum()
    alpha = krippendorff.alpha(np.stack([a[both], b[both]]), level_of_measurement="nominal")
    assert 1 - alpha == pytest.approx((2 * n - 1) / (2 * n) * (1 - pi), abs=1e-12)


def test_kappa_picks_a_pair_of_workers_by_id():
    from sklearn.metrics import cohen_kappa_score
    sim = simulate_crowd(n_units=50, n_workers=5, workers_per_unit=4, seed=3)
    df = sim.judgments
    wide = df.pivot(index="unit", columns="worker", values="label")
    for a, b in [("w0", "w3"), ("w4", "w1")]:
        both = wide[[a, b]].dropna()
        ref = cohen_kappa_score(both[a], both[b])
        assert cohen_kappa(df, workers=(a, b)) == pytest.approx(ref, abs=1e-12)
        assert cohen_kappa(df, workers=[b, a]) == pytest.approx(ref, abs=1e-12)
    with pytest.raises(ValueError, match=r"the judgments have 5 .*pass workers=\(a, b\)"): cohen_kappa(df)
    with pytest.raises(ValueError, match=r"workers \['w9'\] are not among"): scott_pi(df, workers=("w0", "w9"))


@SETTINGS
@given(reliability(missing=False, max_raters=7, max_units=30))
def test_fleiss_parity_with_statsmodels(data):
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss, aggregate_raters
    table, _ = aggregate_raters(data.T.astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sm_fleiss(table, method="fleiss")
    if not np.isfinite(ref):
        with pytest.raises(ValueError): fleiss_kappa(J(data))
    else:
        assert fleiss_kappa(J(data)) == pytest.approx(ref, abs=1e-12)
        assert fleiss_kappa_counts(table) == pytest.approx(ref, abs=1e-12)


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
    try: ours = fleiss_kappa(J(data))
    except ValueError:
        return
    assert ours == pytest.approx(_fleiss_brute(data), abs=1e-12)
    assert fleiss_kappa(J(data), missing="pooled") == ours


def test_fleiss_published_example_and_gwet_option():
    t = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                  [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
    assert round(fleiss_kappa_counts(t), 3) == 0.210
    with pytest.raises(ValueError, match="non-negative integers"): fleiss_kappa_counts(-t)
    with pytest.raises(TypeError, match="fleiss_kappa_counts"): fleiss_kappa(t, counts=True)
    j = J(KRIPP)
    try:
        from crowdnb.chance import fleiss_kappa_gwet
    except ImportError:
        with pytest.raises(NotImplementedError, match="missing='gwet'"): fleiss_kappa(j, missing="gwet")
    else:
        g = fleiss_kappa(j, missing="gwet")
        assert isinstance(g, float) and g == float(fleiss_kappa_gwet(j))
        # no missing ratings: Gwet's convention and the pooled one are the same statistic (Fleiss 1971)
        full = J(np.array([[1, 2, 3, 3, 2], [1, 2, 3, 3, 1], [2, 2, 3, 1, 2]], float))
        assert fleiss_kappa(full, missing="gwet") == pytest.approx(fleiss_kappa(full), abs=1e-12)


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
    got = {(r.category, r.worker1, r.worker2): (r.shared, r.agreements, r.observed, r.expected, r.kappa)
           for r in res.pairs.itertuples()}
    assert set(got) == set(brute)
    for k, v in brute.items():
        assert got[k][:2] == v[:2]
        assert np.allclose(got[k][2:], v[2:], atol=1e-12, rtol=0)


YESNO = dict(unit="q", worker="rater", label="ans", sep=";", labels=["on", "in", "over"], empty="label",
             duplicates="count")


@SETTINGS
@given(annotations("yesno"))
def test_pairwise_yesno_against_brute_force(df):
    brute = _brute_pairs(df, ["q"], "yesno", ["on", "in", "over"])
    if not brute:
        with pytest.raises(ValueError, match="no two workers share"):
            pairwise_agreement(df, **YESNO)
        return
    before = df.copy()
    res = pairwise_agreement(df, **YESNO)
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
    res = pairwise_agreement(df, rule="choice", candidates={q: 3 + q for q in range(5)}, unit="q", worker="rater",
                             label="ans", dimension="cat", duplicates="count")
    _compare(res, brute)
    for c in ["on", "in"]:
        sel = [v for kk, v in brute.items() if kk[0] == c]
        if sel:
            s = np.array([v[0] for v in sel]); o = np.array([v[2] for v in sel])
            assert res.by_category.loc[c, "observed"] == pytest.approx((s * o).sum() / s.sum(), abs=1e-12)


@SETTINGS
@given(st.integers(0, 10_000))
def test_pairwise_kappa_is_cohens_kappa_of_the_pair(seed):
    """Without duplicate answers, each pair's kappa is Cohen's kappa of the two workers' yes/no answers."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame([(q, r, "yes" if rng.random() < 0.4 else "no") for q in range(12) for r in "abc"
                       if rng.random() < 0.8], columns=["unit", "worker", "label"])
    try: res = pairwise_agreement(df, none="no")
    except ValueError:
        return
    for r in res.pairs.itertuples():
        if r.expected < 1:
            assert r.kappa == pytest.approx(cohen_kappa(df, workers=(r.worker1, r.worker2)), abs=1e-12)


def test_pairwise_errors_and_filters():
    df = pd.DataFrame({"q": [1, 1, 2, 2], "r": ["a", "b", "a", "b"], "ans": ["yes", "yes", "no", "yes"]})
    kw = dict(unit="q", worker="r", label="ans", none="no")
    with pytest.raises(ValueError, match="rule must be one of"): pairwise_agreement(df, rule="vote", **kw)
    with pytest.raises(ValueError, match="duplicates must be one of"): pairwise_agreement(df, duplicates="x", **kw)
    with pytest.raises(ValueError, match="after the filter workers=\\['z'\\]"): pairwise_agreement(df, workers=["z"], **kw)
    with pytest.raises(ValueError, match="unit column 'q' has missing ids at row 1"):
        pairwise_agreement(df.assign(q=[1, None, 2, 2]), **kw)
    with pytest.raises(TypeError, match="Judgments.from_matrix"): pairwise_agreement(df.to_numpy(), **kw)
    res = pairwise_agreement(df, **kw)
    assert res.pairs.loc[0, "shared"] == 2 and res.pairs.loc[0, "observed"] == 0.5
    assert list(res.workers) == ["a", "b"] and res.workers.name == "worker"


# ---------------------------------------------------------------- the published spatial-prepositions tables
def test_spatial_prepositions_tables_reproduced():
    folder = shared("spatial-prepositions-2019")
    ours = spatial_prepositions_agreements(folder)
    for name, fname in [("semantic", "semantic agreements.csv"), ("comparative", "comparative agreements.csv")]:
        n_users, pub = read_published_agreements(folder / fname)
        mine = agreement_table(ours[name])
        assert len(ours[name].workers) == n_users
        assert list(mine.index) == list(pub.index)
        assert mine["shared"].tolist() == pub["shared"].tolist()
        np.testing.assert_allclose(mine[["expected", "observed", "kappa"]].to_numpy(),
                                   pub[["expected", "observed", "kappa"]].to_numpy(), rtol=0, atol=1e-9)


def test_alpha_rejects_infinite_values():
    """An infinite rating would make the interval/ratio distances infinite and alpha a silent NaN."""
    for level in ("interval", "ratio"):
        with pytest.raises(ValueError, match="infinite"):
            krippendorff_alpha(J([[1, np.inf, 2], [1, 2, 2]]), level=level)
        with pytest.raises(ValueError, match="infinite"):
            alpha_bootstrap(pd.DataFrame({"unit": [1, 1], "worker": [1, 2], "label": [1, np.inf]}), level,
                            n_boot=5, seed=0, progress=False)


def test_weighted_kappa_of_string_labels_needs_their_order():
    """Sorted strings are not a scale order ('hi' < 'lo' < 'mid'): weighted kappa/pi refuse them without labels=,
    and with labels= equal scikit-learn on the integer codes of that order."""
    from sklearn.metrics import cohen_kappa_score
    a, b = ["lo", "mid", "mid", "hi", "lo"], ["lo", "hi", "mid", "hi", "mid"]
    ab = pd.DataFrame({"x": a, "y": b})
    order = {"lo": 0, "mid": 1, "hi": 2}
    for w in ("linear", "quadratic"):
        with pytest.raises(ValueError, match="labels="): cohen_kappa(Judgments.from_matrix(ab), weights=w)
        with pytest.raises(ValueError, match="labels="): scott_pi(Judgments.from_matrix(ab), weights=w)
        ref = cohen_kappa_score([order[v] for v in a], [order[v] for v in b], weights=w)
        assert cohen_kappa(Judgments.from_matrix(ab), weights=w, labels=list(order)) == pytest.approx(ref, abs=1e-14)
    assert cohen_kappa(Judgments.from_matrix(ab)) == pytest.approx(cohen_kappa_score(a, b), abs=1e-14)


# ---------------------------------------------------------------- four ways in, one answer
def test_four_ways_in_give_identical_results(tmp_path):
    """simulate_crowd as Judgments, as a long table with renamed columns, as a CSV path and through
    Judgments.from_matrix: every front-door function gives the same result."""
    sim = simulate_crowd(n_units=40, n_workers=7, n_labels=3, workers_per_unit=4, seed=8)
    df = sim.judgments
    renamed = df.rename(columns={"unit": "item", "worker": "annotator", "label": "answer"})
    cols = dict(unit="item", worker="annotator", label="answer")
    path = tmp_path / "crowd.csv"
    renamed.to_csv(path, index=False)
    wide = df.pivot(index="unit", columns="worker", values="label")
    ways = [(as_judgments(df), {}), (renamed, cols), (path, cols), (Judgments.from_matrix(wide), {})]
    before = renamed.copy()
    results = []
    for data, kw in ways:
        b = alpha_bootstrap(data, n_boot=50, seed=3, progress=False, **kw)
        p = pairwise_agreement(data, **kw)
        results.append(dict(alpha=krippendorff_alpha(data, **kw), fleiss=fleiss_kappa(data, **kw),
                            boot=(b.alpha, b.low, b.high, tuple(b.samples)), pairs=p.pairs, by_cat=p.by_category,
                            kappa=cohen_kappa(data, workers=("w1", "w4"), **kw),
                            counts=unit_value_counts(data, **kw)))
    pd.testing.assert_frame_equal(renamed, before)
    for r in results[1:]:
        for k in ("alpha", "fleiss", "boot", "kappa"): assert r[k] == results[0][k], k
        pd.testing.assert_frame_equal(r["pairs"], results[0]["pairs"])
        pd.testing.assert_frame_equal(r["by_cat"], results[0]["by_cat"])
        pd.testing.assert_frame_equal(r["counts"], results[0]["counts"], check_names=False)
    assert list(results[0]["pairs"].columns[:3]) == ["category", "worker1", "worker2"]
