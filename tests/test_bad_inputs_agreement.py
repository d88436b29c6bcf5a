"""Bad input to every public function of crowdnb.agreement and crowdnb.trust: each case asserts the exception type,
that the message names the culprit (option, column, value, worker, path), and that the caller's DataFrame is
unchanged afterwards."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from crowdnb.core import LEVELS
from crowdnb.agreement import (krippendorff_alpha, alpha_bootstrap, alpha_from_counts, coincidence_matrix, cohen_kappa,
                               scott_pi, fleiss_kappa, fleiss_kappa_counts, unit_value_counts, reliability_codes,
                               pairwise_agreement, read_spatial_prepositions, spatial_prepositions_agreements,
                               read_published_agreements, agreement_table, UndefinedAgreement,
                               alpha_from_coincidences, alpha_scale, fleiss_sums, fleiss_from_sums, judgments_of,
                               single_label, squared_distances, shard_coincidences, shard_fleiss_sums,
                               alpha_from_distances, answer_counts, distance_alpha, pairwise_kappas, agreement_scores)
from crowdnb.distances import (answer_distances, answer_sets, check_distances, is_distance_level, jaccard_distance,
                               masi_distance, set_distance_matrix, as_label_set, answers_are_sets, label_distances,
                               distance_weights, answers_as_labels)
from crowdnb.core import as_judgments
from crowdnb.engine import split_units
from crowdnb.trust import (reliability_data, subset_alphas, trust_coefficients, algorithm1_coefs, subset_codes,
                           check_workers)

# six sentences judged by three workers; the columns have the caller's own names
BASE = pd.DataFrame({"sentence_id": np.repeat([f"s{i}" for i in range(6)], 3),
                     "worker_id": np.tile(["w1", "w2", "w3"], 6),
                     "relation": ["cause", "cause", "treat", "treat", "treat", "treat", "none", "cause", "none",
                                  "cause", "cause", "cause", "treat", "none", "treat", "none", "none", "cause"],
                     "score": [1, 2, 2, 3, 3, 2, 1, 1, 1, 4, 4, 3, 2, 2, 1, 3, 4, 4]})
C = dict(unit="sentence_id", worker="worker_id", label="relation")
N = dict(unit="sentence_id", worker="worker_id", label="score")


def many_workers(d, k=21):
    "k workers, each judging every sentence (numeric scores)."
    return pd.DataFrame({"sentence_id": np.repeat(d["sentence_id"].unique(), k),
                         "worker_id": np.tile([f"v{i}" for i in range(k)], d["sentence_id"].nunique()),
                         "score": np.arange(6 * k) % 3})


def no_shared(d):
    "Each sentence judged by one worker only (w1, w2, w3, w1, w2, w3)."
    return d.iloc[[3 * i + i % 3 for i in range(6)]]


CASES = [
    # the front door: columns, matrices, label sets, old option names
    ("alpha: default columns absent", lambda d: krippendorff_alpha(d), ValueError,
     "lacks the column(s) unit='unit', worker='worker', label='label'; its columns are ['sentence_id'"),
    ("alpha: a misspelt column", lambda d: krippendorff_alpha(d, **{**C, "unit": "sentence"}), ValueError, "unit='sentence'"),
    ("alpha: an ndarray", lambda d: krippendorff_alpha(d[["relation"]].to_numpy()), TypeError, "Judgments.from_matrix"),
    ("fleiss: nested lists", lambda d: fleiss_kappa([[1, 2], [1, 1]]), TypeError, "Judgments.from_matrix"),
    ("alpha: labels as a string", lambda d: krippendorff_alpha(d, labels="cause,treat,none", **C), TypeError,
     "did you mean labels=['cause', 'treat', 'none']"),
    ("alpha: a label outside labels=", lambda d: krippendorff_alpha(d, labels=["cause", "treat"], **C), ValueError,
     "label column 'relation' has labels outside the declared set ('none')"),
    ("alpha: old value_domain=", lambda d: krippendorff_alpha(d, value_domain=["cause"], **C), TypeError, "value_domain=: it is now labels="),
    ("alpha: old rater=", lambda d: krippendorff_alpha(d, rater="worker_id"), TypeError, "rater=: it is now worker="),
    ("alpha: a missing CSV", lambda d: krippendorff_alpha("/no/such/ratings.csv"), ValueError, "'/no/such/ratings.csv' does not exist"),
    ("alpha: empty answers", lambda d: krippendorff_alpha(d.assign(relation=[None] + list(d.relation[1:])), **C),
     ValueError, "label column 'relation' has empty answers at row 0"),
    ("alpha: duplicate judgments", lambda d: krippendorff_alpha(pd.concat([d, d.iloc[:1]]), **C), ValueError,
     "duplicate judgments (same unit/worker) at rows 0, 18"),
    ("alpha: several labels per judgment", lambda d: krippendorff_alpha(d.assign(relation="cause|treat"), sep="|", **C),
     ValueError, "krippendorff_alpha needs one label per judgment"),
    # levels
    ("alpha: level typo", lambda d: krippendorff_alpha(d, level="nomial", **C), ValueError,
     "level must be one of 'nominal', 'ordinal', 'interval', 'ratio'; got 'nomial'"),
    ("alpha: strings at the interval level", lambda d: krippendorff_alpha(d, level="interval", **C), TypeError,
     "level='interval' needs numeric labels"),
    ("alpha: strings at the ordinal level without labels=", lambda d: krippendorff_alpha(d, level="ordinal", **C),
     ValueError, "level='ordinal' needs the order of the string labels ('cause', 'none', 'treat')"),
    ("alpha: negative values at the ratio level", lambda d: krippendorff_alpha(d.assign(score=-d.score), level="ratio", **N),
     ValueError, "level='ratio' needs non-negative values"),
    # degenerate data
    ("alpha: one worker", lambda d: krippendorff_alpha(d[d.worker_id == "w2"], **C), ValueError,
     "needs at least two workers; the judgments have one ('w2')"),
    ("alpha: no shared units", lambda d: krippendorff_alpha(no_shared(d), **C), UndefinedAgreement,
     "no unit has judgments from two or more workers"),
    ("alpha: one value", lambda d: krippendorff_alpha(d.assign(relation="cause"), **C), UndefinedAgreement, "no variation"),
    # bootstrap options
    ("bootstrap: n_boot=0", lambda d: alpha_bootstrap(d, n_boot=0, **C), ValueError, "n_boot must be at least 1; got 0"),
    ("bootstrap: n_boot=2.5", lambda d: alpha_bootstrap(d, n_boot=2.5, **C), TypeError, "n_boot must be an integer"),
    ("bootstrap: ci=1.5", lambda d: alpha_bootstrap(d, ci=1.5, **C), ValueError, "ci must be in (0, 1); got 1.5"),
    ("bootstrap: ci=nan", lambda d: alpha_bootstrap(d, ci=float("nan"), **C), ValueError, "ci must be a finite number"),
    ("bootstrap: negative seed", lambda d: alpha_bootstrap(d, seed=-4, **C), ValueError, "seed must be a non-negative int, not -4"),
    ("bootstrap: float seed", lambda d: alpha_bootstrap(d, seed=0.5, **C), TypeError, "seed must be a non-negative int"),
    ("bootstrap: progress='yes'", lambda d: alpha_bootstrap(d, progress="yes", **C), ValueError, "progress must be one of"),
    ("bootstrap: batch=0", lambda d: alpha_bootstrap(d, batch=0, **C), ValueError, "batch must be at least 1; got 0"),
    # Fleiss
    ("fleiss: missing='drop'", lambda d: fleiss_kappa(d, missing="drop", **C), ValueError,
     "missing must be one of 'pooled', 'gwet'; got 'drop'"),
    ("fleiss: old counts=True", lambda d: fleiss_kappa(d, counts=True, **C), TypeError, "use fleiss_kappa_counts()"),
    ("fleiss_kappa_counts: 1-D", lambda d: fleiss_kappa_counts([1, 2, 3]), ValueError, "counts must be a 2-D table"),
    ("fleiss_kappa_counts: negative", lambda d: fleiss_kappa_counts([[1, -2], [3, 1]]), ValueError, "non-negative integers"),
    ("fleiss_kappa_counts: fractions", lambda d: fleiss_kappa_counts([[1, 0.5], [3, 1]]), ValueError, "non-negative integers"),
    # Cohen, Scott
    ("kappa: three workers, no pair", lambda d: cohen_kappa(d, **C), ValueError,
     "the judgments have 3 ('w1', 'w2', 'w3'): pass workers=(a, b)"),
    ("kappa: an unknown worker", lambda d: cohen_kappa(d, workers=("w1", "zz"), **C), ValueError, "workers ['zz'] are not among"),
    ("kappa: workers a string", lambda d: cohen_kappa(d, workers="w1", **C), TypeError, "workers must be a pair (a, b) of worker ids"),
    ("kappa: the same worker twice", lambda d: cohen_kappa(d, workers=("w1", "w1"), **C), ValueError, "the same worker twice ('w1')"),
    ("pi: weights typo", lambda d: scott_pi(d, workers=("w1", "w2"), weights="cubic", **C), ValueError,
     "weights must be one of 'identity', 'linear', 'quadratic'; got 'cubic'"),
    ("kappa: linear weights on unordered strings", lambda d: cohen_kappa(d, workers=("w1", "w2"), weights="linear", **C),
     ValueError, "weights='linear' need ordered labels"),
    ("kappa: no shared units", lambda d: cohen_kappa(no_shared(d)[lambda x: x.worker_id != "w2"], **C), ValueError,
     "no unit was judged by both workers ['w1', 'w3']"),
    # pairwise agreement
    ("pairwise: rule typo", lambda d: pairwise_agreement(d, rule="vote", **C), ValueError, "rule must be one of 'yesno', 'choice'; got 'vote'"),
    ("pairwise: old key=", lambda d: pairwise_agreement(d, key="sentence_id"), TypeError, "key=: it is now unit="),
    ("pairwise: old categories=", lambda d: pairwise_agreement(d, categories=["cause"], **C), TypeError, "categories=: it is now labels="),
    ("pairwise: choice without candidates", lambda d: pairwise_agreement(d, rule="choice", **C), ValueError, "needs candidates="),
    ("pairwise: candidates below 1", lambda d: pairwise_agreement(d, rule="choice", candidates=0, **C), ValueError,
     "candidates must be whole numbers >= 1; unit 's0' has 0.0"),
    ("pairwise: a unit without candidates", lambda d: pairwise_agreement(d, rule="choice", candidates={"s0": 3}, **C),
     ValueError, "candidates has no number for the unit(s) 's1'"),
    ("pairwise: an empty worker filter", lambda d: pairwise_agreement(d, workers=["nobody"], **C), ValueError,
     "no judgment is left after the filter workers=['nobody']"),
    ("pairwise: kappa_if_perfect a string", lambda d: pairwise_agreement(d, kappa_if_perfect="1", **C), TypeError,
     "kappa_if_perfect must be a number"),
    ("pairwise: duplicates='all' (old)", lambda d: pairwise_agreement(d, duplicates="all", **C), ValueError,
     "duplicates must be one of 'error', 'last', 'count'; got 'all'"),
    ("pairwise: one worker", lambda d: pairwise_agreement(d[d.worker_id == "w1"], **C), ValueError, "no two workers share an annotation"),
    # codes and counts
    ("reliability_codes: wrong label column", lambda d: reliability_codes(d, **{**C, "label": "relations"}), ValueError,
     "label='relations'"),
    ("unit_value_counts: empty typo", lambda d: unit_value_counts(d, empty="skip", **C), ValueError,
     "empty must be one of 'error', 'drop', 'label'; got 'skip'"),
    ("alpha_from_counts: negative counts", lambda d: alpha_from_counts(np.array([[2, -1], [1, 1]])), ValueError,
     "counts must hold non-negative numbers"),
    ("alpha_from_counts: labels of the wrong length", lambda d: alpha_from_counts(np.array([[2, 0], [1, 1]]), labels=[1, 2, 3]),
     ValueError, "labels has 3 values but counts have 2 columns"),
    ("alpha_from_counts: level typo", lambda d: alpha_from_counts(np.array([[2, 0], [1, 1]]), level="metric"), ValueError,
     "level must be one of"),
    ("agreement_table: not a result", lambda d: agreement_table(d), TypeError, "needs the PairwiseAgreement"),
    # reference data
    ("read_published_agreements: no file", lambda d: read_published_agreements("/no/such/semantic agreements.csv"),
     ValueError, "'/no/such/semantic agreements.csv' does not exist"),
    ("read_spatial_prepositions: no folder", lambda d: read_spatial_prepositions("/no/such/folder"), ValueError,
     "folder '/no/such/folder' not found"),
    ("spatial tables: match typo", lambda d: spatial_prepositions_agreements(match="fuzzy"), ValueError,
     "match must be one of 'token', 'substring'; got 'fuzzy'"),
    ("spatial tables: duplicates typo", lambda d: spatial_prepositions_agreements(duplicates="all"), ValueError,
     "duplicates must be one of 'count', 'last'; got 'all'"),
    # trust
    ("trust: threshold=nan", lambda d: trust_coefficients(d, threshold=float("nan"), **C), ValueError,
     "threshold must be a finite number; got nan"),
    ("trust: threshold a string", lambda d: trust_coefficients(d, threshold="0.5", **C), TypeError, "threshold must be a number"),
    ("trust: negative tie_tol", lambda d: trust_coefficients(d, tie_tol=-1e-9, **C), ValueError, "tie_tol must be in [0, inf)"),
    ("trust: more than 20 workers", lambda d: trust_coefficients(many_workers(d), **N), ValueError,
     "21 workers give 2^21 - 21 - 1 = 2,097,130 subsets"),
    ("trust: max_workers=1", lambda d: trust_coefficients(d, max_workers=1, **C), ValueError, "max_workers must be at least 2; got 1"),
    ("trust: chunk_mb=0", lambda d: trust_coefficients(d, chunk_mb=0, **C), ValueError, "chunk_mb must be in (0, inf); got 0"),
    ("trust: progress=nan", lambda d: trust_coefficients(d, progress=float("nan"), **C), ValueError, "progress must be one of"),
    ("trust: strings at the ratio level", lambda d: trust_coefficients(d, level="ratio", **C), TypeError, "level='ratio' needs numeric labels"),
    ("trust: level typo", lambda d: trust_coefficients(d, level="Nominal", **C), ValueError, "got 'Nominal'"),
    ("trust: old raters=", lambda d: trust_coefficients(d, raters=["w1"], **C), TypeError, "raters=: it is now workers="),
    ("trust: old max_raters=", lambda d: trust_coefficients(d, max_raters=30, **C), TypeError, "max_raters=: it is now max_workers="),
    ("trust: one worker", lambda d: trust_coefficients(d[d.worker_id == "w3"], **C), ValueError, "at least 2 workers, got 1"),
    ("trust: no shared units", lambda d: trust_coefficients(no_shared(d), **C), UndefinedAgreement,
     "no subset of workers has a defined alpha"),
    ("trust: an ndarray", lambda d: trust_coefficients(d[["score"]].to_numpy()), TypeError, "Judgments.from_matrix"),
    ("subset_alphas: one worker", lambda d: subset_alphas(d[d.worker_id == "w1"], **N), ValueError, "at least 2 workers, got 1"),
    ("check_workers: more workers than max_workers", lambda d: check_workers(21, 20), ValueError,
     "2^21 - 21 - 1 = 2,097,130 subsets"),
    ("reliability_data: level typo", lambda d: reliability_data(d, level="cardinal", **N), ValueError, "got 'cardinal'"),
    ("reliability_data: wrong worker column", lambda d: reliability_data(d, **{**N, "worker": "coder"}), ValueError, "worker='coder'"),
    ("algorithm1_coefs: tie_tol=nan", lambda d: algorithm1_coefs([0.1, 0.2], tie_tol=float("nan")), ValueError,
     "tie_tol must be a finite number"),
    ("subset_codes: negative k", lambda d: subset_codes(-1), ValueError, "k must be between 0 and 62; got -1"),
    # the engine's building blocks (per-shard statistics, global formulas)
    ("alpha_from_coincidences: nothing pairable", lambda d: alpha_from_coincidences(np.zeros((2, 2)), [0, 1]),
     UndefinedAgreement, "no unit has judgments from two or more workers"),
    ("alpha_from_coincidences: values of another length", lambda d: alpha_from_coincidences(np.eye(2), [0, 1, 2]),
     ValueError, "labels has 3 values but counts have 2 columns"),
    ("alpha_scale: interval on words", lambda d: alpha_scale(as_judgments(d, **C), "interval", "f"), TypeError,
     "level='interval' needs numeric labels"),
    ("fleiss_sums: a 1-D table", lambda d: fleiss_sums(np.ones(3)), ValueError, "counts must be a 2-D table"),
    ("fleiss_from_sums: no unit", lambda d: fleiss_from_sums(dict(units=0, p_sum=0.0, totals=np.zeros(2), ratings=0.0)),
     UndefinedAgreement, "no unit has two or more ratings"),
    ("judgments_of: old rater=", lambda d: judgments_of(d, {"rater": "worker_id"}, "f"), TypeError, "it is now worker="),
    ("single_label: several labels", lambda d: single_label(as_judgments(d.assign(relation="a|b"), sep="|", **C), "f"),
     ValueError, "f needs one label per judgment; the judgments at rows 0, 1"),
    ("squared_distances: level typo", lambda d: squared_distances([0, 1], None, "cardinal"), ValueError, "got 'cardinal'"),
    ("shard_coincidences: several labels",
     lambda d: shard_coincidences(split_units(as_judgments(d.assign(relation="a|b"), sep="|", **C))[0], 2), ValueError,
     "the judgment of unit 's0' by worker 'w1' holds several"),
    ("shard_fleiss_sums: several labels",
     lambda d: shard_fleiss_sums(split_units(as_judgments(d.assign(relation="a|b"), sep="|", **C))[0], 2), ValueError,
     "fleiss_kappa needs one label per judgment"),
    ("pairwise_kappas: several labels", lambda d: pairwise_kappas(d.assign(relation="a|b"), sep="|", **C), ValueError,
     "pairwise_kappas needs one label per judgment"),
    ("pairwise_kappas: old rater=", lambda d: pairwise_kappas(d, rater="worker_id"), TypeError, "it is now worker="),
    ("agreement_scores: column absent", lambda d: agreement_scores(d, **{**C, "label": "answer"}), ValueError,
     "label='answer'"),
    # distances between sets of labels
    ("answer_counts: level typo", lambda d: answer_counts(as_judgments(d, **C), "cardinal"), ValueError, "got 'cardinal'"),
    ("answer_distances: level typo", lambda d: answer_distances(as_judgments(d, **C), "hamming"), ValueError, "got 'hamming'"),
    ("answer_sets: a DataFrame", lambda d: answer_sets(d), TypeError, "answer_sets takes Judgments"),
    ("check_distances: not symmetric", lambda d: check_distances([[0, 1], [2, 0]], [frozenset("a"), frozenset("b")]),
     ValueError, "not symmetric"),
    ("alpha_from_distances: wrong shape", lambda d: alpha_from_distances(np.ones((2, 2)), np.ones((3, 3))), ValueError,
     "distances must be a square matrix over the 2 values"),
    ("distance_alpha: level typo", lambda d: distance_alpha(d, "cardinal", **C), ValueError, "not 'cardinal'"),
    ("jaccard_distance: not a set", lambda d: jaccard_distance("ab", {"a"}), TypeError, "a must be a set of labels"),
    ("masi_distance: a number", lambda d: masi_distance({1}, 3), TypeError, "b must be a set of labels"),
    ("as_label_set: a string", lambda d: as_label_set("x|y", "answer"), TypeError, "not str 'x|y'"),
    ("set_distance_matrix: kind typo", lambda d: set_distance_matrix(np.zeros((2, 2), bool), "hamming"), ValueError,
     "got 'hamming'"),
    ("answers_are_sets: a DataFrame", lambda d: answers_are_sets(d, "masi"), TypeError, "answers_are_sets takes Judgments"),
    ("label_distances: sets of labels", lambda d: label_distances(as_judgments(d.assign(relation="a|b"), sep="|", **C),
                                                                  masi_distance), ValueError, "these answers are sets"),
    ("label_distances: matrix of the wrong size", lambda d: label_distances(as_judgments(d, **C), np.zeros((2, 2))),
     ValueError, "must be 3 x 3"),
    ("distance_weights: above 1", lambda d: distance_weights([[0, 3], [3, 0]], ["cause", "none"]), ValueError,
     "d('cause', 'none') = 3.0"),
    ("answers_as_labels: level typo", lambda d: answers_as_labels(d, "hamming", **C), ValueError, "got 'hamming'"),
    ("is_distance_level -> masi alpha on a ragged matrix",
     lambda d: krippendorff_alpha(d, level=np.zeros((2, 3)) if is_distance_level(np.zeros((2, 3))) else "x", **C),
     ValueError, "matrix"),
]


@pytest.mark.parametrize("call, exc, match", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_names_the_culprit(call, exc, match):
    df = BASE.copy()
    before = df.copy()
    with pytest.raises(exc) as info:
        call(df)
    assert match in str(info.value), f"{str(info.value)!r} does not name {match!r}"
    pd.testing.assert_frame_equal(df, before)                          # the caller's table is unchanged


def test_there_are_enough_cases_and_every_public_function_is_covered():
    import crowdnb.agreement as ag, crowdnb.trust as tr, crowdnb.distances as di
    import inspect
    public = {n for m in (ag, tr, di) for n, f in vars(m).items()
              if inspect.isfunction(f) and not n.startswith("_") and f.__module__ == m.__name__}
    src = inspect.getsource(inspect.getmodule(test_there_are_enough_cases_and_every_public_function_is_covered))
    body = src.split("CASES = [", 1)[1].split("\n]\n", 1)[0]
    uncovered = {n for n in public if f"{n}(" not in body} - {"coincidence_matrix", "code_masks"}
    assert len(CASES) >= 30 and not uncovered, uncovered


def test_low_level_coincidence_matrix_refuses_a_vector():
    "coincidence_matrix is low-level (its callers check the counts); a 1-D input is an error, not a silent result."
    with pytest.raises(ValueError, match=r"counts must be a 2-D units x values matrix, got shape \(2,\)"):
        coincidence_matrix(np.array([1.0, 2.0]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(level=st.text(max_size=12).filter(lambda s: s not in LEVELS),
       fn=st.sampled_from([krippendorff_alpha, alpha_bootstrap, trust_coefficients, subset_alphas, reliability_data]))
def test_any_unknown_level_is_named(level, fn):
    df = BASE.copy()
    with pytest.raises(ValueError) as info:
        fn(df, level=level, **N)
    assert "level must be one of" in str(info.value) and repr(level) in str(info.value)
    pd.testing.assert_frame_equal(df, BASE)


@settings(max_examples=30, deadline=None)
@given(n_boot=st.integers(max_value=0), seed=st.integers(max_value=-1))
def test_any_nonpositive_n_boot_or_negative_seed_is_named(n_boot, seed):
    with pytest.raises(ValueError, match=f"n_boot must be at least 1; got {n_boot}"):
        alpha_bootstrap(BASE, n_boot=n_boot, **C)
    with pytest.raises(ValueError, match=f"seed must be a non-negative int, not {seed}"):
        alpha_bootstrap(BASE, n_boot=5, seed=seed, **C)


@settings(max_examples=30, deadline=None)
@given(threshold=st.sampled_from([float("nan"), float("inf"), -float("inf")]),
       ci=st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0)))
def test_any_nonfinite_threshold_or_ci_outside_0_1_is_named(threshold, ci):
    with pytest.raises(ValueError, match="threshold must be a finite number"):
        trust_coefficients(BASE, threshold=threshold, **C)
    with pytest.raises(ValueError, match="ci must be"):
        alpha_bootstrap(BASE, ci=ci, n_boot=5, **C)
