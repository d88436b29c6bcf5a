"""Bad inputs through the `crowdnb` command line, for every subcommand: each ends with status 2 and ONE stderr line
`crowdnb: error: ...` that names the culprit (the file, the flag, the column, the CSV line, the value) in the words of
the command line (flags, never the library's Python keywords such as `max_iter=` or `duplicates='last'`).
Argparse's own usage errors (an unknown choice, a missing argument) are checked apart: usage, then one error line.
Last, formula injection: ids and answers that look like spreadsheet formulas stay text in every CSV and xlsx written."""
import csv, re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from crowdnb.cli import build_parser, main


def run(capsys, *argv):
    "main(argv) in-process: (exit status, stdout, stderr)."
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _dests() -> set:
    "The destination (Python) names of every option of every subcommand."
    import argparse
    names = set()
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                names |= {a.dest for a in sub._actions if a.option_strings and a.dest != "help"}
    return names

DESTS = _dests()
# the Python keyword form of an option: `max_iter=`, `labels=`, `workers=(a, b)`, or a bare `max_workers`, `n_boot`
PYTHON_FORM = re.compile(r"\b(" + "|".join(sorted(DESTS | {"n_boot", "max_iter", "n_starts", "max_workers", "none_token",
                                                           "workers", "labels", "duplicates", "missing"}, key=len, reverse=True))
                         + r")=|\b(" + "|".join(sorted(d for d in DESTS | {"n_boot", "max_iter", "n_starts", "max_workers",
                                                                           "none_token", "tie_tol"} if "_" in d)) + r")\b")


def test_python_form_pattern():
    "The pattern itself: it catches the keyword forms and lets flags through."
    assert {"max_iter", "n_boot", "n_starts", "max_workers", "workers", "labels", "duplicates", "none_token"} <= DESTS
    for bad in ("max_iter must be at least 1", "pass duplicates='last'", "pass workers=(a, b)", "pass labels= in order",
                "the limit is max_workers=3", "n_boot must be", "missing='gwet'"):
        assert PYTHON_FORM.search(bad), bad
    for good in ("--max-iter must be at least 1", "pass --duplicates last", "--workers a b", "--labels low,mid,high",
                 "missing judgments", "the labels that occur", "two workers"):
        assert not PYTHON_FORM.search(good), good


# ---------------------------------------------------------------- the files
LONG = "unit,worker,label\nu1,a,1\nu1,b,2\nu2,a,3\nu2,b,3\nu3,a,1\nu3,b,1\n"
FILES = {
    "long.csv": LONG,
    "text.csv": "unit,worker,label\nu1,a,low\nu1,b,mid\nu2,a,high\nu2,b,high\nu3,a,low\nu3,b,mid\n",
    "three.csv": "unit,worker,label\nu1,a,x\nu1,b,y\nu1,c,x\nu2,a,y\nu2,b,y\nu2,c,x\n",
    "header.csv": "unit,worker,label\n",
    "empty.csv": "",
    "dupcol.csv": "unit,worker,unit\nu1,a,1\nu1,b,2\n",
    "dups.csv": "unit,worker,label\nu1,a,1\nu1,a,2\nu2,b,1\nu2,a,1\n",
    "emptyanswer.csv": "unit,worker,label\nu1,a,1\nu1,b,\nu2,b,1\nu2,a,2\n",
    "multi.csv": "unit,worker,label\nu1,a,x|y\nu1,b,y\nu2,a,y\nu2,b,x\n",
    "five.csv": "unit,worker,label\n" + "".join(f"u{u},w{w},{(u + w) % 3}\n" for u in range(4) for w in range(5)),
    "widestar.csv": "item,a,b\nu1,1,*\nu2,2,2\nu3,1,2\n",
    "wideempty.csv": "item,a,b\nu1,,\nu2,,\n",
    "wideblank.csv": "item,a,,c\nu1,1,2,1\nu2,2,2,1\nu3,1,1,2\n",
    "wideblanks.csv": "item,a, ,c,\nu1,1,2,1,1\nu2,2,2,1,2\n",
    "gaps.csv": "unit,worker,label\nu1,a,x|y\n\nu1,b,y\nu2,a,y\nu2,b,x|y\n",
    "notafolder": "just a file\n",
    "ok.conll": "#begin document (d); part 000\nd 0 0 A (1)\nd 0 1 B (1)\n#end document\n",
    "bad.conll": "#begin document (d); part 000\nd 0 0 A (1\nd 0 1 B xx\n#end document\n",
    "empty.conll": "",
}


@pytest.fixture
def d(tmp_path):
    for name, text in FILES.items(): (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "latin1.csv").write_bytes("unit,worker,label\nu1,a,caf\xe9\n".encode("latin-1"))
    (tmp_path / "folder").mkdir()
    return tmp_path


def check(status, out, err, d, culprits):
    "Status 2, nothing on stdout, one `crowdnb: error: ` line naming every culprit, no Python keyword forms."
    assert status == 2, (status, err)
    assert out == "", out
    assert err.startswith("crowdnb: error: ") and err.endswith("\n") and err.count("\n") == 1, err
    line = err.rstrip("\n")
    for c in culprits: assert c.format(d=d) in line, (c, line)
    bare = line.replace(str(d), "<d>")                      # the folder of the test (its name) is not the message
    assert not PYTHON_FORM.search(bare), (PYTHON_FORM.search(bare).group(0), line)
    assert "Traceback" not in line and "Error:" not in line and "Error(" not in line


def xfail(reason):
    return pytest.mark.xfail(strict=True, reason=reason)


# (argv, culprits the one line must name); {d} is the folder of the files
CASES = {
    # ---- crowdtruth
    "crowdtruth-missing-file": (["crowdtruth", "{d}/none.csv"], ["'{d}/none.csv'", "does not exist"]),
    "crowdtruth-folder": (["crowdtruth", "{d}/folder"], ["'{d}/folder'", "folder"]),
    "crowdtruth-not-utf8": (["crowdtruth", "{d}/latin1.csv"], ["'{d}/latin1.csv'", "UTF-8", "0xe9"]),
    "crowdtruth-wrong-worker-column": (["crowdtruth", "{d}/long.csv", "--worker", "annotator"],
                                       ["--worker annotator", "['unit', 'worker', 'label']", "'{d}/long.csv'"]),
    "crowdtruth-empty-answer": (["crowdtruth", "{d}/emptyanswer.csv"], ["line 3", "--empty drop", "--empty label"]),
    "crowdtruth-open-with-labels": (["crowdtruth", "{d}/long.csv", "--open", "--labels", "1,2,3"], ["--open", "--labels"]),
    "crowdtruth-max-iter-0": (["crowdtruth", "{d}/long.csv", "--max-iter", "0"], ["--max-iter", "0"]),
    "crowdtruth-tol-negative": (["crowdtruth", "{d}/long.csv", "--tol", "-1"], ["--tol", "-1"]),
    "crowdtruth-out-is-a-file": (["crowdtruth", "{d}/long.csv", "--out", "{d}/notafolder"], ["--out", "'{d}/notafolder'"]),
    "crowdtruth-delimiter-two-chars": (["crowdtruth", "{d}/long.csv", "--delimiter", ";;"], ["--delimiter", "';;'"]),
    "crowdtruth-labels-empty-item": (["crowdtruth", "{d}/text.csv", "--labels", "low,,high"], ["--labels", "'low,,high'"]),
    # ---- crowdtruth-v1
    "v1-missing-file": (["crowdtruth-v1", "{d}/none.csv", "--out", "{d}/o"], ["'{d}/none.csv'"]),
    "v1-duplicates": (["crowdtruth-v1", "{d}/dups.csv", "--out", "{d}/o"], ["line 2", "line 3", "--duplicates last"]),
    "v1-header-only": (["crowdtruth-v1", "{d}/header.csv", "--out", "{d}/o"], ["'{d}/header.csv'", "no rows"]),
    "v1-wrong-label-column": (["crowdtruth-v1", "{d}/long.csv", "--label", "relations", "--out", "{d}/o"],
                              ["--label relations", "['unit', 'worker', 'label']"]),
    "v1-out-is-a-file": (["crowdtruth-v1", "{d}/long.csv", "--out", "{d}/notafolder"], ["--out", "'{d}/notafolder'"]),
    "v1-job-id-with-slash": (["crowdtruth-v1", "{d}/long.csv", "--job-id", "a/b", "--out", "{d}/o"], ["--job-id", "a/b"]),
    "v1-empty-answer": (["crowdtruth-v1", "{d}/emptyanswer.csv", "--out", "{d}/o"], ["line 3", "--empty"]),
    # ---- alpha
    "alpha-empty-file": (["alpha", "{d}/empty.csv"], ["'{d}/empty.csv'", "empty"]),
    "alpha-duplicate-column-names": (["alpha", "{d}/dupcol.csv"], ["'{d}/dupcol.csv'", "['unit']"]),
    "alpha-labels-empty-item": (["alpha", "{d}/long.csv", "--labels", "1,,2"], ["--labels", "'1,,2'"]),
    "alpha-label-outside-labels": (["alpha", "{d}/long.csv", "--labels", "1,2"], ["(3)", "line 4", "line 5"]),
    "alpha-labels-not-numbers": (["alpha", "{d}/long.csv", "--labels", "one,two,three"], ["--labels", "'one'"]),
    "alpha-wide-with-unit": (["alpha", "{d}/long.csv", "--wide", "--unit", "item"], ["--unit", "--wide"]),
    "alpha-wide-with-duplicates": (["alpha", "{d}/widestar.csv", "--wide", "--duplicates", "last"], ["--duplicates", "--wide"]),
    "alpha-missing-without-wide": (["alpha", "{d}/long.csv", "--missing", "*"], ["--missing", "--wide"]),
    "alpha-n-boot-0": (["alpha", "{d}/long.csv", "--n-boot", "0"], ["--n-boot", "0"]),
    "alpha-ci-1.5": (["alpha", "{d}/long.csv", "--n-boot", "5", "--ci", "1.5"], ["--ci", "1.5"]),
    "alpha-ci-nan": (["alpha", "{d}/long.csv", "--n-boot", "5", "--ci", "nan"], ["--ci", "nan"]),
    "alpha-seed-negative": (["alpha", "{d}/long.csv", "--n-boot", "5", "--seed", "-1"], ["--seed", "-1"]),
    "alpha-out-missing-folder": (["alpha", "{d}/long.csv", "--out", "{d}/no/a.csv"], ["--out", "'{d}/no'", "does not exist"]),
    "alpha-out-is-a-folder": (["alpha", "{d}/long.csv", "--out", "{d}/folder"], ["--out", "'{d}/folder'", "folder"]),
    "alpha-multi-label": (["alpha", "{d}/multi.csv", "--sep", "|"], ["one label per judgment", "row 0"]),
    "alpha-format-crowdflower": (["alpha", "{d}/long.csv", "--format", "crowdflower"], ["--unit _unit_id", "['unit', 'worker', 'label']"]),
    "alpha-ordinal-text-without-labels": (["alpha", "{d}/text.csv", "--level", "ordinal"], ["--level ordinal", "--labels", "'high'"]),
    "alpha-wide-token-without-missing": (["alpha", "{d}/widestar.csv", "--wide"], ["'*'", "--missing"]),
    "alpha-wide-all-empty": (["alpha", "{d}/wideempty.csv", "--wide"], ["'{d}/wideempty.csv'"]),
    "alpha-wide-blank-worker-header": (["alpha", "{d}/wideblank.csv", "--wide"],
                                       ["'{d}/wideblank.csv'", "column 3 of the header has no worker name"]),
    "alpha-multi-label-after-blank-line": (["alpha", "{d}/gaps.csv", "--sep", "|"], ["rows 0 (line 2), 3 (line 6)"]),
    # ---- kappa
    "kappa-three-workers-without-workers": (["kappa", "{d}/three.csv"], ["3", "--workers"]),
    "kappa-absent-worker": (["kappa", "{d}/three.csv", "--workers", "a", "zed"], ["'zed'", "'a', 'b', 'c'"]),
    "kappa-same-worker-twice": (["kappa", "{d}/three.csv", "--workers", "b", "b"], ["'b'", "twice"]),
    "kappa-not-utf8": (["kappa", "{d}/latin1.csv"], ["'{d}/latin1.csv'", "UTF-8"]),
    "kappa-duplicates": (["kappa", "{d}/dups.csv"], ["line 2", "--duplicates last"]),
    "kappa-weights-on-text-without-labels": (["kappa", "{d}/text.csv", "--weights", "linear"], ["--weights linear", "--labels"]),
    "kappa-wrong-unit-column": (["kappa", "{d}/long.csv", "--unit", "item"], ["--unit item", "['unit', 'worker', 'label']"]),
    # ---- fleiss
    "fleiss-missing-file": (["fleiss", "{d}/none.csv"], ["'{d}/none.csv'", "does not exist"]),
    "fleiss-header-only": (["fleiss", "{d}/header.csv"], ["'{d}/header.csv'", "no rows"]),
    "fleiss-duplicate-column-names": (["fleiss", "{d}/dupcol.csv"], ["'{d}/dupcol.csv'", "['unit']"]),
    "fleiss-multi-label": (["fleiss", "{d}/multi.csv", "--sep", "|"], ["one label per judgment", "row 0"]),
    "fleiss-wide-with-sep": (["fleiss", "{d}/widestar.csv", "--wide", "--sep", "|"], ["--sep", "--wide"]),
    "fleiss-label-outside-labels": (["fleiss", "{d}/three.csv", "--labels", "x,z"], ["'y'", "line 3"]),
    # ---- trust
    "trust-wide-blank-worker-headers": (["trust", "{d}/wideblanks.csv", "--wide"], ["columns 3, 5 of the header have no worker name"]),
    "trust-folder": (["trust", "{d}/folder"], ["'{d}/folder'", "folder"]),
    "trust-threshold-nan": (["trust", "{d}/long.csv", "--threshold", "nan"], ["--threshold", "nan"]),
    "trust-threshold-inf": (["trust", "{d}/long.csv", "--threshold", "inf"], ["--threshold", "inf"]),
    "trust-empty-answer": (["trust", "{d}/emptyanswer.csv"], ["line 3", "--empty"]),
    "trust-out-missing-folder": (["trust", "{d}/five.csv", "--out", "{d}/no/t.csv"], ["--out", "'{d}/no'"]),
    "trust-too-many-workers": (["trust", "{d}/five.csv", "--max-workers", "3"], ["5 workers", "--max-workers 5"]),
    "trust-max-workers-1": (["trust", "{d}/five.csv", "--max-workers", "1"], ["--max-workers", "1"]),
    # ---- coref
    "coref-key-missing": (["coref", "{d}/none.conll", "{d}/ok.conll"], ["key file", "'{d}/none.conll'"]),
    "coref-response-missing": (["coref", "{d}/ok.conll", "{d}/none.conll"], ["response file", "'{d}/none.conll'"]),
    "coref-key-folder": (["coref", "{d}/folder", "{d}/ok.conll"], ["key file", "'{d}/folder'", "folder"]),
    "coref-malformed-cell": (["coref", "{d}/bad.conll", "{d}/ok.conll"], ["'{d}/bad.conll'", "line 3", "'xx'", "--malformed skip"]),
    "coref-empty-key": (["coref", "{d}/empty.conll", "{d}/ok.conll"], ["'{d}/empty.conll'", "empty"]),
    "coref-empty-response": (["coref", "{d}/ok.conll", "{d}/empty.conll"], ["'{d}/empty.conll'", "empty"]),
    "coref-unknown-metric": (["coref", "{d}/ok.conll", "{d}/ok.conll", "--metrics", "muc", "bleu"], ["'bleu'", "muc"]),
    "coref-out-missing-folder": (["coref", "{d}/ok.conll", "{d}/ok.conll", "--out", "{d}/no/s.csv"], ["--out", "'{d}/no'"]),
    # ---- dawid-skene
    "ds-missing-file": (["dawid-skene", "{d}/none.csv"], ["'{d}/none.csv'", "does not exist"]),
    "ds-max-iter-0": (["dawid-skene", "{d}/long.csv", "--max-iter", "0"], ["--max-iter", "0"]),
    "ds-tol-negative": (["dawid-skene", "{d}/long.csv", "--tol", "-1"], ["--tol", "-1"]),
    "ds-tol-nan": (["dawid-skene", "{d}/long.csv", "--tol", "nan"], ["--tol", "nan"]),
    "ds-n-starts-0": (["dawid-skene", "{d}/long.csv", "--n-starts", "0"], ["--n-starts", "0"]),
    "ds-eps-negative": (["dawid-skene", "{d}/long.csv", "--method", "smoothed", "--eps", "-0.5"], ["--eps", "-0.5"]),
    "ds-seed-negative": (["dawid-skene", "{d}/long.csv", "--seed", "-1"], ["--seed", "-1"]),
    "ds-multi-label": (["dawid-skene", "{d}/multi.csv", "--sep", "|"], ["one label per judgment", "row 0"]),
    "ds-multi-label-names-line": (["dawid-skene", "{d}/multi.csv", "--sep", "|"], ["row 0 (line 2)"]),
    "alpha-multi-label-names-line": (["alpha", "{d}/multi.csv", "--sep", "|"], ["row 0 (line 2)"]),
    "fleiss-multi-label-names-line": (["fleiss", "{d}/multi.csv", "--sep", "|"], ["row 0 (line 2)"]),
    "kappa-multi-label-names-line": (["kappa", "{d}/multi.csv", "--sep", "|"], ["row 0 (line 2)"]),
    "trust-multi-label-names-line": (["trust", "{d}/multi.csv", "--sep", "|"], ["line 2"]),
    "ds-duplicates": (["dawid-skene", "{d}/dups.csv"], ["line 2", "--duplicates last", "--duplicates count"]),
    "ds-out-is-a-file": (["dawid-skene", "{d}/long.csv", "--out", "{d}/notafolder"], ["--out", "'{d}/notafolder'"]),
    "ds-model-b-alias-max-iter": (["model-b", "{d}/long.csv", "--max-iter", "-3"], ["--max-iter", "-3"]),
}


@pytest.mark.parametrize("argv, culprits", list(CASES.values()), ids=list(CASES))
def test_bad_input_is_one_line_naming_the_culprit(d, capsys, argv, culprits):
    status, out, err = run(capsys, *[a.format(d=d) for a in argv])
    check(status, out, err, d, culprits)


def test_every_subcommand_is_covered():
    plain = [v for v in CASES.values() if not hasattr(v, "marks")]      # cases expected to pass today
    assert {v[0][0] for v in plain} >= {"crowdtruth", "crowdtruth-v1", "alpha", "kappa", "fleiss", "trust", "coref",
                                        "dawid-skene"}
    assert len(plain) >= 40


def test_failed_runs_write_nothing(d, capsys):
    "An error before the output leaves no folder or file behind."
    for argv in (["crowdtruth", d / "dups.csv", "--out", d / "ct"], ["crowdtruth-v1", d / "dups.csv", "--out", d / "v1"],
                 ["dawid-skene", d / "long.csv", "--max-iter", "0", "--out", d / "ds"],
                 ["alpha", d / "long.csv", "--n-boot", "0", "--out", d / "a.csv"]):
        status, out, err = run(capsys, *argv)
        assert status == 2 and not Path(argv[-1]).exists(), (argv, err)


# ---------------------------------------------------------------- argparse usage errors: usage, then one error line
USAGE = {
    "alpha-level-typo": (["alpha", "{d}/long.csv", "--level", "nomial"], "argument --level: invalid choice: 'nomial'"),
    "trust-level-typo": (["trust", "{d}/long.csv", "--level", "nomial"], "argument --level: invalid choice: 'nomial'"),
    "kappa-weights": (["kappa", "{d}/long.csv", "--weights", "cubic"], "argument --weights: invalid choice: 'cubic'"),
    "kappa-one-worker": (["kappa", "{d}/long.csv", "--workers", "a"], "argument --workers: expected 2 arguments"),
    "fleiss-missing-ratings": (["fleiss", "{d}/long.csv", "--missing-ratings", "drop"], "argument --missing-ratings: invalid choice: 'drop'"),
    "ds-method": (["dawid-skene", "{d}/long.csv", "--method", "gibbs"], "argument --method: invalid choice: 'gibbs'"),
    "ds-max-iter-text": (["dawid-skene", "{d}/long.csv", "--max-iter", "many"], "argument --max-iter: invalid int value: 'many'"),
    "crowdtruth-empty-choice": (["crowdtruth", "{d}/long.csv", "--empty", "skip"], "argument --empty: invalid choice: 'skip'"),
    "crowdtruth-duplicates-choice": (["crowdtruth", "{d}/long.csv", "--duplicates", "first"], "argument --duplicates: invalid choice: 'first'"),
    "v1-needs-out": (["crowdtruth-v1", "{d}/long.csv"], "the following arguments are required: --out"),
    "coref-needs-response": (["coref", "{d}/ok.conll"], "the following arguments are required: RESPONSE.conll"),
    "alpha-old-option": (["alpha", "{d}/long.csv", "--bootstrap", "10"], "unrecognized arguments: --bootstrap 10"),
    "trust-old-option": (["trust", "{d}/long.csv", "--transpose"], "unrecognized arguments: --transpose"),
}


@pytest.mark.parametrize("argv, message", list(USAGE.values()), ids=list(USAGE))
def test_usage_errors(d, capsys, argv, message):
    status, out, err = run(capsys, *[a.format(d=d) for a in argv])
    lines = err.rstrip("\n").split("\n")
    assert status == 2 and out == ""
    prog = "crowdnb" if message.startswith("unrecognized") else f"crowdnb {argv[0]}"  # reported by the main parser
    assert lines[0].startswith(f"usage: {prog} ")
    assert lines[-1] == f"{prog}: error: {message}" or lines[-1].startswith(f"{prog}: error: {message} "), lines[-1]
    assert "Traceback" not in err


# ---------------------------------------------------------------- formula injection through every --out
EVIL_WORKER = '=HYPERLINK("http://x","y")'
EVIL_ANSWER = "@SUM(A1)"
FORMULA = ("=", "+", "-", "@")


def _number(text: str) -> bool:
    try: float(text); return True
    except ValueError: return False


def _csv_cells(path):
    with open(path, newline="", encoding="utf-8") as f: return [c for row in csv.reader(f) for c in row]


@pytest.fixture
def evil(tmp_path):
    "Judgments whose worker ids, unit ids and answers begin like spreadsheet formulas."
    workers = [EVIL_WORKER, "w1", "-w2", "+w3"]
    rows = [("-2+3" if u == 0 else f"u{u}", w, EVIL_ANSWER if (u + i) % 2 else "+cmd") for u in range(6) for i, w in enumerate(workers)]
    rows[1] = (rows[1][0], rows[1][1], "=1+1")
    pd.DataFrame(rows, columns=["unit", "worker", "label"]).to_csv(tmp_path / "evil.csv", index=False)
    return tmp_path


@pytest.mark.parametrize("argv", [
    ["crowdtruth", "{d}/evil.csv", "--out", "{d}/o"],
    ["crowdtruth", "{d}/evil.csv", "--closed", "--out", "{d}/o"],
    ["dawid-skene", "{d}/evil.csv", "--seed", "0", "--out", "{d}/o"],
    ["trust", "{d}/evil.csv", "--out", "{d}/o/trust.csv"],
    ["alpha", "{d}/evil.csv", "--level", "nominal", "--n-boot", "20", "--seed", "1", "--out", "{d}/o/alpha.csv"],
    ["coref", "{d}/k.conll", "{d}/k.conll", "--per-document", "--out", "{d}/o/coref.csv"],
], ids=["crowdtruth-open", "crowdtruth-closed", "dawid-skene", "trust", "alpha", "coref"])
def test_csv_outputs_hold_no_formula(evil, capsys, argv):
    d = evil
    (d / "o").mkdir()
    # a document named like a formula (its ids are name-part)
    (d / "k.conll").write_text("#begin document (=cmd); part 000\n=cmd 0 0 A (1)\n=cmd 0 1 B (1)\n#end document\n")
    status, out, err = run(capsys, *[a.format(d=d) for a in argv])
    assert status == 0, err
    files = sorted((d / "o").glob("*.csv"))
    assert files
    cells = [c for f in files for c in _csv_cells(f)]
    bad = [c for c in cells if c.startswith(FORMULA) and not _number(c)]
    assert bad == [], bad
    # the text is kept, behind the apostrophe
    text = set(cells)
    if argv[0] in ("crowdtruth", "dawid-skene", "trust"): assert "'" + EVIL_WORKER in text
    if argv[0] in ("crowdtruth", "dawid-skene"): assert "'" + EVIL_ANSWER in text and "'-2+3" in text
    if argv[0] == "coref": assert "'=cmd-000" in text


def test_xlsx_workbooks_hold_no_formula(evil, capsys):
    openpyxl = pytest.importorskip("openpyxl")
    d = evil
    status, out, err = run(capsys, "crowdtruth-v1", d / "evil.csv", "--out", d / "o")
    assert status == 0, err
    books = sorted((d / "o").glob("*.xlsx"))
    assert [b.name for b in books] == ["evil_sentenceMetrics.xlsx", "evil_workerMetrics.xlsx"]
    values = set()
    for b in books:
        for ws in openpyxl.load_workbook(b):
            for row in ws.iter_rows():
                for c in row:
                    assert c.data_type != "f", (b.name, ws.title, c.coordinate, c.value)
                    if isinstance(c.value, str): values.add(c.value)
    # the exact text, not an apostrophe-prefixed copy: an xlsx cell typed as text is never run
    assert {EVIL_WORKER, EVIL_ANSWER, "+cmd", "=1+1", "-2+3", "-w2", "+w3"} <= values, values
