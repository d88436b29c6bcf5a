"""Bad input to the coreference reader and scorer and to the human-evaluation tables: every case raises the right
exception type, names its culprit (file, line, column, option, value, rater, unit) and leaves the caller's inputs
exactly as they were."""
import copy
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from crowdnb.core import Judgments
from crowdnb.coref import read_conll, score
from crowdnb.humeval import (alpha_table, error_regression, inject_errors, metric_gap_table, metric_scores,
                             simulate_ratings)

HEAD = "#begin document (x); part 000\n"
STUDY = HEAD + "x\t0\tShe\t(1)\nx\t1\tsaw\t(-\nx\t2\therself\t(1)\nx\t3\tthere\t-\n#end document\n"   # '(-' on line 3
MIXED = STUDY.replace("(-", "(4|(-").replace("there\t-", "there\t4)")                               # '4)' on line 5
NAMES = dict(unit="item", worker="rater", label="rating")
GOLD = [((0, 0), (2, 2), (4, 4)), ((6, 6), (8, 8))]


def _long():
    "Four answers of two raters on two items, with the caller's own column names."
    return pd.DataFrame({"item": ["q1", "q1", "q2", "q2"], "rater": ["a", "b", "a", "b"], "rating": [7, 5, 0, 1]})

def _scores():
    return pd.DataFrame({"muc": [0.9, 0.6]}, index=["q1", "q2"])

def _counts():
    return pd.DataFrame({"border": [1, 0], "silence": [0, 1]}, index=["q1", "q2"])

def _file(tmp, name, text=None, data=None):
    p = Path(tmp) / name
    if data is not None: p.write_bytes(data)
    else: p.write_text(text)
    return p


def _ratings(fn, *rest, data=None, **kw):
    "A ratings call on the standard small table (or `data`) with the caller's column names."
    return lambda tmp: (fn, (_long() if data is None else data, *rest), {**NAMES, **kw})


CASES = [
    # ------------------------------------------------------------------ read_conll
    ("conll-malformed-strict", lambda tmp: (read_conll, (_file(tmp, "study.conll", STUDY),), {}),
     ValueError, "study.conll', line 3: malformed coreference column '(-'"),
    ("conll-malformed-skip-unbalanced", lambda tmp: (read_conll, (_file(tmp, "mixed.conll", MIXED),), {"malformed": "skip"}),
     ValueError, "mixed.conll', line 5: closing bracket '4)'"),
    ("conll-malformed-option", lambda tmp: (read_conll, (STUDY,), {"malformed": "ignore"}),
     ValueError, "malformed must be one of 'error', 'skip'; got 'ignore'"),
    ("conll-empty-file", lambda tmp: (read_conll, (_file(tmp, "empty.conll", ""),), {}),
     ValueError, "empty.conll' is empty"),
    ("conll-blank-file", lambda tmp: (read_conll, (_file(tmp, "blank.conll", "\n\n  \n"),), {}),
     ValueError, "blank.conll' is empty"),
    ("conll-no-document", lambda tmp: (read_conll, (_file(tmp, "comments.conll", "# a comment\n"),), {}),
     ValueError, "comments.conll' holds no document"),
    ("conll-folder", lambda tmp: (read_conll, (Path(tmp),), {}),
     ValueError, "is a folder, not a file"),
    ("conll-missing-file", lambda tmp: (read_conll, (str(Path(tmp) / "none.conll"),), {}),
     ValueError, "none.conll' does not exist"),
    ("conll-not-utf8", lambda tmp: (read_conll, (_file(tmp, "latin1.conll", data=(HEAD + "x\t0\tcaf\xe9\t-\n#end document\n").encode("latin-1")),), {}),
     ValueError, "latin1.conll' is not UTF-8 text (byte 0xe9 at line 2"),
    ("conll-bytes", lambda tmp: (read_conll, (STUDY.encode(),), {}),
     TypeError, "read_conll takes a path or CoNLL text, not bytes"),
    ("conll-no-end", lambda tmp: (read_conll, (_file(tmp, "open.conll", HEAD + "x\t0\ta\t(1)\n"),), {}),
     ValueError, "open.conll', line 1: document 'x-000' has no '#end document'"),
    # ------------------------------------------------------------------ score
    ("score-unknown-metric", lambda tmp: (score, (GOLD, GOLD), {"metrics": ["muc", "rand"]}),
     ValueError, "unknown metric 'rand'"),
    ("score-metric-not-a-name", lambda tmp: (score, (GOLD, GOLD), {"metrics": [3]}),
     TypeError, "metric names are strings, not 3"),
    ("score-blanc-option", lambda tmp: (score, (GOLD, GOLD), {"blanc": "rand"}),
     ValueError, "blanc must be one of 'reference', 'luo2014'; got 'rand'"),
    ("score-flag-not-bool", lambda tmp: (score, (GOLD, GOLD), {"singletons": "no"}),
     TypeError, "singletons must be True or False, not 'no'"),
    ("score-key-without-mentions", lambda tmp: (score, (read_conll(_file(tmp, "nomention.conll", HEAD + "x\t0\ta\t-\n#end document\n")),
                                                        {"x-000": GOLD}), {}),
     ValueError, "nomention.conll') has no mention in its 1 document(s)"),
    ("score-empty-key", lambda tmp: (score, ({}, {}), {}),
     ValueError, "the key has no document"),
    ("score-response-extra-document", lambda tmp: (score, ({"x-000": GOLD}, {"x-000": GOLD, "zz-000": GOLD}), {}),
     ValueError, "response documents not in the key: ['zz-000']"),
    ("score-bad-mention", lambda tmp: (score, ([((0, 0), (3, 1))], GOLD), {}),
     ValueError, "key document 'doc', cluster 0: mention (3, 1) needs 0 <= start <= end"),
    # ------------------------------------------------------------------ metric_scores
    ("metric-scores-unknown-metric", lambda tmp: (metric_scores, ({"q1": GOLD}, {"q1": GOLD}), {"metrics": ["pairwise"]}),
     ValueError, "unknown metric 'pairwise'"),
    ("metric-scores-not-dicts", lambda tmp: (metric_scores, (GOLD, GOLD), {}),
     TypeError, "key and response must be dicts {unit: clustering}, not list and list"),
    ("metric-scores-pooled", lambda tmp: (metric_scores, ({"q1": GOLD}, {"q1": GOLD}), {"pooled": True}),
     TypeError, "['pooled'] cannot be set"),
    ("metric-scores-missing-unit", lambda tmp: (metric_scores, ({"q1": GOLD, "q2": GOLD}, {"q1": GOLD}), {}),
     ValueError, "key documents missing from the response: ['q2']"),
    # ------------------------------------------------------------------ alpha_table (ratings through as_judgments)
    ("alpha-wide-table", lambda tmp: (alpha_table, (pd.DataFrame({"q1": [7, 5], "q2": [0, 1]}, index=["a", "b"]),), {}),
     ValueError, "lacks the column(s) unit='unit', worker='worker', label='label'"),
    ("alpha-wrong-column", _ratings(alpha_table, label="score"),
     ValueError, "lacks the column(s) label='score'; its columns are ['item', 'rater', 'rating']"),
    ("alpha-labels-string", _ratings(alpha_table, labels="0,1,2,3,4,5,6,7"),
     TypeError, "labels must be a list of labels, not the string '0,1,2,3,4,5,6,7'"),
    ("alpha-out-of-scale", _ratings(alpha_table, data=_long().assign(rating=[7, 9, 0, 1])),
     ValueError, "rating(s) outside the standard scale (integers 0..7): worker 'b', unit 'q1': 9"),
    ("alpha-not-numbers", _ratings(alpha_table, data=_long().assign(rating=["7", "x", "0", "1"])),
     TypeError, "ratings must be numbers"),
    ("alpha-level", _ratings(alpha_table, level="likert"),
     ValueError, "level must be one of 'nominal', 'ordinal', 'interval', 'ratio'; got 'likert'"),
    ("alpha-threshold", _ratings(alpha_table, threshold=1.5),
     ValueError, "threshold must be in [0, 1]; got 1.5"),
    ("alpha-scale-name", _ratings(alpha_table, scales=["standard", "likert"]),
     ValueError, "scale must be one of 'standard', 'reduced', 'gravity', 'importance'; got 'likert'"),
    ("alpha-empty-answer", _ratings(alpha_table, data=_long().assign(rating=[7, np.nan, 0, 1])),
     ValueError, "label column 'rating' has empty answers at row 1"),
    ("alpha-csv-not-utf8", lambda tmp: (alpha_table, (_file(tmp, "r.csv", data="item,rater,rating\nq\xe9,a,7\n".encode("latin-1")),), NAMES),
     ValueError, "r.csv' is not UTF-8 text (byte 0xe9"),
    ("alpha-folder", lambda tmp: (alpha_table, (Path(tmp),), NAMES),
     ValueError, "is a folder, not a CSV file"),
    # ------------------------------------------------------------------ metric_gap_table
    ("gap-percentages", _ratings(metric_gap_table, _scores() * 100),
     ValueError, "unit 'q1', metric 'muc' is 90.0"),
    ("gap-unit-mismatch", _ratings(metric_gap_table, _scores().rename(index={"q2": "q9"})),
     ValueError, "rated unit(s) 'q2' are missing from metric_scores; metric_scores has unit(s) 'q9' that nobody rated"),
    ("gap-ties", _ratings(metric_gap_table, _scores(), ties="median"),
     ValueError, "ties must be one of 'low', 'high', 'mean'; got 'median'"),
    ("gap-measure", _ratings(metric_gap_table, _scores(), measure="F-score"),
     ValueError, "measure must be one of 'recall', 'precision', 'f1'; got 'F-score'"),
    ("gap-missing-score", _ratings(metric_gap_table, _scores().assign(muc=[0.9, np.nan])),
     ValueError, "metric_scores has missing values, e.g. unit 'q2', column 'muc'"),
    # ------------------------------------------------------------------ error_regression
    ("regression-unknown-rater", _ratings(error_regression, _counts(), exclude=["zz"]),
     ValueError, "cannot exclude unknown rater(s) 'zz'; the raters are 'a', 'b'"),
    ("regression-target", _ratings(error_regression, _counts(), target="points"),
     ValueError, "target must be one of 'unit', 'raw'; got 'points'"),
    ("regression-ridge", _ratings(error_regression, _counts(), ridge=-1),
     ValueError, "ridge must be in [0, inf); got -1"),
    ("regression-fractional-counts", _ratings(error_regression, _counts() * 0.5),
     ValueError, "error_counts must be non-negative integers: unit 'q1', type 'border' is 0.5"),
    ("regression-duplicates", _ratings(error_regression, _counts(), data=pd.concat([_long(), _long()], ignore_index=True)),
     ValueError, "duplicate judgments (same unit/worker) at rows 0, 1, 2, 3, 4 and 3 more"),
    ("regression-too-few-items", _ratings(error_regression, _counts(), scales=["standard"]),
     ValueError, "cannot fit model 'STANDARD_MEAN': 2 items cannot fit 2 error types and an intercept"),
    # ------------------------------------------------------------------ inject_errors
    ("inject-negative-seed", lambda tmp: (inject_errors, (GOLD, {"noise": 1}), {"n_tokens": 10, "seed": -1}),
     ValueError, "seed must be a non-negative int, not -1"),
    ("inject-unknown-type", lambda tmp: (inject_errors, (GOLD, {"typo": 1}), {"n_tokens": 10}),
     ValueError, "unknown error type 'typo'"),
    ("inject-negative-count", lambda tmp: (inject_errors, (GOLD, {"noise": -1}), {"n_tokens": 10}),
     ValueError, "counts['noise'] must be a non-negative integer, got -1"),
    ("inject-noise-length", lambda tmp: (inject_errors, (GOLD, {"noise": 1}), {"n_tokens": 10, "noise_length": (3, 1)}),
     ValueError, "noise_length must be (min, max) with min <= max, got (3, 1)"),
    ("inject-irrelevant-size", lambda tmp: (inject_errors, (GOLD, {"irrelevant": 1}), {"n_tokens": 10, "irrelevant_size": 1}),
     ValueError, "irrelevant_size must be at least 2; got 1"),
    ("inject-on-fail", lambda tmp: (inject_errors, (GOLD, {}), {"on_fail": "ignore"}),
     ValueError, "on_fail must be one of 'raise', 'skip'; got 'ignore'"),
    ("inject-beyond-document", lambda tmp: (inject_errors, (GOLD, {}), {"n_tokens": 5}),
     ValueError, "gold: chain 1 holds (6, 6), beyond the document's 5 tokens"),
    # ------------------------------------------------------------------ simulate_ratings
    ("simulate-negative-seed", lambda tmp: (simulate_ratings, (_counts(),), {"seed": -3}),
     ValueError, "seed must be a non-negative int, not -3"),
    ("simulate-outliers", lambda tmp: (simulate_ratings, (_counts(),), {"n_workers": 2, "n_outliers": 3}),
     ValueError, "n_outliers must be between 0 and 2; got 3"),
    ("simulate-missing", lambda tmp: (simulate_ratings, (_counts(),), {"missing": 1.0}),
     ValueError, "missing must be in [0, 1); got 1.0"),
    ("simulate-not-a-frame", lambda tmp: (simulate_ratings, (_counts().to_numpy(),), {}),
     TypeError, "error_counts must be a units x error types DataFrame"),
    ("simulate-no-penalty", lambda tmp: (simulate_ratings, (_counts(),), {"penalties": {"border": 1.0}}),
     ValueError, "no penalty given for error type(s) 'silence'"),
    ("simulate-negative-counts", lambda tmp: (simulate_ratings, (_counts() - 1,), {}),
     ValueError, "unit 'q1', type 'silence' is -1.0"),
]


def _same(a, b):
    "Deep equality that understands DataFrames, arrays, Judgments and nested containers."
    if isinstance(a, pd.DataFrame): return isinstance(b, pd.DataFrame) and a.equals(b) and a.dtypes.equals(b.dtypes) \
        and a.index.equals(b.index) and a.columns.equals(b.columns)
    if isinstance(a, np.ndarray): return isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, Judgments): return _same(a.frame, b.frame)
    if isinstance(a, dict): return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)): return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return a == b


@pytest.mark.parametrize("name, build, exc, msg", CASES, ids=[c[0] for c in CASES])
def test_bad_input(tmp_path, name, build, exc, msg):
    fn, args, kwargs = build(tmp_path)
    before = copy.deepcopy((args, kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as err:
            fn(*args, **kwargs)
    assert issubclass(err.type, exc), f"{name}: {err.type.__name__} instead of {exc.__name__}: {err.value}"
    assert msg in str(err.value), f"{name}: {msg!r} not in {str(err.value)!r}"
    assert _same((args, kwargs), before), f"{name}: the inputs were modified"


def test_enough_cases():
    "The brief asks for at least 25 cases over eight functions."
    assert len(CASES) >= 25
    covered = {c[0].split("-")[0] for c in CASES}
    assert covered >= {"conll", "score", "metric", "alpha", "gap", "regression", "inject", "simulate"}


def test_malformed_skip_reports_lines(tmp_path):
    "The lenient reader skips '(-', warns with the file and line, records it, and reads the rest as with '-'."
    p = _file(tmp_path, "study.conll", STUDY)
    with pytest.warns(UserWarning, match=r"study\.conll'.*skipped 1 malformed coreference cell\(s\), read as '-', at line\(s\) 3"):
        docs = read_conll(p, malformed="skip")
    assert docs.skipped[["line", "document", "cell"]].values.tolist() == [[3, "x-000", "(-"]]
    assert docs.skipped["file"].tolist() == [str(p)]
    assert dict(docs) == dict(read_conll(STUDY.replace("(-", "-")))
