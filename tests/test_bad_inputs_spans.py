"""Bad input to crowdnb.spans: files from the wrong tool, truncated JSON, offsets that do not match the text, an
annotator with no spans, a document only one annotator saw, broken lines. Each raises a ValueError/TypeError that names
the file and the line or record (or gives a documented result with a warning), and the caller's data is left as it was."""
import copy
import json
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest

from crowdnb.spans import (as_spans, gamma, read_brat, read_doccano, read_iob, read_label_studio, read_prodigy,
                           read_webanno_tsv, span_agreement, span_f1, token_agreement, unitizing_alpha)

FIX = Path(__file__).parent / "fixtures" / "spans"


def _copy(tmp_path, name):
    dst = tmp_path / name
    (shutil.copytree if (FIX / name).is_dir() else shutil.copy)(FIX / name, dst)
    return dst

# ---------------------------------------------------------------- a file from the wrong tool

@pytest.mark.parametrize("reader, other, says", [
    (read_label_studio, "prodigy.jsonl", "not valid JSON"),                      # JSON lines are not one JSON array
    (read_prodigy, "label_studio.json", "looks like a Label Studio export"),
    (read_doccano, "prodigy.jsonl", "looks like a Prodigy export"),
    (read_prodigy, "doccano/admin.jsonl", "looks like a doccano export"),
    (read_webanno_tsv, "iob/ann1.conll", "not '#FORMAT=WebAnno TSV 3.x'"),
])
def test_wrong_tool(reader, other, says):
    with pytest.raises(ValueError, match=says) as e:
        reader(FIX / other)
    assert Path(other).name in str(e.value)


def test_label_studio_names_the_task(tmp_path):
    p = tmp_path / "ls.json"
    p.write_text(json.dumps([{"id": 1, "data": {"text": "a"}, "annotations": []}, {"id": 2, "text": "b"}]))
    with pytest.raises(ValueError, match=r"task 2 is not a Label Studio record.*'data' and 'annotations'"):
        read_label_studio(p)


def test_iob_file_given_to_brat(tmp_path):
    with pytest.raises(ValueError, match="is not a folder"):
        read_brat([FIX / "iob" / "ann1.conll"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no .ann file"):
        read_brat([tmp_path / "empty"])

# ---------------------------------------------------------------- truncated JSON

def test_truncated_label_studio(tmp_path):
    p = tmp_path / "ls.json"
    p.write_text((FIX / "label_studio.json").read_text()[:700])
    with pytest.raises(ValueError, match=r"ls.json' is not valid JSON \(line \d+, column \d+.*truncated"):
        read_label_studio(p)


@pytest.mark.parametrize("reader, name", [(read_prodigy, "prodigy.jsonl"), (read_doccano, "doccano/kim.jsonl")])
def test_truncated_jsonl(tmp_path, reader, name):
    p = tmp_path / Path(name).name
    text = (FIX / name).read_text()
    p.write_text(text[: text.index("\n") + 40])                       # the second line cut short
    with pytest.raises(ValueError, match=f"{p.name}' line 2 is not valid JSON"):
        reader(p)

# ---------------------------------------------------------------- offsets that do not match the text

def test_brat_offsets_do_not_match_text(tmp_path):
    d = _copy(tmp_path, "brat")
    ann = d / "bob" / "doc1.ann"
    ann.write_text(ann.read_text().replace("13 18", "14 19"))
    with pytest.raises(ValueError, match=r"doc1.ann' line 1: offsets 14 19 cover 'RCA1 ' .* says 'BRCA1'"):
        read_brat([d / "ann", d / "bob"])


def test_label_studio_offset_past_text(tmp_path):
    tasks = json.loads((FIX / "label_studio.json").read_text())
    tasks[1]["annotations"][0]["result"][0]["value"]["end"] = 400
    p = tmp_path / "ls.json"
    p.write_text(json.dumps(tasks))
    with pytest.raises(ValueError, match=r"past the end of document 102 \(length 45\) at ls.json task 2 \(id 102\)"):
        read_label_studio(p)


def test_table_text_mismatch_names_row():
    df = pd.DataFrame({"doc": ["d", "d"], "annotator": ["a", "b"], "start": [0, 0], "end": [3, 3], "label": "X",
                       "span": ["abc", "abd"]})
    with pytest.raises(ValueError, match=r"offsets do not match the text row 1: \[0, 3\) of document 'd' is 'abc'"):
        as_spans(df, text="span", texts={"d": "abcdef"})


def test_iob_token_mismatch(tmp_path):
    a, b = tmp_path / "a.conll", tmp_path / "b.conll"
    a.write_text("EU B-ORG\nrejects O\n")
    b.write_text("EU B-ORG\nrejected O\n")
    with pytest.raises(ValueError, match=r"b.conll' line 2: its tokens differ"):
        read_iob([a, b])


def test_iob_bad_tag(tmp_path):
    a = tmp_path / "a.conll"
    a.write_text("EU B-ORG\nrejects X-Y\n")
    with pytest.raises(ValueError, match=r"line 2: tag 'X-Y' is not"):
        read_iob([a])


def test_webanno_bad_line(tmp_path):
    d = _copy(tmp_path, "webanno")
    p = d / "lovelace.txt" / "ben.tsv"
    p.write_text(p.read_text().replace("1-3\t13-16\twas\t_\t_\twas", "1-3\t13-16\twas"))
    with pytest.raises(ValueError, match=r"ben.tsv' line 9: expected a token line"):
        read_webanno_tsv(sorted(d.glob("*/*.tsv")))

# ---------------------------------------------------------------- the table front door

@pytest.mark.parametrize("change, says", [
    (dict(end=[0, 3]), "end <= start"),
    (dict(start=[-1, 0]), "negative start offset -1 row 0"),
    (dict(start=["x", 0]), "whole character offsets; row 0"),
    (dict(label=[None, "X"]), "column 'label' is empty row 0"),
])
def test_table_checks(change, says):
    df = pd.DataFrame({"doc": ["d", "d"], "annotator": ["a", "b"], "start": [0, 0], "end": [3, 3], "label": ["X", "X"]})
    before = df.copy()
    with pytest.raises(ValueError, match=says):
        as_spans(df.assign(**change))
    pd.testing.assert_frame_equal(df, before)


def test_csv_line_numbers(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("doc,annotator,start,end,label\nd,a,0,3,X\nd,b,5,2,X\n")
    with pytest.raises(ValueError, match=r"row 1 \(line 3\)"):
        as_spans(p)


def test_not_a_table():
    with pytest.raises(TypeError, match="spans must be Spans, a long DataFrame"):
        as_spans([("d", "a", 0, 1, "X")])


def test_options_named():
    df = pd.DataFrame({"doc": ["d"], "annotator": ["a"], "start": [0], "end": [3], "label": ["X"]})
    with pytest.raises(ValueError, match="match must be one of"):
        span_f1(df, "fuzzy")
    with pytest.raises(ValueError, match="by must be one of"):
        span_f1(df, by="annotator")
    with pytest.raises(ValueError, match="coefficient must be one of"):
        token_agreement(df, "kappa")
    with pytest.raises(ValueError, match="level must be one of"):
        token_agreement(df, level="word")

# ---------------------------------------------------------------- an annotator with no spans

def test_annotator_with_no_spans():
    "Label Studio's annotator 3 saw task 101 and marked nothing: a warning, recall 0 against them, precision 0/0 = 0."
    with pytest.warns(UserWarning, match=r"annotator\(s\) \['3'\] marked no span"):
        t = span_f1(read_label_studio(FIX / "label_studio.json"))
    assert t.loc[("1", "3")][["tp", "fp", "fn", "precision", "recall", "f1"]].tolist() == [0, 0, 4, 0, 0, 0]


def test_export_with_no_span_at_all(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text(json.dumps({"id": 1, "text": "abc", "label": []}) + "\n")
    with pytest.raises(ValueError, match="holds no span at all"):
        read_doccano(p)

# ---------------------------------------------------------------- a document only one annotator saw

def test_document_one_annotator_saw():
    "Task 103 only annotator 1 saw: it counts for no pair, and α_U and γ leave it out with a warning."
    S = read_label_studio(FIX / "label_studio.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_doc = span_f1(S, "exact", by="doc")
    assert 103 not in by_doc.index.get_level_values("doc")
    with pytest.warns(UserWarning, match=r"not seen by every annotator and are left out"):
        unitizing_alpha(S)
    with pytest.warns(UserWarning, match=r"not seen by every annotator"):
        gamma(S, seed=0, n_samples=2)


def test_readers_do_not_touch_files(tmp_path):
    d = _copy(tmp_path, "brat")
    before = {p: p.read_bytes() for p in d.rglob("*")if p.is_file()}
    read_brat([d / "ann", d / "bob"])
    assert {p: p.read_bytes() for p in d.rglob("*") if p.is_file()} == before


def test_duplicate_spans_merged_with_warning():
    df = pd.DataFrame({"doc": ["d"] * 3, "annotator": ["a", "a", "b"], "start": [0, 0, 0], "end": [3, 3, 3], "label": "X"})
    with pytest.warns(UserWarning, match="1 exact duplicate span"):
        S = as_spans(df)
    assert len(S.frame) == 2


def test_annotator_text_is_never_markup():
    "Span text that looks like HTML reaches the report page escaped (plain text), in the boundary table."
    from crowdnb.report import SpansReport
    text = "<b>x</b> and <script>alert(1)</script>"
    df = pd.DataFrame({"doc": "d", "annotator": ["a", "b", "c"], "start": [0, 0, 0], "end": [8, 10, 8], "label": "X"})
    rep = SpansReport(as_spans(df, texts={"d": text}), n_boot=20)
    html = rep.boundaries()._repr_html_()
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x" not in html
