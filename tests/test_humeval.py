"""Tests of crowdnb.humeval: error injection properties (hypothesis), OLS parity with statsmodels, alpha parity
with the `krippendorff` package, mode parity with scipy, recovery of planted penalties and outliers, bad input."""
import re
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from crowdnb.core import Judgments, as_judgments
from crowdnb.humeval import (ERROR_TYPES, PAPER_METRICS, EXAMPLE_PASSAGES, check_clustering, parse_brackets, inject_errors,
                             error_corpus, ratings_matrix, convert, reverse, to_unit, simple_items, alpha_table,
                             human_scores, metric_gap_table, fit_linear, error_regression, simulate_ratings,
                             metric_scores)


# ---------------------------------------------------------------- error injection
@st.composite
def documents(draw):
    "A random gold clustering: disjoint spans of 1-3 tokens, grouped into chains of sizes 1-6."
    n_tokens = draw(st.integers(20, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    pos, spans = 0, []
    while pos < n_tokens:
        pos += int(rng.integers(0, 4))
        L = int(rng.integers(1, 4))
        if pos + L > n_tokens: break
        spans.append((pos, pos + L - 1)); pos += L
    labels = rng.integers(0, max(1, len(spans) // 3), len(spans))
    chains = [tuple(s for s, l in zip(spans, labels) if l == k) for k in np.unique(labels)]
    return [c for c in chains if c], n_tokens

mentions = lambda cl: {m for c in cl for m in c}
links = lambda cl: sum(len(c) >= 2 for c in cl)

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.sampled_from(ERROR_TYPES), st.integers(0, 10**6))
def test_single_error_signature(doc, t, seed):
    "One error of each type leaves exactly its signature on the clustering (or fails with a clear message)."
    gold, n = doc
    before = [tuple(c) for c in gold]
    try:
        resp, done = inject_errors(gold, {t: 1}, n_tokens=n, seed=seed)
    except ValueError as e:
        assert "cannot inject 1" in str(e) and repr(t) in str(e)
        return
    assert gold == before                                    # not mutated
    check_clustering(resp, n)                                # valid, no duplicate mention, inside the document
    assert done == {k: int(k == t) for k in ERROR_TYPES}
    g, r = check_clustering(gold), resp
    gm, rm = mentions(g), mentions(r)
    if t == "absence": assert set(r) < set(g) and links(g) - links(r) == 1
    if t == "silence": assert rm < gm and len(gm - rm) == 1 and links(r) == links(g)
    if t == "noise":
        assert gm < rm and len(rm - gm) == 1
        s, e = next(iter(rm - gm))
        assert not any(a <= e and s <= b for a, b in gm)     # a span outside every gold mention
    if t == "type": assert gm == rm and set(g) != set(r) and links(r) == links(g)
    if t == "border":
        (old,), (new,) = gm - rm, rm - gm
        assert sum(abs(np.subtract(old, new))) == 1          # one boundary moved by one token
    if t == "irrelevant": assert links(r) == links(g) + 1

@settings(max_examples=60, deadline=None)
@given(documents(), st.dictionaries(st.sampled_from(ERROR_TYPES), st.integers(0, 3)), st.integers(0, 10**6))
def test_mixed_errors_deterministic_and_bounded(doc, counts, seed):
    gold, n = doc
    a = inject_errors(gold, counts, n_tokens=n, seed=seed, on_fail="skip")
    b = inject_errors(gold, counts, n_tokens=n, seed=seed, on_fail="skip")
    assert a == b
    resp, done = a
    check_clustering(resp, n)
    assert all(done[t] <= counts.get(t, 0) for t in ERROR_TYPES)
    if done == {t: counts.get(t, 0) for t in ERROR_TYPES}:   # then the strict mode succeeds and agrees
        assert inject_errors(gold, counts, n_tokens=n, seed=seed) == a

def test_inject_bad_input():
    g = [((0, 0), (2, 2), (4, 4))]
    with pytest.raises(ValueError, match="unknown error type"): inject_errors(g, {"Border": 1})
    with pytest.raises(ValueError, match="beyond the document's 4 tokens"): inject_errors(g, {}, n_tokens=4)
    with pytest.raises(TypeError, match="counts must be a dict"): inject_errors(g, [("border", 1)])
    with pytest.raises(ValueError, match="n_tokens=3 but 5 tokens"): inject_errors(g, {}, n_tokens=3, tokens="a b c d e".split())
    with pytest.raises(ValueError, match="on_fail"): inject_errors(g, {}, on_fail="ignore")

def test_punctuation_never_noise():
    toks, gold = parse_brackets(EXAMPLE_PASSAGES["bakery"])
    for seed in range(30):
        resp, _ = inject_errors(gold, {"noise": 2, "irrelevant": 1}, tokens=toks, seed=seed)
        for s, e in mentions(resp) - mentions(gold):
            assert all(any(ch.isalnum() for ch in w) for w in toks[s:e + 1])


# ---------------------------------------------------------------- scales and ratings
def test_scale_mappings_exhaustive():
    every = pd.DataFrame({"unit": [f"a{i}" for i in range(8)], "worker": "r", "label": np.arange(8)})
    assert convert(every, "reduced").iloc[0].tolist() == [0, 1, 1, 2, 2, 3, 3, 4]
    assert convert(every, "gravity").iloc[0].tolist() == [0, 0, 0, 1, 1, 1, 1, 2]
    assert convert(every, "importance").iloc[0].tolist() == [0, 1, 1, 0, 0, 1, 1, 2]
    assert reverse(every).iloc[0].tolist() == [7, 6, 5, 4, 3, 2, 1, 0]
    np.testing.assert_allclose(to_unit(every).iloc[0], np.arange(8) / 7)

@pytest.mark.parametrize("bad, msg", [
    ({"q1": [7, 9]}, "outside the standard scale"),
    ({"q1": [7, -1]}, "outside the standard scale"),
    ({"q1": [7, 2.5]}, "worker 'b', unit 'q1': 2.5"),
    ({"q1": [7, np.inf]}, "infinite value"),
])
def test_ratings_bad_input(bad, msg):
    "Raters x items tables enter transposed through from_matrix; bad answers name the rater and the item."
    with pytest.raises(ValueError, match=re.escape(msg)):
        ratings_matrix(Judgments.from_matrix(pd.DataFrame(bad, index=["a", "b"]).T))

def test_ratings_type_errors():
    with pytest.raises(TypeError, match="ratings must be numbers"):
        ratings_matrix(pd.DataFrame({"unit": ["q", "q"], "worker": ["a", "b"], "label": ["seven", "six"]}))
    with pytest.raises(TypeError, match="from_matrix"): ratings_matrix(np.array([[7, 6]]))
    with pytest.raises(ValueError, match=re.escape("Judgments.from_matrix(table.T)")):
        ratings_matrix(pd.DataFrame({"q": [7, 6]}))                     # a wide table is never guessed


# ---------------------------------------------------------------- Table 1
def _sim(seed=4, n_items=150, **kw):
    toks, gold = {}, {}
    for k, v in EXAMPLE_PASSAGES.items(): toks[k], gold[k] = parse_brackets(v)
    corpus = error_corpus(gold, n_items=n_items, multi=0.2, tokens=toks, seed=2022)
    return corpus, simulate_ratings(corpus.counts, seed=seed, **kw)

@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_table1_alpha_matches_krippendorff_package(level):
    krippendorff = pytest.importorskip("krippendorff")
    corpus, sim = _sim(missing=0.1)
    R = sim.judgments
    t1 = alpha_table(R, level=level)
    simple = simple_items(R)
    for s in ("standard", "reduced", "gravity", "importance"):
        S = convert(R, s)
        dom = list(range({"standard": 8, "reduced": 5}.get(s, 3)))
        for subset, items in (("all", S.columns), ("simple", simple)):
            ref = krippendorff.alpha(reliability_data=S[items].to_numpy(), level_of_measurement=level,
                                     value_domain=dom)
            assert t1.loc[(s, subset), "alpha"] == pytest.approx(ref, abs=1e-10)
            out = list(t1.loc[(s, subset), "outliers"])
            if out:
                ref2 = krippendorff.alpha(reliability_data=S[items].drop(index=out).to_numpy(),
                                          level_of_measurement=level, value_domain=dom)
                assert t1.loc[(s, subset), "alpha_without_outliers"] == pytest.approx(ref2, abs=1e-10)

@pytest.mark.parametrize("seed", [1, 4, 9])
def test_table1_flags_planted_outliers(seed):
    corpus, sim = _sim(seed=seed)
    t1 = alpha_table(sim.judgments, scales=["standard"])
    assert set(t1.loc[("standard", "all"), "outliers"]) == set(sim.outlier.index[sim.outlier])

def test_simple_items_by_hand():
    R = Judgments.from_matrix(pd.DataFrame({"q1": [0, 1, 2, 3], "q2": [0, 0, 7, 7], "q3": [5, 6, 7, np.nan]}).T)
    assert list(simple_items(R)) == ["q2", "q3"]
    assert list(simple_items(R, max_distinct=4)) == ["q1", "q2", "q3"]


# ---------------------------------------------------------------- Table 2
@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10**6))
def test_mode_matches_scipy_low_ties(seed):
    from scipy import stats
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 8, (5, 20)).astype(float)
    v[rng.random(v.shape) < 0.2] = np.nan
    v[0] = np.where(np.isnan(v[0]), 3, v[0])                   # every item keeps an answer
    R = Judgments.from_matrix(pd.DataFrame(v, columns=[f"q{i:02d}" for i in range(20)]).T)   # ids sort as the columns
    ref = stats.mode(v, axis=0, nan_policy="omit").mode
    np.testing.assert_allclose(human_scores(R)["mode"].to_numpy(), np.asarray(ref, float) / 7)
    np.testing.assert_allclose(human_scores(R)["mean"].to_numpy(), np.nanmean(v, axis=0) / 7)

def test_table2_identity_and_errors():
    corpus, sim = _sim()
    M = pd.DataFrame({"m1": np.linspace(0.5, 1, 150), "m2": 0.9}, index=corpus.counts.index)
    J = sim.judgments
    t2 = metric_gap_table(J, M)
    h = to_unit(J).mean(axis=0)                                # per-item mean on [0, 1]
    assert t2.loc[("standard", "mean"), "m1"] == pytest.approx((M["m1"] - h).mean())
    assert metric_gap_table(J, M, absolute=True).loc[("standard", "mean"), "m1"] == pytest.approx((M["m1"] - h).abs().mean())
    with pytest.raises(ValueError, match="unit ids do not match"): metric_gap_table(J, M.iloc[1:])
    with pytest.raises(ValueError, match="percentages"): metric_gap_table(J, M * 100)
    with pytest.raises(ValueError, match="missing values"): metric_gap_table(J, M.assign(m2=np.nan))


# ---------------------------------------------------------------- Tables 3-4
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_fit_linear_matches_statsmodels(seed, standardise):
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(seed)
    n, p = 60, 4
    X = rng.poisson(0.7, (n, p)).astype(float)
    Y = X @ rng.normal(size=(p, 3)) + rng.normal(size=(n, 3))
    Y[rng.random(Y.shape) < 0.15] = np.nan
    coef, se, icpt, nn = fit_linear(X, Y, standardise=standardise)
    for j in range(3):
        ok = ~np.isnan(Y[:, j]); Xo = X[ok]
        sd = Xo.std(axis=0)
        keep = sd > 0
        Z = (Xo[:, keep] - Xo[:, keep].mean(0)) / (sd[keep] if standardise else 1)
        fit = sm.OLS(Y[ok, j], sm.add_constant(Z, has_constant="add")).fit()
        np.testing.assert_allclose(coef[j, keep], fit.params[1:], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(se[j, keep], fit.bse[1:], rtol=1e-8, atol=1e-10)
        assert nn[j] == ok.sum()
        if not standardise:
            raw = sm.OLS(Y[ok, j], sm.add_constant(Xo[:, keep], has_constant="add")).fit()
            assert icpt[j] == pytest.approx(raw.params[0], rel=1e-8, abs=1e-10)

def test_regression_recovers_planted_penalties():
    "Per-error penalties of the non-outlier raters lie within 4 OLS standard errors (and 0.5 points) of the planted ones."
    for seed in (4, 11):
        corpus, sim = _sim(seed=seed)
        good = sim.outlier.index[~sim.outlier]
        reg = error_regression(sim.judgments, corpus.counts, scales=["standard"], include_mean=False,
                               exclude=list(sim.outlier.index[sim.outlier]), target="raw", standardise=False)
        est = -reg.coef.loc[[f"STANDARD_{r}" for r in good]].to_numpy()
        se = reg.se.loc[[f"STANDARD_{r}" for r in good]].to_numpy()
        planted = sim.penalties.loc[good].to_numpy()
        assert np.all(np.abs(est - planted) < 4 * se)
        assert np.all(np.abs(est - planted) < 0.5)

def test_regression_conventions_and_drop():
    corpus, sim = _sim()
    a = error_regression(sim.judgments, corpus.counts)
    b = error_regression(sim.judgments, corpus.counts, convention="reversed")
    np.testing.assert_allclose(a.coef.to_numpy(), -b.coef.to_numpy())
    d = error_regression(sim.judgments, corpus.counts, drop_nonnegative=True)
    assert (d.coef.fillna(-1).to_numpy() < 0).all()
    np.testing.assert_array_equal(np.isnan(d.coef.to_numpy()), np.isnan(a.coef.to_numpy()) | (a.coef.to_numpy() >= 0))
    r = error_regression(sim.judgments, corpus.counts, ridge=1.0)
    assert np.isnan(r.se.to_numpy()).all() and np.isfinite(r.coef.to_numpy()).all()

def test_regression_bad_input():
    corpus, sim = _sim()
    J = sim.judgments
    one = corpus.counts[corpus.counts.sum(axis=1) == 1]
    with pytest.raises(ValueError, match="cannot fit model 'STANDARD_MEAN'.*collinear"):
        error_regression(J[J.unit.isin(one.index)], one)
    with pytest.raises(ValueError, match="missing from error_counts"):
        error_regression(J, corpus.counts.iloc[:-1])
    with pytest.raises(ValueError, match="nobody rated"):
        error_regression(J[J.unit != corpus.counts.index[-1]], corpus.counts)
    with pytest.raises(ValueError, match="non-negative integers"):
        error_regression(J, corpus.counts * 0.5)
    with pytest.raises(ValueError, match="every rater was excluded"):
        error_regression(J, corpus.counts, exclude=list(sim.ratings.index))


# ---------------------------------------------------------------- metrics wrapper
def test_metric_scores_perfect_and_empty():
    k = {"a": [((0, 0), (2, 2), (4, 4))], "b": [((0, 1), (3, 3))]}
    perfect = metric_scores(k, k)
    np.testing.assert_allclose(perfect["f1"].to_numpy(), 1.0)
    assert list(perfect.index) == ["a", "b"] and perfect.index.name == "unit"
    assert list(perfect.columns.names) == ["measure", "metric"]
    assert list(perfect["recall"].columns) == list(PAPER_METRICS)       # coref's names, not display names
    rec = metric_scores(k, {"a": [], "b": []})["recall"]
    np.testing.assert_allclose(rec[["muc", "bcub", "ceafm", "ceafe", "lea"]].to_numpy(), 0.0)


# ---------------------------------------------------------------- undefined Table 1 cells, simulation input
def test_table1_undefined_cells_are_reported_not_fatal():
    """No simple item, or raters who never agree (every subset alpha < 0): NaN / no outliers and a note, by hand."""
    spread = pd.DataFrame([[0, 0, 7], [3, 3, 0], [5, 5, 3], [7, 7, 5]], index=list("abcd"), columns=["q1", "q2", "q3"])
    t1 = alpha_table(Judgments.from_matrix(spread.T), scales=["standard"])
    simple = t1.loc[("standard", "simple")]
    assert simple["n_items"] == 0 and np.isnan(simple["alpha"]) and simple["outliers"] == ()
    assert "alpha undefined" in simple["note"]
    full = t1.loc[("standard", "all")]
    krippendorff = pytest.importorskip("krippendorff")
    assert full["alpha"] == pytest.approx(krippendorff.alpha(spread.to_numpy(float), level_of_measurement="nominal"))
    assert full["alpha"] < 0 and full["outliers"] == () and full["note"].startswith("trust coefficients undefined")
    # a cell with no variation at all: every answer 7
    same = pd.DataFrame(7, index=list("abc"), columns=["q1", "q2"])
    t = alpha_table(Judgments.from_matrix(same.T), scales=["standard"])
    assert np.isnan(t["alpha"]).all() and (t["note"].str.contains("no variation")).all()
    with pytest.raises(ValueError, match="level must be"):
        alpha_table(Judgments.from_matrix(spread.T), level="likert")


def test_simulate_ratings_rejects_bad_counts():
    counts = pd.DataFrame({"border": [1, 0], "silence": [0, 2]}, index=["q1", "q2"])
    with pytest.raises(ValueError, match="non-negative integers"):
        simulate_ratings(counts - 1, seed=0)
    with pytest.raises(ValueError, match="non-negative integers"):
        simulate_ratings(counts * 0.5, seed=0)


# ---------------------------------------------------------------- one front door
def test_same_results_from_every_input_form(tmp_path):
    """The same answers as Judgments, as a long DataFrame with the caller's column names, as a CSV path and as a
    wide raters x items table through Judgments.from_matrix give identical tables (Tables 1-4, ratings)."""
    corpus, sim = _sim(n_items=60, missing=0.05)
    names = dict(unit="item", worker="rater", label="rating")
    renamed = sim.judgments.rename(columns={"unit": "item", "worker": "rater", "label": "rating"})
    before = renamed.copy()
    csv = tmp_path / "ratings.csv"; renamed.to_csv(csv, index=False)
    ways = {"judgments": (as_judgments(renamed, **names), {}), "long": (renamed, names), "csv": (csv, names),
            "csv-str": (str(csv), names), "wide": (Judgments.from_matrix(sim.ratings.T), {})}
    scores = metric_scores(corpus.key, corpus.response)
    out = {}
    for k, (d, kw) in ways.items():
        out[k] = (ratings_matrix(d, **kw), alpha_table(d, scales=["standard", "gravity"], **kw),
                  metric_gap_table(d, scores, **kw), error_regression(d, corpus.counts, scores, **kw).coef,
                  human_scores(d, "reduced", **kw), list(simple_items(d, **kw)))
    ref = out["judgments"]
    for k, got in out.items():
        for a, b in zip(got, ref):
            if isinstance(a, list): assert a == b, k
            else: pd.testing.assert_frame_equal(a, b, obj=k)
    pd.testing.assert_frame_equal(ref[0], sim.ratings)              # and the wide table the simulation drew
    pd.testing.assert_frame_equal(renamed, before)                  # nothing mutated


def test_rater_with_too_few_answers_is_skipped_and_named():
    corpus, sim = _sim(n_items=80)
    J = sim.judgments
    few = pd.DataFrame({"unit": corpus.counts.index[:3], "worker": "late", "label": [7, 6, 5]})
    with pytest.warns(UserWarning, match="skipped rater\\(s\\) 'late'"):
        reg = error_regression(pd.concat([J, few], ignore_index=True), corpus.counts, scales=["standard", "gravity"])
    assert list(reg.skipped.index) == ["STANDARD_late", "GRAVITY_late"]
    assert reg.coef.loc[["STANDARD_late", "GRAVITY_late"]].isna().all().all()
    ref = error_regression(J, corpus.counts, scales=["standard", "gravity"], include_mean=False)
    got = reg.coef.loc[ref.coef.index]
    pd.testing.assert_frame_equal(got, ref.coef)                    # the other raters are untouched
