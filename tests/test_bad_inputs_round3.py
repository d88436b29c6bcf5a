"""Bad inputs, round three (issue 22): the classes that were still silent or unclear. Building blocks validate what
they alone can know (one annotator, one label, degenerate counts); a matrix's bad cell is named by unit and worker;
every error about a row of a user's file names the file's line; options that are not input options name the
functions that take them. Every case: the right exception (or warning) and a message naming the culprit, and the
caller's data unchanged."""
import copy
import warnings

import numpy as np
import pandas as pd
import pytest

from crowdnb import agreement, chance, coref, crowdtruth, crowdtruth_v1, humeval, model_a, model_b, trust
from crowdnb.core import Judgments, as_judgments, option_owners, simulate_crowd
from crowdnb.model_b import ModelB

B6 = simulate_crowd(n_units=20, n_workers=6, workers_per_unit=3, n_labels=3, seed=0).judgments
TWO = pd.DataFrame({"unit": ["a", "a", "b", "b", "c", "c"], "worker": ["x", "y"] * 3, "label": [1, 2, 2, 2, 1, 1]})
ONE_WORKER = pd.DataFrame({"unit": ["a", "b", "c"], "worker": ["w"] * 3, "label": ["x", "y", "x"]})
ONE_LABEL = pd.DataFrame({"unit": ["a", "a", "b", "b"], "worker": ["w", "v"] * 2, "label": ["x"] * 4})


def _snapshot(x):
    if isinstance(x, (pd.DataFrame, pd.Series)): return x.copy(deep=True)
    if isinstance(x, np.ndarray): return x.copy()
    return copy.deepcopy(x)


def _unchanged(x, before):
    if isinstance(x, pd.DataFrame): pd.testing.assert_frame_equal(x, before)
    elif isinstance(x, np.ndarray): np.testing.assert_array_equal(x, before)


# (id, data, call, exception, fragment the message must hold)
CASES = [
    # ---- simulate_crowd: every count checked
    ("simulate n_units=0", None, lambda d: simulate_crowd(n_units=0), ValueError, "n_units must be at least 1; got 0"),
    ("simulate n_workers=0", None, lambda d: simulate_crowd(n_workers=0), ValueError, "n_workers must be at least 1; got 0"),
    ("simulate n_units=2.5", None, lambda d: simulate_crowd(n_units=2.5), TypeError, "n_units must be an integer"),
    ("simulate n_units=True", None, lambda d: simulate_crowd(n_units=True), TypeError, "n_units must be an integer"),
    ("simulate workers_per_unit='3'", None, lambda d: simulate_crowd(workers_per_unit="3"), TypeError,
     "workers_per_unit must be an integer"),
    ("simulate spammer_fraction nan", None, lambda d: simulate_crowd(spammer_fraction=float("nan")), ValueError,
     "spammer_fraction must be a finite number"),
    # ---- column options are column names
    ("pairwise unit=[]", TWO, lambda d: agreement.pairwise_agreement(d, unit=[]), TypeError,
     "unit must be a column name (a string), not [] (list)"),
    ("alpha worker={}", TWO, lambda d: agreement.krippendorff_alpha(d, worker={}), TypeError, "worker must be a column name"),
    ("fleiss label=None", TWO, lambda d: agreement.fleiss_kappa(d, label=None), TypeError, "label must be a column name"),
    ("gwet label=True", TWO, lambda d: chance.gwet_ac(d, label=True), TypeError, "label must be a column name"),
    ("crowdtruth dimension=['d']", TWO, lambda d: crowdtruth.run(d, dimension=["d"]), TypeError,
     "dimension must be a column name"),
    ("trust submitted=1.5", TWO, lambda d: trust.trust_coefficients(d, submitted=1.5), TypeError,
     "submitted must be a column name"),
    ("ModelB sep=''", TWO, lambda d: ModelB().fit(d, sep=""), TypeError, "sep must be a non-empty string"),
    ("v1 sep=1", TWO, lambda d: crowdtruth_v1.metrics(d, sep=1), TypeError, "sep must be a non-empty string"),
    # ---- options that are not input options name their owners
    ("fleiss weights", TWO, lambda d: agreement.fleiss_kappa(d, weights="linear"), TypeError,
     "fleiss_kappa() has no option 'weights' (weights='linear'); weights is an option of agreement.cohen_kappa"),
    ("alpha n_starts", TWO, lambda d: agreement.krippendorff_alpha(d, n_starts=3), TypeError,
     "krippendorff_alpha() has no option 'n_starts'"),
    ("alpha n_starts owners", TWO, lambda d: agreement.krippendorff_alpha(d, n_starts=3), TypeError, "model_b.fit"),
    ("ModelB.fit level", TWO, lambda d: ModelB().fit(d, level="ordinal"), TypeError,
     "ModelB.fit() has no option 'level' (level='ordinal'); level is an option of agreement."),
    ("crowdtruth threshold", TWO, lambda d: crowdtruth.run(d, threshold=0.5), TypeError,
     "run() has no option 'threshold' (threshold=0.5); threshold is an option of trust.trust_coefficients"),
    ("trust seed", TWO, lambda d: trust.trust_coefficients(d, seed=1), TypeError, "trust_coefficients() has no option 'seed'"),
    ("gwet typo labls", TWO, lambda d: chance.gwet_ac(d, labls=[1, 2]), TypeError, "did you mean labels?"),
    ("as_judgments unknown", TWO, lambda d: as_judgments(d, colour="red"), TypeError,
     "as_judgments() has no option 'colour' (colour='red'); no function of crowdnb takes colour"),
    ("v1 unknown", TWO, lambda d: crowdtruth_v1.metrics(d, weights="quadratic"), TypeError, "metrics() has no option 'weights'"),
    ("humeval unknown", TWO, lambda d: humeval.ratings_matrix(d, n_boot=5), TypeError,
     "ratings_matrix() has no option 'n_boot' (n_boot=5); n_boot is an option of agreement.alpha_bootstrap"),
    # ---- from_matrix: a bad cell named by unit and worker
    ("from_matrix inf", pd.DataFrame({"ann": [1.0, np.inf], "bob": [2.0, 1.0]}, index=["s1", "s2"]),
     lambda d: Judgments.from_matrix(d), ValueError, "the matrix holds an infinite value at the cell of unit 's2' and worker 'ann'"),
    ("from_matrix mixed", np.array([["a", 1], ["b", 2]], dtype=object),
     lambda d: Judgments.from_matrix(d, units=["s1", "s2"], workers=["p", "q"]), TypeError,
     "the matrix mixes strings (first at the cell of unit 's1' and worker 'p') and numbers"),
    ("from_matrix blank text", np.array([["a", " "], ["b", "a"]], dtype=object),
     lambda d: Judgments.from_matrix(d, units=["s1", "s2"], workers=["p", "q"]), ValueError,
     "the matrix has empty answers at the cell of unit 's1' and worker 'q'"),
    ("from_matrix bool cell", np.array([["a", True], ["b", "a"]], dtype=object),
     lambda d: Judgments.from_matrix(d, units=["s1", "s2"], workers=["p", "q"]), TypeError,
     "unsupported label True (bool) at the cell of unit 's1' and worker 'q'"),
    ("from_matrix labels outside", np.array([[1, 2], [3, 1]]),
     lambda d: Judgments.from_matrix(d, labels=[1, 2], units=["s1", "s2"], workers=["p", "q"]), ValueError,
     "labels outside the declared set (3) at the cell of unit 's2' and worker 'p'"),
    # ---- low-level building blocks: degenerate counts
    ("agreement_weights empty", None, lambda d: chance.agreement_weights([], "linear"), ValueError, "labels is empty"),
    ("agreement_weights repeats", None, lambda d: chance.agreement_weights(["a", "a"], "linear"), ValueError,
     "labels repeats ['a']"),
    ("model_b.fit one label in a matrix of values", np.array([[0, 0], [0, 0]]), lambda d: model_b.fit(d, n_starts=2, seed=0),
     ValueError, "model B needs at least 2 values"),
    ("anneal one label", ONE_LABEL, lambda d: model_b.anneal(d, seed=0), ValueError,
     "anneal needs at least 2 labels; with one ('x') model B has no free parameter: use method='em'"),
    ("ModelB anneal one label", ONE_LABEL, lambda d: ModelB(method="anneal").fit(d), ValueError, "use method='em'"),
    ("reference_cases missing folder", None, lambda d: coref.reference_cases("/nonexistent/coref"), ValueError,
     "'/nonexistent/coref' is not a folder"),
    ("reference_cases wrong folder", None, lambda d: coref.reference_cases("/"), ValueError,
     "folder '/' lacks scorch/tests/fixtures/conll"),
    # ---- judgments keep their source row: later errors name it
    ("model B multi-label row", pd.DataFrame({"unit": ["a", "a", "b"], "worker": ["x", "y", "x"], "label": ["p", "p|q", "q"]}),
     lambda d: ModelB().fit(d, sep="|"), ValueError, "judgments at row 1 hold several labels"),
    ("alpha multi-label after dropped rows", pd.DataFrame({"unit": ["a", "a", "b", "b"], "worker": ["x", "y", "x", "y"],
                                                          "label": [None, "p", "p", "p|q"]}),
     lambda d: agreement.krippendorff_alpha(d, sep="|", empty="drop"), ValueError, "judgments at row 3 hold several"),
    ("gwet repeated pair after count", pd.DataFrame({"unit": ["a", "a", "a", "b"], "worker": ["x", "x", "y", "y"],
                                                    "d": ["1", "2", "1", "1"], "label": [1, 2, 1, 1]}),
     lambda d: chance.gwet_ac(d, dimension="d"), ValueError, "judgments at rows 0, 1 repeat a pair"),
    # ---- coefficient_table with a distance between answers (issue 21): the pair of answers at fault
    ("table distance not symmetric", TWO,
     lambda d: chance.coefficient_table(d, level=np.array([[0.0, 1.0], [0.5, 0.0]])), ValueError,
     "the distance is not symmetric: d(1, 2) = 1.0 but d(2, 1) = 0.5"),
    ("table distance diagonal", TWO, lambda d: chance.coefficient_table(d, level=np.array([[0.2, 1.0], [1.0, 0.0]])),
     ValueError, "is not 0 between an answer and itself: d(1, 1) = 0.2"),
    ("table distance raises", TWO, lambda d: chance.coefficient_table(d, level=lambda a, b: a / 0), ValueError,
     "the distance function failed on (1, 1): ZeroDivisionError"),
    ("table distance above 1", TWO, lambda d: chance.coefficient_table(d, level=np.array([[0.0, 4.0], [4.0, 0.0]])),
     ValueError, "must lie in [0, 1] (the weights are 1 - d): d(1, 2) = 4.0"),
    ("table set distance asks for AC1", TWO.assign(label=["p|q", "p", "q", "q", "p", "p"]),
     lambda d: chance.coefficient_table(d, level="masi", coefficients="gwet", sep="|"), ValueError,
     "coefficients ['gwet'] are not defined for a distance between sets of labels"),
]


@pytest.mark.parametrize("data, call, exc, fragment", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_named(data, call, exc, fragment):
    before = _snapshot(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as e: call(data)
    assert fragment in str(e.value), str(e.value)
    assert "unhashable" not in str(e.value) and "zero-size" not in str(e.value)
    _unchanged(data, before)


def test_csv_rows_name_their_line(tmp_path):
    "A judgment read from a CSV file keeps its line; an error raised long after reading names it."
    p = tmp_path / "j.csv"
    p.write_text("unit,worker,d,label\na,x,1,p\n\na,x,2,q\nb,y,1,p|q\n")   # a blank line: pandas skips it
    J = as_judgments(p, sep="|", dimension="d")
    assert J.frame["row"].tolist() == [0, 1, 2] and J.frame["line"].tolist() == [2, 4, 5]
    with pytest.raises(ValueError, match=r"row 2 \(line 5\) hold several"): J.label_matrix()
    with pytest.raises(ValueError, match=r"row 2 \(line 5\) hold several"): agreement.krippendorff_alpha(p, sep="|", dimension="d")
    q = tmp_path / "k.csv"
    q.write_text('unit,worker,d,label\na,x,1,"p\n"\na,x,2,q\n')                     # a quoted line break
    with pytest.raises(ValueError, match=r"rows 0 \(line 2\), 1 \(line 4\) repeat"): as_judgments(q, dimension="d").label_matrix()
    r = tmp_path / "plain.csv"
    r.write_text("unit,worker,d,label\na,x,1,p\na,x,2,q\n")
    with pytest.raises(ValueError, match=r"rows 0 \(line 2\), 1 \(line 3\) repeat"): as_judgments(r, dimension="d").label_matrix()


def test_duplicates_keep_their_rows():
    "duplicates='last' keeps the last judgment's row; 'count' the first one's."
    df = pd.DataFrame({"unit": ["a", "a", "b"], "worker": ["x", "x", "y"], "label": [1, 2, 1]})
    assert as_judgments(df, duplicates="last").frame["row"].tolist() == [1, 2]
    assert as_judgments(df, duplicates="count").frame["row"].tolist() == [0, 2]


def test_from_matrix_warns_about_unrated():
    wide = pd.DataFrame({"ann": ["a", "b", None], "bob": [None, None, None], "cy": ["a", "a", None]}, index=["s1", "s2", "s3"])
    before = wide.copy()
    with pytest.warns(UserWarning) as rec: J = Judgments.from_matrix(wide)
    msgs = [str(w.message) for w in rec]
    assert msgs == ["from_matrix leaves out the worker 'bob', with no rating in the matrix",
                    "from_matrix leaves out the unit 's3', with no rating in the matrix"], msgs
    assert list(J.workers) == ["ann", "cy"] and list(J.units) == ["s1", "s2"]
    pd.testing.assert_frame_equal(wide, before)


def test_from_matrix_rated_everywhere_is_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Judgments.from_matrix(np.array([[1, 2], [2, 2]]))


@pytest.mark.parametrize("call", [lambda d: model_b.fit(d, n_starts=2, seed=0), lambda d: model_b.em(d),
                                  lambda d: model_b.fit(d, method="em", n_starts=3, seed=1),
                                  lambda d: model_b.fit(d, method="em", init="vote", n_starts=1, seed=1)],
                         ids=["fit", "em", "fit-em-random", "fit-em-vote"])
@pytest.mark.parametrize("data, what", [(ONE_WORKER, "one worker"), (ONE_LABEL, "one label ('x')")], ids=["worker", "label"])
def test_low_level_model_b_warns_on_degenerate_data(call, data, what):
    "The building block warns as the estimator does (never a silent θ = 1, never a numpy reduction error)."
    before = data.copy()
    with pytest.warns(UserWarning, match=r"model B on " + what.replace("(", r"\(").replace(")", r"\)")):
        res = call(data)
    theta = res.models[0].theta() if hasattr(res, "models") else res.model.theta()
    if data is ONE_LABEL or res is not None and not hasattr(res, "models"):
        np.testing.assert_allclose(theta, 1.0)              # one label, or the vote start: θ = 1 by construction
    pd.testing.assert_frame_equal(data, before)


def test_estimator_warns_once():
    with pytest.warns(UserWarning) as rec: ModelB().fit(ONE_WORKER)
    assert [str(w.message) for w in rec] == ["model B on one worker ('w'): its answers become the truth, θ = 1 by construction "
                                             "(from the vote start; the model is not identified with one worker)"]


def test_option_owners_reads_signatures():
    owners = option_owners("weights")
    assert {"agreement.cohen_kappa", "agreement.scott_pi", "chance.coefficient_table"} <= set(owners)
    assert "agreement.fleiss_kappa" not in owners
    assert option_owners("no_such_option") == []
