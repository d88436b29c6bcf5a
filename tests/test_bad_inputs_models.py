"""Bad input to the annotation models (model A, model B): every case raises the right exception type with a message
that names the culprit (column, option, value, rows), and leaves the caller's data untouched."""
import copy
import warnings

import numpy as np
import pandas as pd
import pytest

from crowdnb.core import simulate_crowd, Judgments
from crowdnb.model_a import ModelA, fit_theta, sample, triplets, distinct_optima, correctness
from crowdnb.model_b import ModelB, em, anneal, fit, as_patterns, random_model

N14 = np.array([1882, 443, 1863, 506, 1376, 1152, 1412, 1366])          # seed, Table 14 pattern counts
A3 = simulate_crowd(n_units=30, n_workers=3, workers_per_unit=3, n_labels=2, seed=0).judgments     # model A's shape
B6 = simulate_crowd(n_units=30, n_workers=6, workers_per_unit=3, n_labels=3, seed=0).judgments     # a crowd
MAT = np.array([[1, 2, 1], [2, 2, -1], [1, 1, 2]])


def _multi(df):
    "The same judgments with the first answer holding two labels."
    out = df.copy(); out.loc[0, "label"] = "L0|L1"; return out


def _twice(df):
    "The same judgments with the first row repeated (a worker judging a unit twice)."
    return pd.concat([df, df.iloc[:1]], ignore_index=True)


CASES = [  # id, data, call, exception, message fragment
    ("A wrong columns", lambda: A3.rename(columns={"worker": "annotator"}), lambda d: ModelA().fit(d),
     ValueError, "lacks the column(s) worker='worker'"),
    ("A ndarray to fit", lambda: MAT, lambda d: ModelA().fit(d), TypeError, "enters through Judgments.from_matrix"),
    ("A labels as a string", lambda: A3, lambda d: ModelA().fit(d, labels="L0,L1"), TypeError,
     "labels must be a list of labels, not the string 'L0,L1'"),
    ("A max_iter=0", lambda: None, lambda d: ModelA(max_iter=0), ValueError, "max_iter must be at least 1; got 0"),
    ("A tol=-1", lambda: None, lambda d: ModelA(tol=-1), ValueError, "tol must be in [0, inf); got -1"),
    ("A n_starts=0", lambda: None, lambda d: ModelA(n_starts=0), ValueError, "n_starts must be at least 1; got 0"),
    ("A negative seed", lambda: None, lambda d: ModelA(seed=-1), ValueError, "seed must be a non-negative int, not -1"),
    ("A method", lambda: None, lambda d: ModelA(method="mle"), ValueError, "method must be one of 'ml', 'map'; got 'mle'"),
    ("A incomplete", lambda: None, lambda d: ModelA(incomplete="skip"), ValueError, "incomplete must be one of 'error', 'drop'"),
    ("A prior", lambda: None, lambda d: ModelA(prior=(0, 1)), ValueError, "prior must be Beta parameters (a, b) > 0"),
    ("A one annotator", lambda: A3[A3.worker == "w0"], lambda d: ModelA().fit(d), ValueError,
     "model A needs three workers per unit; the judgments have 1 worker(s): ['w0']"),
    ("A one value", lambda: A3.assign(label="L0"), lambda d: ModelA().fit(d), ValueError,
     "model A needs at least two labels; every judgment is 'L0'"),
    ("A multi-label", lambda: _multi(A3), lambda d: ModelA().fit(d, sep="|"), ValueError, "judgments at row 0 hold several"),
    ("A not triplets", lambda: B6.iloc[:-1], lambda d: ModelA().fit(d), ValueError,
     "model A needs exactly 3 annotations per item; items ['u29'] have [2] annotations"),
    ("A sample n_items", lambda: None, lambda d: sample([0.5] * 3, [0.4, 0.6], 0), ValueError, "n_items must be at least 1; got 0"),
    ("A fit_theta max_iter", lambda: {"111": 3, "112": 1}, lambda d: fit_theta(d, max_iter=0), ValueError,
     "max_iter must be at least 1; got 0"),
    ("A triplets labels", lambda: np.array([[1, 2, 1], [2, 2, 2]]), lambda d: triplets(d, labels=[1]), ValueError,
     "annotation values [2] (rows [0, 1]) are not among the declared values [1]"),
    ("A correctness kind", lambda: {"112": 2}, lambda d: correctness(d, [0.6, 0.7, 0.8], kind="best"), ValueError,
     "kind must be one of 'map', 'prob'; got 'best'"),
    ("A distinct_optima tol", lambda: None, lambda d: distinct_optima([1.0], [[0.5]], tol=-1), ValueError, "tol must be in [0, inf)"),
    ("B wrong columns", lambda: B6.rename(columns={"unit": "item"}), lambda d: ModelB().fit(d), ValueError,
     "lacks the column(s) unit='unit'"),
    ("B ndarray to fit", lambda: MAT, lambda d: ModelB().fit(d), TypeError, "enters through Judgments.from_matrix"),
    ("B wide table to fit", lambda: B6.pivot(index="unit", columns="worker", values="label"), lambda d: ModelB().fit(d),
     ValueError, "lacks the column(s) unit='unit', worker='worker', label='label'"),
    ("B labels as a string", lambda: B6, lambda d: ModelB().fit(d, labels="L0,L1,L2"), TypeError,
     "did you mean labels=['L0', 'L1', 'L2']"),
    ("B labels outside the set", lambda: B6, lambda d: ModelB().fit(d, labels=["L0", "L1"]), ValueError,
     "has labels outside the declared set ('L2')"),
    ("B max_iter=0", lambda: None, lambda d: ModelB(max_iter=0), ValueError, "max_iter must be at least 1; got 0"),
    ("B tol=-1", lambda: None, lambda d: ModelB(tol=-1), ValueError, "tol must be in [0, inf); got -1"),
    ("B n_starts=0", lambda: None, lambda d: ModelB(n_starts=0), ValueError, "n_starts must be at least 1; got 0"),
    ("B n_starts float", lambda: None, lambda d: ModelB(n_starts=2.5), TypeError, "n_starts must be an integer, not 2.5"),
    ("B negative seed", lambda: None, lambda d: ModelB(seed=-1), ValueError, "seed must be a non-negative int, not -1"),
    ("B method", lambda: None, lambda d: ModelB(method="gibbs"), ValueError, "method must be one of 'em', 'smoothed', 'anneal'; got 'gibbs'"),
    ("B init", lambda: None, lambda d: ModelB(init="majority"), ValueError, "init must be one of 'vote', 'random'; got 'majority'"),
    ("B multi-label", lambda: _multi(B6), lambda d: ModelB().fit(d, sep="|"), ValueError,
     "model B needs one label per judgment; judgments at row 0 hold several labels"),
    ("B duplicates", lambda: _twice(B6), lambda d: ModelB().fit(d), ValueError,
     "duplicate judgments (same unit/worker) at rows 0, 90; pass duplicates='last' or duplicates='count'"),
    ("B missing file", lambda: "/no/such/judgments.csv", lambda d: ModelB().fit(d), ValueError,
     "judgments file '/no/such/judgments.csv' does not exist"),
    ("em max_iter=0", lambda: MAT, lambda d: em(d, max_iter=0), ValueError, "max_iter must be at least 1; got 0"),
    ("em tol=-1", lambda: MAT, lambda d: em(d, tol=-1), ValueError, "tol must be in [0, inf); got -1"),
    ("em eps<0", lambda: MAT, lambda d: em(d, eps=-0.5), ValueError, "eps must be in [0, inf); got -0.5"),
    ("em init", lambda: MAT, lambda d: em(d, init="bogus"), ValueError, "init must be 'vote', a ModelBParams or a posterior array, not 'bogus'"),
    ("em long table, wrong column", lambda: B6, lambda d: em(d, unit="item"), ValueError, "lacks the column(s) unit='item'"),
    ("em option on a matrix", lambda: MAT, lambda d: em(d, unit="item"), TypeError,
     "unit: input options apply to a table or a CSV path, not to ndarray"),
    ("em non-integer matrix", lambda: MAT * 0.5, lambda d: em(d), TypeError, "non-integer value 0.5 at row 0, column 0"),
    ("anneal max_iter=0", lambda: N14, lambda d: anneal(d, max_iter=0), ValueError, "max_iter must be at least 1; got 0"),
    ("anneal bound", lambda: N14, lambda d: anneal(d, bound=0), ValueError, "bound must be in (0, inf); got 0"),
    ("anneal seed", lambda: N14, lambda d: anneal(d, seed=-3), ValueError, "seed must be a non-negative int, not -3"),
    ("fit method", lambda: N14, lambda d: fit(d, method="newton"), ValueError, "method must be one of 'em', 'smoothed', 'anneal'; got 'newton'"),
    ("fit atol", lambda: N14, lambda d: fit(d, atol=-1), ValueError, "atol must be in [0, inf); got -1"),
    ("as_patterns type", lambda: 3.5, lambda d: as_patterns(d), TypeError, "must be judgments, an items x annotators matrix or pattern counts, not float"),
    ("random_model n_values", lambda: None, lambda d: random_model(3, 0), ValueError, "n_values must be at least 1; got 0"),
]


def _snapshot(d):
    return copy.deepcopy(d)


def _same(a, b):
    if isinstance(a, pd.DataFrame): return a.equals(b) and list(a.columns) == list(b.columns)
    if isinstance(a, np.ndarray): return np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("make, call, exc, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_named(make, call, exc, message):
    data = make()
    before = _snapshot(data)
    with pytest.raises(exc) as err:
        call(data)
    assert message in str(err.value), str(err.value)
    assert _same(data, before)                                       # the caller's data are untouched


def test_at_least_25_cases():
    assert len(CASES) >= 25


@pytest.mark.parametrize("data, culprit", [(B6[B6.worker == "w1"], "one worker ('w1')"), (B6.assign(label="L2"), "one label ('L2')")],
                         ids=["one worker", "one value"])
def test_model_b_degenerate_data_warn_and_document(data, culprit):
    "One worker or one value: a documented result (θ = 1) with a warning that says why, never silently."
    before = data.copy()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = ModelB().fit(data)
    assert any(culprit in str(x.message) for x in w), [str(x.message) for x in w]
    np.testing.assert_allclose(m.theta_.to_numpy(), 1.0)
    np.testing.assert_allclose(m.posterior_.sum(axis=1).to_numpy(), 1.0)
    assert before.equals(data)


def test_model_a_drop_leaves_unjudged_workers_nan_with_warning():
    "With incomplete='drop', a worker without any complete unit gets θ = NaN and a warning naming it."
    d = pd.concat([A3, pd.DataFrame({"unit": ["extra"], "worker": ["w9"], "label": ["L0"]})], ignore_index=True)
    with pytest.warns(UserWarning, match=r"workers \['w9'\] judged no complete unit"):
        m = ModelA(n_starts=2, seed=0, incomplete="drop").fit(d)
    assert np.isnan(m.theta_["w9"]) and m.theta_.drop("w9").notna().all()
