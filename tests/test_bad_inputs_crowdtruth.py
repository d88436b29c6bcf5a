"""Bad input to the CrowdTruth front doors (crowdnb.crowdtruth.run, crowdnb.crowdtruth_v1.metrics), the workbook
writer, the low-level fixed point and the tutorial helpers: each case asserts the exception type, that the message
names the culprit (column, row, file, option or value), and that nothing the caller passed was changed.
Formula-looking ids are not an error: they are kept exactly, in the results and in the workbooks."""
from __future__ import annotations
import copy, re, warnings
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

from crowdnb.core import Judgments, as_judgments
from crowdnb import crowdtruth as ct
from crowdnb import crowdtruth_v1 as ct1

TOY = pd.DataFrame({"unit": ["a", "a", "a", "b", "b", "c", "c"],
                    "worker": ["w1", "w2", "w3", "w1", "w2", "w2", "w3"],
                    "label": ["x", "x", "y", "x", "y", "x", "y"]})


def toy():
    return TOY.copy(deep=True)


def csv(tmp: Path, name: str, data: bytes) -> Path:
    p = tmp / name
    p.write_bytes(data)
    return p


def v1_result():
    return ct1.metrics(toy())


# each case: (exception, text the message must hold, make(tmp) -> (function, args, kwargs))
CASES = [
    # columns: missing, renamed without saying so, named but absent
    pytest.param(ValueError, "lacks the column(s) worker='worker'; its columns are ['unit', 'label']",
                 lambda t: (ct.run, (toy().drop(columns="worker"),), {}), id="run-missing-column"),
    pytest.param(ValueError, "lacks the column(s) label='label'; its columns are ['unit', 'worker', 'answer']",
                 lambda t: (ct1.metrics, (toy().rename(columns={"label": "answer"}),), {}), id="metrics-renamed-column"),
    pytest.param(ValueError, "lacks the column(s) unit='sentence'",
                 lambda t: (ct1.metrics, (toy(),), dict(unit="sentence")), id="metrics-unit-not-there"),
    # the label set as one string, a wide matrix, options that do not apply to validated Judgments
    pytest.param(TypeError, "did you mean labels=['x', 'y']",
                 lambda t: (ct.run, (toy(),), dict(labels="x,y")), id="run-labels-string"),
    pytest.param(TypeError, "did you mean labels=['x', 'y']",
                 lambda t: (ct1.metrics, (toy(),), dict(labels="x,y")), id="metrics-labels-string"),
    pytest.param(TypeError, "not ndarray; a units x workers matrix enters through Judgments.from_matrix",
                 lambda t: (ct.run, (np.array([["x", "y"], ["x", "x"]]),), {}), id="run-ndarray"),
    pytest.param(TypeError, "not ndarray; a units x workers matrix enters through Judgments.from_matrix",
                 lambda t: (ct1.metrics, (np.array([["x", "y"], ["x", "x"]]),), {}), id="metrics-ndarray"),
    pytest.param(TypeError, "unit='sentence' applies to a table or a CSV file",
                 lambda t: (ct.run, (as_judgments(toy()),), dict(unit="sentence")), id="run-judgments-with-column-option"),
    # the old per-module parameter names are gone: named in the error
    pytest.param(TypeError, "'rater'", lambda t: (ct1.metrics, (toy(),), dict(rater="worker")), id="metrics-old-name-rater"),
    pytest.param(TypeError, "'value_domain'", lambda t: (ct.run, (toy(),), dict(value_domain=["x", "y"])),
                 id="run-old-name-value_domain"),
    # files: a folder, missing, empty, not UTF-8
    pytest.param(ValueError, "is a folder, not a CSV file", lambda t: (ct.run, (t,), {}), id="run-folder-as-path"),
    pytest.param(ValueError, "is a folder, not a CSV file", lambda t: (ct1.metrics, (str(t),), {}), id="metrics-folder-as-path"),
    pytest.param(ValueError, "nothing.csv' does not exist", lambda t: (ct.run, (t / "nothing.csv",), {}), id="run-missing-file"),
    pytest.param(ValueError, "empty.csv' is empty", lambda t: (ct.run, (csv(t, "empty.csv", b""),), {}), id="run-empty-csv"),
    pytest.param(ValueError, "latin1.csv' is not UTF-8 text (byte 0xe9",
                 lambda t: (ct1.metrics, (csv(t, "latin1.csv", "unit,worker,label\ns1,w1,caf\xe9\ns1,w2,x\n".encode("latin-1")),), {}),
                 id="metrics-non-utf8-csv"),
    pytest.param(ValueError, "header.csv' has no rows",
                 lambda t: (ct.run, (csv(t, "header.csv", b"unit,worker,label\n"),), {}), id="run-header-only-csv"),
    # rows: duplicates, empty answers, labels outside a closed task, repeated pairs per dimension
    pytest.param(ValueError, "duplicate judgments (same unit/worker) at rows 0, 7",
                 lambda t: (ct.run, (pd.concat([toy(), toy().iloc[:1]], ignore_index=True),), {}), id="run-duplicates"),
    pytest.param(ValueError, "duplicate judgments (same unit/worker) at rows 0, 7",
                 lambda t: (ct1.metrics, (pd.concat([toy(), toy().iloc[:1]], ignore_index=True),), {}), id="metrics-duplicates"),
    pytest.param(ValueError, "label column 'label' has empty answers at row 2",
                 lambda t: (ct.run, (toy().assign(label=["x", "x", "", "x", "y", "x", "y"]),), {}), id="run-empty-answer"),
    pytest.param(ValueError, "label column 'label' has empty answers at row 4",
                 lambda t: (ct1.metrics, (toy().assign(label=["x", "x", "y", "x", None, "x", "y"]),), {}), id="metrics-empty-answer"),
    pytest.param(ValueError, "outside the declared set ('z') at row 6",
                 lambda t: (ct.run, (toy().assign(label=["x", "x", "y", "x", "y", "x", "z"]),), dict(labels=["x", "y"])),
                 id="run-unknown-label-closed"),
    pytest.param(ValueError, "outside the declared set ('z') at row 6",
                 lambda t: (ct1.metrics, (toy().assign(label=["x", "x", "y", "x", "y", "x", "z"]),), dict(labels=["x", "y"])),
                 id="metrics-unknown-label-closed"),
    pytest.param(ValueError, "repeat a (unit, worker) pair (unit='a', worker='w1'); run each dimension separately",
                 lambda t: (ct.run, (pd.concat([toy().assign(d="d1"), toy().iloc[:1].assign(d="d2")], ignore_index=True),),
                            dict(dimension="d")), id="run-repeated-pair-dimension"),
    pytest.param(ValueError, "every unit has a single judgment (3 units, 1 worker(s))",
                 lambda t: (ct.run, (toy().query("worker == 'w2'"),), {}), id="run-one-worker"),
    # options
    pytest.param(ValueError, "tol must be in (0, inf); got -1", lambda t: (ct.run, (toy(),), dict(tol=-1)), id="run-tol-negative"),
    pytest.param(ValueError, "tol must be a finite number; got nan", lambda t: (ct.run, (toy(),), dict(tol=float("nan"))),
                 id="run-tol-nan"),
    pytest.param(ValueError, "max_iter must be at least 1; got 0", lambda t: (ct.run, (toy(),), dict(max_iter=0)), id="run-max-iter-0"),
    pytest.param(TypeError, "max_iter must be an integer, not 2.5", lambda t: (ct.run, (toy(),), dict(max_iter=2.5)),
                 id="run-max-iter-float"),
    pytest.param(ValueError, "single must be one of 'keep', 'drop'; got 'nope'", lambda t: (ct.run, (toy(),), dict(single="nope")),
                 id="run-single"),
    pytest.param(TypeError, "reference must be True or False, not 'yes'", lambda t: (ct.run, (toy(),), dict(reference="yes")),
                 id="run-reference-not-bool"),
    pytest.param(ValueError, "duplicates must be one of 'error', 'last', 'count'; got 'skip'",
                 lambda t: (ct1.metrics, (toy(),), dict(duplicates="skip")), id="metrics-duplicates-option"),
    pytest.param(ValueError, "subtract must be one of 'worker_sentence_score', 'cosine'; got 'x'",
                 lambda t: (ct1.metrics, (toy(),), dict(subtract="x")), id="metrics-subtract"),
    pytest.param(ValueError, "subtract must be one of 'worker_sentence_score', 'cosine'; got 'sign'",
                 lambda t: (ct1.worker_relation_score, (toy(),), dict(subtract="sign")), id="worker-relation-subtract"),
    # the low-level fixed point
    pytest.param(ValueError, "tol must be in (0, inf); got -1",
                 lambda t: (ct.fixed_point, (ct.CrowdIndex(as_judgments(toy())),), dict(tol=-1)), id="fixed-point-tol"),
    pytest.param(ValueError, "max_iter must be at least 1; got 0",
                 lambda t: (ct.fixed_point, (ct.CrowdIndex(as_judgments(toy())),), dict(max_iter=0)), id="fixed-point-max-iter"),
    pytest.param(TypeError, "fixed_point takes a CrowdIndex (low-level), not DataFrame",
                 lambda t: (ct.fixed_point, (toy(),), {}), id="fixed-point-dataframe"),
    pytest.param(TypeError, "CrowdIndex takes validated Judgments (low-level), not DataFrame",
                 lambda t: (ct.CrowdIndex, (toy(),), {}), id="crowd-index-dataframe"),
    # workbooks
    pytest.param(TypeError, "result must be the CrowdTruthV1 returned by metrics(), not DataFrame",
                 lambda t: (ct1.write_workbooks, (toy(), "job", t), {}), id="workbooks-not-a-result"),
    pytest.param(ValueError, "job_id '../x' cannot be part of a file name",
                 lambda t: (ct1.write_workbooks, (v1_result(), "../x", t), {}), id="workbooks-job-id-path"),
    pytest.param(TypeError, "job_id must be a string or an integer, not float",
                 lambda t: (ct1.write_workbooks, (v1_result(), 1.5, t), {}), id="workbooks-job-id-float"),
    pytest.param(ValueError, "file.txt' exists and is not a directory",
                 lambda t: (ct1.write_workbooks, (v1_result(), "job", csv(t, "file.txt", b"x")), {}), id="workbooks-folder-is-file"),
    pytest.param(ValueError, "sheet 'workerSentenceScore' holds a control character",
                 lambda t: (ct1.write_workbooks, (ct1.metrics(toy().assign(unit=toy()["unit"] + "\x01")), "job", t), {}),
                 id="workbooks-control-character"),
    # tutorial helpers
    pytest.param(ValueError, "nowhere' does not exist", lambda t: (ct.tutorial_run, ("binary-relex", t / "nowhere"), {}),
                 id="tutorial-run-missing-folder"),
    pytest.param(ValueError, "relex-binary-choice.csv' does not exist", lambda t: (ct.tutorial_run, ("binary-relex", t), {}),
                 id="tutorial-run-missing-file"),
    pytest.param(ValueError, "name must be one of 'binary-relex'", lambda t: (ct.tutorial_run, ("binary", t), {}),
                 id="tutorial-run-unknown-name"),
    pytest.param(ValueError, "results' does not exist", lambda t: (ct.tutorial_stored, ("crowdtruth_rte", t), {}),
                 id="tutorial-stored-missing-results"),
]


def _snap(x):
    "A deep copy of what the caller passed (file contents for paths)."
    if isinstance(x, pd.DataFrame): return x.copy(deep=True)
    if isinstance(x, Judgments): return (x.frame.copy(deep=True), x.labels.copy())
    if isinstance(x, (str, Path)) and Path(x).is_file(): return Path(x).read_bytes()
    if isinstance(x, (str, Path)) and Path(x).is_dir(): return sorted(p.name for p in Path(x).iterdir())
    return copy.deepcopy(x)


def _same(x, before):
    if isinstance(x, pd.DataFrame): pd.testing.assert_frame_equal(x, before)
    elif isinstance(x, Judgments):
        pd.testing.assert_frame_equal(x.frame, before[0]); pd.testing.assert_index_equal(x.labels, before[1])
    elif isinstance(x, (str, Path)) and Path(x).is_file(): assert Path(x).read_bytes() == before
    elif isinstance(x, (str, Path)) and Path(x).is_dir(): assert sorted(p.name for p in Path(x).iterdir()) == before
    elif isinstance(x, np.ndarray): np.testing.assert_array_equal(x, before)
    elif isinstance(x, ct1.CrowdTruthV1): pd.testing.assert_frame_equal(x.workers, before.workers)
    elif isinstance(x, ct.CrowdIndex): np.testing.assert_array_equal(x.unit, before.unit)
    else: assert x == before or (x != x and before != before)     # NaN stays NaN


@pytest.mark.parametrize("exc,msg,make", CASES)
def test_bad_input_is_named_and_nothing_changes(exc, msg, make, tmp_path):
    fn, args, kwargs = make(tmp_path)
    given = list(args) + list(kwargs.values())
    before = [_snap(x) for x in given]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # e.g. single-judgment units, before the error
        with pytest.raises(exc, match=re.escape(msg)):
            fn(*args, **kwargs)
    for x, b in zip(given, before): _same(x, b)


def test_enough_cases():
    assert len(CASES) >= 25


def test_failed_workbook_leaves_no_file(tmp_path):
    "A workbook that cannot be written is not left half-written (it is written to a temporary file first)."
    bad = ct1.metrics(toy().assign(worker=toy()["worker"] + "\x02"))
    with pytest.raises(ValueError, match="holds a control character"):
        ct1.write_workbooks(bad, "job", tmp_path)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- formula-looking text is data, kept exactly
EVIL = pd.DataFrame({"unit": ["=1+1", "=1+1", "=1+1", "-s2", "-s2", "@s3", "@s3"],
                     "worker": ['=HYPERLINK("http://evil.example","x")', "+w2", "@w3",
                                '=HYPERLINK("http://evil.example","x")', "+w2", "+w2", "@w3"],
                     "label": ["=SUM(A1:A9)", "=SUM(A1:A9)", "+cmd|' /C calc'!A0", "=SUM(A1:A9)", "-2+3", "-2+3",
                               "@SUM(1)"]})


def _cells(paths):
    return [cell for p in paths for ws in openpyxl.load_workbook(p).worksheets for row in ws.iter_rows() for cell in row]


def test_formula_looking_ids_kept_in_results():
    before = EVIL.copy(deep=True)
    r = ct.run(EVIL, labels=sorted(set(EVIL["label"])))
    assert set(r.workers.index) == set(EVIL["worker"]) and set(r.units.index) == set(EVIL["unit"])
    assert set(r.annotations.index) == set(EVIL["label"])
    m = ct1.metrics(EVIL)
    assert set(m.workers.index) == set(EVIL["worker"]) and set(m.relations.index) == set(EVIL["label"])
    pd.testing.assert_frame_equal(EVIL, before)


def test_workbooks_write_no_formula(tmp_path):
    "Every text cell stays text: no cell of either workbook is a formula, and each id and label is there verbatim."
    r = ct1.metrics(EVIL)
    paths = ct1.write_workbooks(r, "evil", tmp_path)
    cells = _cells(paths)
    assert [c.coordinate for c in cells if c.data_type == "f"] == []
    values = {c.value for c in cells}
    assert set(EVIL["unit"]) | set(EVIL["worker"]) | set(EVIL["label"]) <= values
    flagged = [c for c in cells if isinstance(c.value, str) and c.value[:1] in "=+-@"]
    assert flagged and all(c.data_type == "s" and c.quotePrefix for c in flagged)
    # pandas reads the same text back
    wm = pd.read_excel(paths[0], sheet_name="workerMetrics", index_col=0)
    assert set(wm.index) == set(EVIL["worker"])


def test_without_the_guard_openpyxl_would_write_formulas(tmp_path, monkeypatch):
    "The check above is sensitive: with the guard switched off, the worker id becomes a live formula."
    monkeypatch.setattr(ct1, "_text_cells", lambda ws: 0)
    paths = ct1.write_workbooks(ct1.metrics(EVIL), "unsafe", tmp_path)
    assert any(c.data_type == "f" for c in _cells(paths))
