"""Chance-corrected agreement (crowdnb.chance): parity with Gwet's irrCAC (Python port irrcac 0.4.4, through the
fixtures that tools/oracles/irrcac_fixtures.py writes; irrcac itself never runs here), published values (Gwet 2014,
Fleiss 1971, Krippendorff 2011), reference packages (scikit-learn's Cohen kappa, statsmodels' Fleiss kappa,
krippendorff's alpha), identities, the bootstrap, and bad input."""
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

from crowdnb.core import Judgments, as_judgments
from crowdnb.chance import (WEIGHTS, COEFFICIENTS, ChanceAgreement, UndefinedCoefficient, agreement_weights,
                            gwet_ac, fleiss_kappa_gwet, conger_kappa, krippendorff_alpha_gwet, brennan_prediger,
                            percent_agreement, coefficient_table, _prepare, _boot_estimates)

FIX = Path(__file__).parent / "fixtures" / "irrcac"
FUNCS = {"gwet": gwet_ac, "fleiss": fleiss_kappa_gwet, "conger": conger_kappa, "krippendorff": krippendorff_alpha_gwet,
         "bp": brennan_prediger}
ROWS = {"gwet": None, "fleiss": "Fleiss' kappa", "conger": "Conger's kappa", "krippendorff": "Krippendorff's alpha",
        "bp": "Brennan-Prediger"}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
nan = np.nan
GWET4 = np.array([[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4],
                  [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, nan, 3, nan]])


def _cases():
    out = []
    for f in sorted(FIX.glob("*.json")):
        for case in json.loads(f.read_text())["cases"]:
            out.append(pytest.param(case, id=f"{f.stem}:{case['name'][:40]}"))
    return out


CASES = _cases()


def _judgments(case):
    return Judgments.from_matrix(np.array(case["matrix"], dtype=object), labels=case.get("labels"))


def _reference(ref, method):
    "irrcac's numbers, with the CI rebuilt from the exact t quantile and Brennan-Prediger's p-value made two-sided."
    ref = dict(ref)
    ref["ci_low"] = ref["estimate"] - ref["se"] * ref["t_exact"]
    ref["ci_high"] = min(1.0, ref["estimate"] + ref["se"] * ref["t_exact"])
    if method == "bp": ref["p_value"] = min(1.0, 2 * ref["p_value"])   # irrcac 0.4.4 halves it (R irrCAC: two-sided)
    return ref


def test_fixtures_present():
    assert len(CASES) >= 20, "run tools/oracles/irrcac_fixtures.py to write tests/fixtures/irrcac/"


@pytest.mark.parametrize("case", CASES)
def test_parity_with_irrcac(case):
    "Every coefficient, weighting and statistic within 1e-9 of irrcac 0.4.4 (differences are ~1e-14)."
    j = _judgments(case)
    for wname, res in case["results"].items():
        weights = case["custom_weights"] if wname == "custom" else wname
        table = coefficient_table(j, weights, ci=case["ci"], n_population=case["N"])
        for method, raw in res.items():
            ours = FUNCS[method](j, weights, ci=case["ci"], n_population=case["N"])
            ref = _reference(raw, method)
            for k in ("estimate", "se", "ci_low", "ci_high", "p_value", "pa", "pe"):
                assert abs(getattr(ours, k) - ref[k]) < 1e-9, (wname, method, k, getattr(ours, k), ref[k])
            # irrcac's own interval differs from the exact-t one only by scipy 1.12's t quantile error (~1e-8 x se)
            assert abs(raw["ci_low"] - ref["ci_low"]) < 2e-8
            row = ROWS[method] or ours.coefficient
            assert table.loc[row, "estimate"] == ours.estimate and table.loc[row, "se"] == ours.se
            assert table.loc[row, "weights"] == wname
            assert ours.n_units == raw["df"] + 1


def test_percent_agreement_two_raters_vs_table():
    "Complete two-rater data: irrcac's contingency-table percent agreement; raw variance = table variance x n/(n-1)."
    cases = [c for c in json.loads((FIX / "tables.json").read_text())["cases"] if "pa2_table" in c]
    assert cases
    for case in cases:
        j = _judgments(case)
        n = len(case["matrix"])
        for w, ref in case["pa2_table"].items():
            ours = percent_agreement(j, w)
            assert abs(ours.estimate - ref["estimate"]) < 1e-12
            assert abs(ours.se - ref["se"] * np.sqrt(n / (n - 1))) < 1e-12


def test_published_gwet_2014():
    "Gwet's Handbook (2014) values for raw_4raters, as irrcac's documentation prints them (5 decimals)."
    j = Judgments.from_matrix(GWET4)
    ac1, fk, ac2 = gwet_ac(j), fleiss_kappa_gwet(j), gwet_ac(j, "bipolar")
    got = [ac1.estimate, ac1.se, ac1.ci_low, ac1.ci_high, ac1.p_value, ac1.pa, ac1.pe,
           fk.estimate, fk.se, fk.ci_low, fk.p_value, fk.pe, ac2.estimate, ac2.se, ac2.ci_low, ac2.pa, ac2.pe]
    want = [0.77544, 0.14295, 0.46081, 1, 0.00021, 0.81818, 0.19032,
            0.76117, 0.15302, 0.42438, 0.00042, 0.23872, 0.90037, 0.10582, 0.66747, 0.96836, 0.68244]
    np.testing.assert_allclose(got, want, atol=5e-6)


def test_published_krippendorff_2011():
    "Krippendorff's reliability data (the same 4 x 12 matrix): nominal alpha 0.743, interval alpha 0.849."
    j = Judgments.from_matrix(GWET4)
    assert abs(krippendorff_alpha_gwet(j).estimate - 0.743) < 5e-4
    assert abs(krippendorff_alpha_gwet(j, "quadratic").estimate - 0.849) < 5e-4


def test_fleiss_gwet_vs_pooled_five_observers():
    "Gwet's convention 0.458 on irrCAC's five observers; the pooled convention (by hand) 0.464."
    case = next(c for c in json.loads((FIX / "datasets.json").read_text())["cases"] if c["name"] == "raw_5observers")
    j = _judgments(case)
    fk = fleiss_kappa_gwet(j)
    R = j.unit_vectors().toarray()
    pooled = R.sum(0) / R.sum()
    pe = (pooled ** 2).sum()
    assert round(fk.estimate, 3) == 0.458 and round((fk.pa - pe) / (1 - pe), 3) == 0.464


def test_fleiss_1971():
    "Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses: kappa = 0.430."
    counts = np.array([[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
                       [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
                       [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
                       [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0], [0, 2, 0, 4, 0], [1, 0, 2, 0, 3],
                       [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0], [1, 0, 0, 4, 1],
                       [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6]])
    rows = [(i, k, c) for i, row in enumerate(counts) for k, c in enumerate(np.repeat(np.arange(5), row))]
    df = pd.DataFrame(rows, columns=["unit", "worker", "label"])
    assert abs(fleiss_kappa_gwet(df).estimate - 0.430) < 5e-4
    from statsmodels.stats.inter_rater import fleiss_kappa
    assert abs(fleiss_kappa_gwet(df).estimate - fleiss_kappa(counts)) < 1e-12


@st.composite
def complete_two(draw):
    n = draw(st.integers(3, 40)); q = draw(st.integers(2, 5))
    a = draw(st.lists(st.integers(0, q - 1), min_size=n, max_size=n))
    b = draw(st.lists(st.integers(0, q - 1), min_size=n, max_size=n))
    return np.array(a), np.array(b), q


@SETTINGS
@given(complete_two(), st.sampled_from(["identity", "linear", "quadratic"]))
def test_conger_two_raters_is_cohen(ab, weights):
    "Two raters, complete data, labels 0..q-1: Conger's kappa = scikit-learn's (weighted) Cohen kappa."
    from sklearn.metrics import cohen_kappa_score
    a, b, q = ab
    df = pd.DataFrame({"unit": np.tile(np.arange(len(a)), 2), "worker": ["A"] * len(a) + ["B"] * len(a),
                       "label": np.concatenate([a, b])})
    labels = list(range(q))
    try: ours = conger_kappa(df, weights, labels=labels).estimate
    except UndefinedCoefficient: return                          # pe = 1: sklearn returns NaN there
    except ValueError as e:
        assert "two units rated" in str(e) or "two labels" in str(e); return
    ref = cohen_kappa_score(a, b, labels=labels, weights=None if weights == "identity" else weights)
    if np.isfinite(ref): assert abs(ours - ref) < 1e-10


@st.composite
def reliability(draw):
    r = draw(st.integers(2, 5)); n = draw(st.integers(3, 25)); q = draw(st.integers(2, 5))
    vals = draw(st.lists(st.one_of(st.none(), st.integers(1, q)), min_size=n * r, max_size=n * r))
    return np.array([nan if v is None else v for v in vals], float).reshape(n, r)


@SETTINGS
@given(reliability(), st.sampled_from([("identity", "nominal"), ("quadratic", "interval")]))
def test_krippendorff_estimate_vs_package(m, wl):
    "Gwet's formulation is Krippendorff's alpha: nominal = identity weights, interval = quadratic weights."
    import krippendorff
    weights, level = wl
    keep = (~np.isnan(m)).any(1)
    m = m[keep]
    if len(m) == 0: return
    try: ours = krippendorff_alpha_gwet(Judgments.from_matrix(m), weights).estimate
    except ValueError: return                                     # too few pairable units, one label, pe = 1
    ref = krippendorff.alpha(m.T, level_of_measurement=level)
    assert abs(ours - ref) < 1e-10


@SETTINGS
@given(reliability(), st.sampled_from(list(COEFFICIENTS)), st.sampled_from(["identity", "quadratic", "ordinal"]))
def test_batched_estimates_equal_direct(m, key, weights):
    "The bootstrap's batched formulas at unit multiplicities 1 (and 2, except alpha's small-sample term) give the estimates."
    m = m[(~np.isnan(m)).any(1)]
    if len(m) == 0: return
    try: p, _ = _prepare(Judgments.from_matrix(m), weights, {})
    except ValueError: return
    core = COEFFICIENTS[key]
    try: est = core(p).estimate
    except UndefinedCoefficient: return
    C = np.array([np.ones(p.n)] if key == "krippendorff" else [np.ones(p.n), 2 * np.ones(p.n)])
    got = _boot_estimates(core, p, C)
    assert np.allclose(got, est, atol=1e-12, rtol=0)


def test_bootstrap_reproducible_and_close_to_gwet():
    from crowdnb.core import simulate_crowd
    sim = simulate_crowd(n_units=500, n_workers=15, workers_per_unit=5, seed=7)
    j = as_judgments(sim.judgments, labels=sim.labels)
    a = coefficient_table(j, "quadratic", se="bootstrap", n_boot=300, seed=4)
    pd.testing.assert_frame_equal(a, coefficient_table(j, "quadratic", se="bootstrap", n_boot=300, seed=4))
    g = coefficient_table(j, "quadratic")
    pd.testing.assert_series_equal(a["estimate"], g["estimate"])
    ratio = a["se"] / g["se"]
    assert ratio.between(0.85, 1.15).all(), ratio
    assert (a["ci_low"] < a["estimate"]).all() and (a["estimate"] < a["ci_high"]).all()
    assert not a.equals(coefficient_table(j, "quadratic", se="bootstrap", n_boot=300, seed=5))
    r = gwet_ac(j, "quadratic", se="bootstrap", n_boot=300, seed=4)
    assert r.se_method == "bootstrap" and r.se == a.loc["Gwet's AC2", "se"]


def test_finite_population_correction():
    j = Judgments.from_matrix(GWET4)
    a, b = gwet_ac(j), gwet_ac(j, n_population=48)
    assert abs(b.se - a.se * np.sqrt(1 - 12 / 48)) < 1e-15
    k1, k2 = krippendorff_alpha_gwet(j), krippendorff_alpha_gwet(j, n_population=12)   # f = n/N with all 12 units
    assert k2.se == 0 and k2.ci_low == k2.estimate


def test_front_doors_agree_and_inputs_untouched(tmp_path):
    r, c = np.nonzero(~np.isnan(GWET4))
    df = pd.DataFrame({"item": r, "coder": c, "score": GWET4[r, c].astype(int)})
    before = df.copy()
    W = agreement_weights([1, 2, 3, 4, 5], "linear").to_numpy(); W0 = W.copy()
    via_df = coefficient_table(df, W, unit="item", worker="coder", label="score")
    df.to_csv(tmp_path / "r.csv", index=False)
    via_csv = coefficient_table(tmp_path / "r.csv", W, unit="item", worker="coder", label="score")
    via_j = coefficient_table(Judgments.from_matrix(GWET4), "linear")
    pd.testing.assert_frame_equal(via_df, via_csv)
    pd.testing.assert_frame_equal(via_df.drop(columns="weights"), via_j.drop(columns="weights"))
    assert (via_df["weights"] == "custom").all() and (via_j["weights"] == "linear").all()
    pd.testing.assert_frame_equal(df, before); np.testing.assert_array_equal(W, W0)


def test_invariant_to_unit_and_worker_order():
    j = Judgments.from_matrix(GWET4)
    rng = np.random.default_rng(0)
    m = GWET4[rng.permutation(12)][:, [2, 0, 3, 1]]
    pd.testing.assert_frame_equal(coefficient_table(j, "quadratic"), coefficient_table(Judgments.from_matrix(m), "quadratic"),
                                  rtol=1e-12)


def test_result_record():
    r = gwet_ac(Judgments.from_matrix(GWET4))
    assert isinstance(r, ChanceAgreement) and float(r) == r.estimate
    s = r.to_series()
    assert s.name == "Gwet's AC1" and s["weights"] == "identity" and s["ci"] == 0.95
    with pytest.raises(Exception): r.estimate = 0


# ---------------------------------------------------------------- bad input
J4 = Judgments.from_matrix(GWET4)
TWO = pd.DataFrame({"unit": [1, 1, 2, 2, 3, 3], "worker": ["v", "w"] * 3, "label": ["a", "a", "b", "b", "a", "b"]})
BAD = [
    (lambda: gwet_ac(J4, "quadratc"), ValueError, "weights must be one of 'identity'"),
    (lambda: gwet_ac(J4, [[1, 0, 0], [0, 1, 0]]), ValueError, "must be square, got shape (2, 3)"),
    (lambda: gwet_ac(J4, np.eye(3)), ValueError, "must be 5 x 5"),
    (lambda: gwet_ac(J4, np.full((5, 5), 0.5)), ValueError, "1 on the diagonal"),
    (lambda: gwet_ac(J4, np.eye(5) * 2 - 1 + np.eye(5) * 0), ValueError, "in [0, 1]"),
    (lambda: gwet_ac(J4, 3), TypeError, "or a square matrix of numbers"),
    (lambda: gwet_ac(J4, {"a": 1}), TypeError, "or a square matrix of numbers"),
    (lambda: gwet_ac(Judgments.from_matrix(GWET4 - 1), "ratio"), ValueError, "weights='ratio' needs positive labels"),
    (lambda: gwet_ac(J4, ci=1.5), ValueError, "ci must be in (0, 1); got 1.5"),
    (lambda: gwet_ac(J4, ci=0), ValueError, "ci must be in (0, 1)"),
    (lambda: gwet_ac(J4, ci="95%"), TypeError, "ci must be a number"),
    (lambda: gwet_ac(J4, se="jackknife"), ValueError, "se must be one of 'gwet', 'bootstrap'"),
    (lambda: gwet_ac(J4, se="bootstrap", n_boot=1), ValueError, "n_boot must be at least 2"),
    (lambda: gwet_ac(J4, se="bootstrap", n_boot=10.5), TypeError, "n_boot must be an integer"),
    (lambda: gwet_ac(J4, se="bootstrap", seed=-2), ValueError, "seed must be a non-negative int"),
    (lambda: gwet_ac(J4, se="bootstrap", seed="x"), TypeError, "seed must be"),
    (lambda: gwet_ac(J4, n_population=11), ValueError, "n_population must be in [12"),
    (lambda: gwet_ac(J4, n_population=float("inf")), ValueError, "n_population must be a finite number"),
    (lambda: gwet_ac(J4, se="bootstrap", n_population=100), ValueError, "applies to se='gwet' only"),
    (lambda: conger_kappa(TWO[TWO.worker == "v"]), ValueError, "at least two raters; the judgments have one worker ('v')"),
    (lambda: gwet_ac(TWO.assign(unit=range(6))), ValueError, "at least two units rated by two or more workers; 0 of the 6"),
    (lambda: gwet_ac(TWO.iloc[2:].assign(unit=[2, 2, 3, 4])), ValueError, "two or more workers; 1 of the 3"),
    (lambda: gwet_ac(TWO.assign(label="a")), ValueError, "at least two labels; the judgments use only ['a']"),
    (lambda: gwet_ac(TWO.assign(label=["a|b", "a", "b", "b", "a", "b"]), sep="|"), ValueError, "one label per judgment"),
    (lambda: gwet_ac(pd.concat([TWO.assign(d="x"), TWO.assign(d="y")]), dimension="d"), ValueError,
     "one judgment per (unit, worker); judgments at rows 0, 1"),
    (lambda: fleiss_kappa_gwet(TWO.assign(label="a"), labels=["a", "b"]), UndefinedCoefficient, "Fleiss' kappa is undefined"),
    (lambda: krippendorff_alpha_gwet(TWO.assign(label="a"), labels=["a", "b"]), UndefinedCoefficient, "alpha is undefined"),
    (lambda: brennan_prediger(TWO, np.ones((2, 2))), UndefinedCoefficient, "Brennan-Prediger is undefined"),
    (lambda: coefficient_table(J4, coefficients=["kappa"]), ValueError, "coefficients must be one of 'gwet'"),
    (lambda: coefficient_table(J4, coefficients=[]), ValueError, "coefficients is empty"),
    (lambda: gwet_ac(TWO, unit="item"), ValueError, "lacks the column(s) unit='item'"),
    (lambda: gwet_ac(TWO.to_numpy()), TypeError, "Judgments.from_matrix"),
    (lambda: agreement_weights(["a", "b"], pd.DataFrame(np.eye(2), ["a", "c"], ["a", "c"])), ValueError,
     "labels ['a', 'b'] as its index and columns"),
]


@pytest.mark.parametrize("fn,exc,msg", BAD, ids=[m[:40] for _, _, m in BAD])
def test_bad_input(fn, exc, msg):
    with pytest.raises(exc) as e: fn()
    assert msg in str(e.value), str(e.value)


def test_undefined_row_in_table_warns():
    one = TWO.assign(label="a")
    with pytest.warns(UserWarning, match="Conger's kappa is undefined"):
        t = coefficient_table(one, labels=["a", "b"])
    assert t.loc["Gwet's AC1", "estimate"] == 1.0 and t.loc["Brennan-Prediger", "estimate"] == 1.0
    assert t.loc[["Fleiss' kappa", "Conger's kappa", "Krippendorff's alpha"], "estimate"].isna().all()
