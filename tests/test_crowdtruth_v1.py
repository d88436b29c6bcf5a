"""CrowdTruth 1.0 metrics (nbs/11_crowdtruth_v1.ipynb): parity with a loop-by-loop oracle written from the
seed's definitions, property tests (ranges, identities, invariances), bad input and workbook round trips.

There is no reference package for CrowdTruth 1.0, so `oracle` below re-derives every metric the slow,
obvious way (Python sets and dicts, one sentence / worker / pair at a time) from the formulas of seed 003,
with the readings documented in the notebook. It shares no code with crowdnb: it takes the raw
(unit, worker, set of relations) triples.
"""
from __future__ import annotations
import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from conftest import four_ways
from hypothesis import given, settings, strategies as st, HealthCheck

from crowdnb.core import as_judgments
from crowdnb import crowdtruth_v1 as ct1

NAN = float("nan")
# generated crowds may have no sentence with two workers: metrics warns, and these tests check the NaNs
pytestmark = pytest.mark.filterwarnings("ignore:no sentence has two or more workers")


# ---------------------------------------------------------------- the loop oracle (independent of crowdnb)
def oracle(rows, labels, subtract="worker_sentence_score"):
    "Every CrowdTruth 1.0 metric from (unit, worker, iterable of relations) triples, by plain loops."
    ans = {(u, w): set(ls) for u, w, ls in rows}
    units = sorted({u for u, _ in ans}); workers = sorted({w for _, w in ans})
    vec = {u: dict.fromkeys(labels, 0) for u in units}
    for (u, w), ls in ans.items():
        for r in ls: vec[u][r] += 1
    norm = lambda v: math.sqrt(sum(x * x for x in v.values()))
    def cos(a, b):
        na, nb = norm(a), norm(b)
        return NAN if na == 0 or nb == 0 else sum(a[r] * b[r] for r in labels) / (na * nb)
    srs = {u: {r: vec[u][r] / norm(vec[u]) for r in labels} for u in units}
    clarity = {u: max(srs[u].values()) for u in units}
    rel_clarity = {r: max(srs[u][r] for u in units) for r in labels}
    wcos, wss = {}, {}
    for (u, w), ls in ans.items():
        wv = {r: int(r in ls) for r in labels}
        rest = {r: vec[u][r] - wv[r] for r in labels}
        wcos[u, w] = cos(rest, wv)
        wss[u, w] = clarity[u] - wcos[u, w]
    mean = lambda xs: (sum(xs) / len(xs)) if xs else NAN
    worker_cos = {w: mean([c for (u, ww), c in wcos.items() if ww == w and not math.isnan(c)]) for w in workers}
    aps = {w: mean([len(ls) for (u, ww), ls in ans.items() if ww == w]) for w in workers}
    agreement, pair_agr = {}, {}
    for wi in workers:
        num = den = 0.0
        for wj in workers:
            if wj == wi: continue
            common = [u for u in units if (u, wi) in ans and (u, wj) in ans]
            if not common: continue
            hits = sum(len(ans[u, wi] & ans[u, wj]) for u in common)
            annot = sum(len(ans[u, wi]) for u in common)
            pair_agr[wi, wj] = hits / annot
            num += len(common) * hits / annot; den += len(common)
        agreement[wi] = num / den if den else NAN
    occ = {r: sum(r in ls for ls in ans.values()) for r in labels}
    both = {(a, b): sum(a in ls and b in ls for ls in ans.values()) for a in labels for b in labels}
    total = sum(len(ls) for ls in ans.values())
    sim = {(a, b): (NAN if occ[b] == 0 else (0.0 if a == b else both[a, b] / occ[b])) for a in labels for b in labels}
    amb = {}
    for r in labels:
        vals = [sim[a, r] for a in labels if a != r]
        amb[r] = NAN if occ[r] == 0 else max(vals, default=0.0)
    majority = {u: {r for r in labels if vec[u][r] == max(vec[u].values())} for u in units}
    wrel = {}
    for w in workers:
        for r in labels:
            val = wss if subtract == "worker_sentence_score" else wcos
            xs = [val[u, w] for u in units if (u, w) in ans and r in majority[u] and not math.isnan(wcos[u, w])]
            wrel[w, r] = rel_clarity[r] - mean(xs) if xs else NAN
    return dict(srs=srs, clarity=clarity, rel_clarity=rel_clarity, wcos=wcos, wss=wss, worker_cos=worker_cos,
                aps=aps, agreement=agreement, pair_agr=pair_agr, occ=occ, prob={r: occ[r] / total for r in labels},
                sim=sim, amb=amb, majority=majority, wrel=wrel)


def assert_matches_oracle(res, o, labels, eps=1e-12):
    close = lambda a, b: np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=0, atol=eps)
    units, workers = list(res.sentences.index), list(res.workers.index)
    close(res.sentence_relation.loc[units, labels].to_numpy(), [[o["srs"][u][r] for r in labels] for u in units])
    close(res.sentences["clarity"], [o["clarity"][u] for u in units])
    close(res.relations.loc[labels, "clarity"], [o["rel_clarity"][r] for r in labels])
    ws = res.worker_sentence
    close(ws["cosine"], [o["wcos"][k] for k in ws.index])
    close(ws["score"], [o["wss"][k] for k in ws.index])
    close(res.workers["cosine"], [o["worker_cos"][w] for w in workers])
    close(res.workers["annotations_per_sentence"], [o["aps"][w] for w in workers])
    close(res.workers["agreement"], [o["agreement"][w] for w in workers])
    pa = res.pairwise.set_index(["worker", "coworker"])["agr"]
    assert set(pa.index) == set(o["pair_agr"])
    close(pa.to_numpy(), [o["pair_agr"][k] for k in pa.index])
    close(res.relations.loc[labels, "occurrences"], [o["occ"][r] for r in labels])
    close(res.relations.loc[labels, "probability"], [o["prob"][r] for r in labels])
    close(res.similarity.loc[labels, labels].to_numpy(), [[o["sim"][a, b] for b in labels] for a in labels])
    close(res.relations.loc[labels, "ambiguity"], [o["amb"][r] for r in labels])
    assert [set(m) for m in res.sentences["majority"]] == [o["majority"][u] for u in units]
    close(res.worker_relation.loc[workers, labels].to_numpy(), [[o["wrel"][w, r] for r in labels] for w in workers])


# ---------------------------------------------------------------- generated crowds
ALL = ["A", "B", "C", "D"]

@st.composite
def crowds(draw, max_units=6, max_workers=5):
    "A random multi-label job: rows (unit, worker, list of relations) and the declared relation list."
    n_lab = draw(st.integers(1, 4)); labels = ALL[:n_lab]
    n_u, n_w = draw(st.integers(1, max_units)), draw(st.integers(1, max_workers))
    pairs = [(f"s{u}", f"w{w}") for u in range(n_u) for w in range(n_w)]
    keep = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    if not any(keep): keep[0] = True
    rows = []
    for (u, w), k in zip(pairs, keep):
        if not k: continue
        ls = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=n_lab, unique=True))
        rows.append((u, w, sorted(ls)))
    return rows, labels

def frame(rows):
    return pd.DataFrame({"unit": [r[0] for r in rows], "worker": [r[1] for r in rows], "label": [list(r[2]) for r in rows]})

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(crowds(), st.sampled_from(["worker_sentence_score", "cosine"]))
def test_metrics_match_loop_oracle(crowd, subtract):
    rows, labels = crowd
    res = ct1.metrics(frame(rows), labels=labels, subtract=subtract)
    assert_matches_oracle(res, oracle(rows, labels, subtract), labels)


@FAST
@given(crowds())
def test_ranges_and_identities(crowd):
    rows, labels = crowd
    res = ct1.metrics(frame(rows), labels=labels)
    cos = res.worker_sentence["cosine"].dropna()
    assert ((cos >= 0) & (cos <= 1)).all()
    wc = res.workers["cosine"].dropna()
    assert ((wc >= 0) & (wc <= 1)).all()
    ag = res.workers["agreement"].dropna()
    assert ((ag >= 0) & (ag <= 1 + 1e-15)).all()
    srs = res.sentence_relation
    assert ((srs >= 0) & (srs <= 1)).all().all()
    np.testing.assert_allclose((srs ** 2).sum(axis=1), 1, atol=1e-12)           # rows are unit vectors
    assert (res.sentences["clarity"] == srs.max(axis=1)).all()                 # clarity = max sentence-relation score
    assert (res.sentences["clarity"] >= 1 / np.sqrt(len(labels)) - 1e-12).all()  # max entry of a unit vector
    assert (res.relations["clarity"] == srs.max(axis=0)).all()
    # worker-sentence score = clarity - cosine
    cl = res.sentences["clarity"].reindex(res.worker_sentence.index.get_level_values("unit")).to_numpy()
    np.testing.assert_allclose(res.worker_sentence["score"], cl - res.worker_sentence["cosine"], atol=0)
    # relation similarity in [0, 1], zero diagonal on used relations, NaN columns exactly for unused ones
    m = res.similarity.to_numpy(float)
    used = res.relations["occurrences"].to_numpy() > 0
    assert np.isnan(m[:, ~used]).all() and not np.isnan(m[:, used]).any()
    assert ((m[:, used] >= 0) & (m[:, used] <= 1)).all()
    assert (np.diag(m)[used] == 0).all()
    # Bayes: P(A|B) P(B) = P(B|A) P(A) for distinct used relations
    p = res.relations["probability"].to_numpy()
    mu = m[np.ix_(used, used)]; pu = p[used]
    off = ~np.eye(used.sum(), dtype=bool)
    np.testing.assert_allclose((mu * pu[None, :])[off], (mu.T * pu[:, None])[off], atol=1e-15)
    np.testing.assert_allclose(p.sum(), 1, atol=1e-12)
    # ambiguity: max of the similarity column; workbook table is the transpose
    np.testing.assert_allclose(res.relations["ambiguity"].to_numpy()[used], m[:, used].max(axis=0), atol=0)
    np.testing.assert_array_equal(res.similarity_table().to_numpy(), m.T)
    # every judgment is counted once per worker and once per sentence
    assert (res.workers["n_sentences"].sum() == len(rows)) and (res.sentences["n_workers"].sum() == len(rows))


@FAST
@given(crowds(), st.randoms(use_true_random=False))
def test_invariant_to_row_order_and_worker_relabelling(crowd, rnd):
    rows, labels = crowd
    base = ct1.metrics(frame(rows), labels=labels)
    shuffled = rows[:]; rnd.shuffle(shuffled)
    names = sorted({w for _, w, _ in rows}); new = names[:]; rnd.shuffle(new)
    rename = {a: "x" + b for a, b in zip(names, new)}; back = {v: k for k, v in rename.items()}
    other = ct1.metrics(frame([(u, rename[w], ls) for u, w, ls in shuffled]), labels=labels)
    eq = lambda a, b: pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=0, atol=1e-12, check_names=False)
    eq(other.workers.rename(index=back).sort_index(), base.workers)
    eq(other.worker_relation.rename(index=back).sort_index(), base.worker_relation)
    ws = other.worker_sentence.rename(index=back, level="worker").sort_index()
    eq(ws, base.worker_sentence)
    eq(other.sentences, base.sentences)
    eq(other.sentence_relation, base.sentence_relation)
    eq(other.relations, base.relations)
    eq(other.similarity, base.similarity)
    pa = other.pairwise.assign(worker=other.pairwise.worker.map(back), coworker=other.pairwise.coworker.map(back))
    eq(pa.sort_values(["worker", "coworker"], ignore_index=True), base.pairwise)


@FAST
@given(crowds(), st.randoms(use_true_random=False))
def test_invariant_to_relation_order(crowd, rnd):
    "Declaring the relations in another order permutes the relation axes and changes nothing else."
    rows, labels = crowd
    perm = labels[:]; rnd.shuffle(perm)
    a, b = ct1.metrics(frame(rows), labels=labels), ct1.metrics(frame(rows), labels=perm)
    pd.testing.assert_frame_equal(b.similarity.loc[labels, labels], a.similarity, check_names=False, atol=1e-15)
    pd.testing.assert_frame_equal(b.relations.loc[labels], a.relations, check_names=False, atol=1e-15)
    pd.testing.assert_frame_equal(b.worker_relation[labels], a.worker_relation, check_names=False, atol=1e-12)
    pd.testing.assert_frame_equal(b.workers, a.workers, atol=1e-12)


# ---------------------------------------------------------------- the worked example of the notebook
TOY = pd.DataFrame({"unit": ["s1", "s1", "s1", "s2", "s2", "s2", "s3", "s3", "s4", "s4"],
                    "worker": ["w1", "w2", "w3", "w1", "w2", "w3", "w1", "w2", "w1", "w3"],
                    "label": ["A", "A", "A|B", "B", "C", "B", "A|C", "C", "A", "B"]})

def test_toy_against_hand_derivation():
    "Numbers derived by hand in the notebook's prose (readings: S' subsets, weighted mean, rest vector, clarity - cosine)."
    r = ct1.metrics(TOY, sep="|")
    np.testing.assert_allclose(r.workers["agreement"], [7 / 12, 3 / 5, 13 / 30], atol=1e-15)
    r2, r5, c10 = 1 / np.sqrt(2), 2 / np.sqrt(5), 3 / np.sqrt(10)
    np.testing.assert_allclose(r.workers["cosine"], [(r5 + 2 * r2) / 4, (r5 + r2) / 3, 2 * r2 / 3], atol=1e-12)
    assert r.worker_sentence.loc[("s2", "w2"), "score"] == pytest.approx(r5, abs=1e-12)
    assert r.worker_relation.loc["w1", "A"] == pytest.approx(c10 - ((c10 - r5) + r2) / 2, abs=1e-12)
    assert r.worker_relation.loc["w2", "B"] == pytest.approx(0, abs=1e-12)
    np.testing.assert_allclose(r.relations["ambiguity"], [1 / 5, 1 / 4, 1 / 3], atol=1e-15)
    np.testing.assert_allclose(r.similarity_table().loc["A", "B"], 1 / 5)
    rows = [(u, w, l.split("|")) for u, w, l in TOY.itertuples(index=False)]
    assert_matches_oracle(r, oracle(rows, ["A", "B", "C"]), ["A", "B", "C"])


def test_single_functions_agree_with_metrics():
    j = as_judgments(TOY, sep="|")
    r = ct1.metrics(j)
    pd.testing.assert_series_equal(ct1.worker_agreement(j), r.workers["agreement"], check_names=False)
    pd.testing.assert_series_equal(ct1.worker_cosine(j), r.workers["cosine"], check_names=False)
    pd.testing.assert_series_equal(ct1.annotations_per_sentence(j), r.workers["annotations_per_sentence"], check_names=False)
    pd.testing.assert_frame_equal(ct1.sentence_relation_score(j), r.sentence_relation)
    pd.testing.assert_frame_equal(ct1.relation_similarity(j), r.similarity)
    pd.testing.assert_frame_equal(ct1.worker_relation_score(j), r.worker_relation)
    pd.testing.assert_series_equal(ct1.worker_sentence_score(j).sort_index(), r.worker_sentence["score"], check_names=False)


# ---------------------------------------------------------------- bad input
def test_bad_input_is_named():
    with pytest.raises(TypeError, match="must be a Judgments, a long pandas DataFrame or a CSV path, not dict"): ct1.metrics({"unit": [1]})
    with pytest.raises(ValueError, match="lacks the column\\(s\\) label='relation'"): ct1.metrics(TOY, label="relation", sep="|")
    with pytest.raises(ValueError, match="empty answers"): ct1.metrics(TOY.assign(label=TOY.label.where(TOY.index != 2)), sep="|")
    with pytest.raises(ValueError, match="outside the declared set"): ct1.metrics(TOY, sep="|", labels=["A", "B"])
    with pytest.raises(ValueError, match="duplicate judgments"): ct1.metrics(pd.concat([TOY, TOY.iloc[:1]]), sep="|")
    dims = pd.concat([TOY.assign(d="x"), TOY.iloc[:1].assign(d="y")], ignore_index=True)
    with pytest.raises(ValueError, match=r"one judgment per \(sentence, worker\)"): ct1.metrics(dims, sep="|", dimension="d")
    with pytest.raises(TypeError, match="sep='\\|' applies to a table or a CSV file"): ct1.metrics(as_judgments(TOY, sep="|"), sep="|")
    with pytest.raises(ValueError, match="subtract must be one of"): ct1.worker_relation_score(TOY, subtract="x")
    with pytest.raises(ValueError, match="does not exist"): ct1.metrics("/no/such/file.csv")
    before = TOY.copy(deep=True)
    ct1.metrics(TOY, sep="|")
    pd.testing.assert_frame_equal(TOY, before)


def test_judgment_without_relation_is_named():
    "A Judgments object built by hand (bypassing the loader's empty-answer policy) with an empty judgment."
    from crowdnb.core import Judgments
    f = pd.DataFrame({"unit": ["s1", "s1", "s2"], "worker": ["a", "b", "a"], "labels": [("X",), (), ("X",)], "count": 1})
    with pytest.raises(ValueError, match="judgments at unit .s1., worker .b. hold no relation"): ct1.metrics(Judgments(f, pd.Index(["X"])))


def test_csv_path_input(tmp_path):
    path = tmp_path / "job.csv"
    TOY.rename(columns={"label": "relations"}).to_csv(path, index=False)
    r = ct1.metrics(path, label="relations", sep="|")
    np.testing.assert_allclose(r.workers["agreement"], [7 / 12, 3 / 5, 13 / 30], atol=1e-15)


def test_repeated_labels_count_in_vectors():
    "duplicates='count' merges a worker's two judgments: the counts enter the vectors, sets stay sets."
    df = pd.concat([TOY, pd.DataFrame({"unit": ["s4"], "worker": ["w1"], "label": ["A"]})], ignore_index=True)
    r = ct1.metrics(df, sep="|", duplicates="count")
    # s4 now has vector (2, 1, 0): sentence-relation score of A = 2 / sqrt(5); w1's own vector there is (2, 0, 0)
    assert r.sentence_relation.loc["s4", "A"] == pytest.approx(2 / np.sqrt(5), abs=1e-12)
    assert r.worker_sentence.loc[("s4", "w1"), "cosine"] == 0.0          # rest (0, 1, 0) is orthogonal
    assert r.relations.loc["A", "occurrences"] == 5                       # presence: still one annotation


def test_empty_answers_as_none_relation_and_dropped():
    df = TOY.assign(label=TOY.label.where(TOY.index != 4))   # w2's {C} on s2 becomes empty
    r = ct1.metrics(df, sep="|", empty="label")
    assert "none" in r.relations.index and r.relations.loc["none", "occurrences"] == 1
    r = ct1.metrics(df, sep="|", empty="drop")
    assert r.sentences.loc["s2", "n_workers"] == 2


def test_single_judgment_sentences_and_lone_workers():
    df = pd.DataFrame({"unit": [1, 1, 2, 3], "worker": ["a", "b", "a", "c"], "label": ["X", "X", "Y", "Y"]})
    r = ct1.metrics(df)
    assert np.isnan(r.worker_sentence.loc[(2, "a"), "cosine"]) and np.isnan(r.worker_sentence.loc[(3, "c"), "cosine"])
    assert r.workers.loc["a", "cosine"] == 1.0                       # the single-worker sentence is skipped
    assert np.isnan(r.workers.loc["c", "cosine"]) and np.isnan(r.workers.loc["c", "agreement"])
    assert np.isnan(r.worker_relation.loc["c"]).all()


# ---------------------------------------------------------------- workbooks
def test_workbooks_round_trip(tmp_path):
    r = ct1.metrics(TOY, sep="|", labels=["A", "B", "C", "D"])          # D: a relation nobody used
    wpath, spath = ct1.write_workbooks(r, 1234, tmp_path / "new" / "folder")
    assert wpath == tmp_path / "new" / "folder" / "1234_workerMetrics.xlsx"
    assert spath.name == "1234_sentenceMetrics.xlsx"
    wm = pd.read_excel(wpath, sheet_name=None, index_col=0)
    assert list(wm) == ["workerMetrics", "workerSentenceScore", "workerRelationScore"]
    pd.testing.assert_frame_equal(wm["workerMetrics"], r.workers, check_names=False, check_dtype=False)
    wsent = pd.read_excel(wpath, sheet_name="workerSentenceScore", index_col=[0, 1])
    pd.testing.assert_frame_equal(wsent, r.worker_sentence, check_names=False)
    pd.testing.assert_frame_equal(wm["workerRelationScore"], r.worker_relation, check_names=False)
    sm = pd.read_excel(spath, sheet_name=None, index_col=0)
    assert list(sm) == ["sentenceMetrics", "relationMetrics", "relationSimilarity"]
    sent = sm["sentenceMetrics"]
    np.testing.assert_allclose(sent["clarity"], r.sentences["clarity"])
    np.testing.assert_allclose(sent[[f"score: {c}" for c in "ABCD"]], r.sentence_relation)
    assert sent["majority"].tolist() == ["A", "B", "C", "A, B"]
    pd.testing.assert_frame_equal(sm["relationMetrics"], r.relations, check_names=False, check_dtype=False)
    table = sm["relationSimilarity"]
    # seed's "how to read": Table[A, B] = P(B | A), zero diagonal; hand values P(B|A) = 1/5, P(A|B) = 1/4, P(A|C) = 1/3
    assert list(table.index) == list("ABCD") and list(table.columns) == list("ABCD")
    assert table.loc["A", "B"] == pytest.approx(1 / 5) and table.loc["B", "A"] == pytest.approx(1 / 4)
    assert table.loc["C", "A"] == pytest.approx(1 / 3) and table.loc["A", "C"] == pytest.approx(1 / 5)
    assert (np.diag(table.to_numpy())[:3] == 0).all()
    assert table.loc["D"].isna().all()                                   # given an unused relation: undefined


def test_workbook_errors(tmp_path):
    r = ct1.metrics(TOY, sep="|")
    with pytest.raises(TypeError, match="CrowdTruthV1"): ct1.write_workbooks(r.workers, "x", tmp_path)
    with pytest.raises(ValueError, match="file name"): ct1.write_workbooks(r, "../x", tmp_path)
    with pytest.raises(ValueError, match="file name"): ct1.write_workbooks(r, "  ", tmp_path)
    with pytest.raises(TypeError, match="job_id"): ct1.write_workbooks(r, 1.5, tmp_path)
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError, match="not a directory"): ct1.write_workbooks(r, "x", tmp_path / "f")
    assert list(tmp_path.iterdir()) == [tmp_path / "f"]


def test_too_many_rows_for_excel(tmp_path, monkeypatch):
    r = ct1.metrics(TOY, sep="|")
    monkeypatch.setattr(ct1, "_EXCEL_ROWS", 5)
    with pytest.raises(ValueError, match="workerSentenceScore.*more than Excel"): ct1.write_workbooks(r, "x", tmp_path)
    assert not list(tmp_path.glob("*.xlsx"))                            # nothing half-written


def test_plots_return_axes():
    import matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    r = ct1.metrics(TOY, sep="|")
    ax = ct1.plot_relation_similarity(r)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["A", "B", "C"]
    np.testing.assert_allclose(ax.images[0].get_array().filled(np.nan), r.similarity_table().to_numpy())
    ax2 = ct1.plot_sentence_clarity(r)
    assert sum(p.get_height() for p in ax2.patches) == 4
    with pytest.raises(TypeError): ct1.plot_relation_similarity(r.similarity)
    plt.close("all")


# ---------------------------------------------------------------- shared data: the CrowdTruth relation-extraction tutorial job
@pytest.mark.shared
@pytest.mark.parametrize("name,column", [("relex-multiple-choice.csv", "relations"),
                                         ("relex-sparse-multiple-choice.csv", "output_relations")])
def test_relex_tutorial_matches_oracle(name, column):
    from conftest import shared
    path = shared("crowdtruth-core", "tutorial", "data", name)
    raw = pd.read_csv(path)
    res = ct1.metrics(path, format="crowdflower", label=column, sep="\n")
    rows = [(u, w, [x.strip() for x in str(a).split("\n") if x.strip()])
            for u, w, a in raw[["_unit_id", "_worker_id", column]].itertuples(index=False)]
    labels = sorted({x for _, _, ls in rows for x in ls})
    assert list(res.relations.index) == labels
    assert_matches_oracle(res, oracle(rows, labels), labels)


# ---------------------------------------------------------------- four ways in
def test_four_ways_in_give_the_same_metrics(tmp_path):
    "Judgments, a renamed long DataFrame, a CSV path and Judgments.from_matrix give the same metrics (single-label crowd)."
    sim, ways, renamed = four_ways(tmp_path)
    before = renamed.copy(deep=True)
    res = {k: ct1.metrics(data, **kw) for k, (data, kw) in ways.items()}
    pd.testing.assert_frame_equal(renamed, before)
    base = res["judgments"]
    for k, r in res.items():
        for part in ("workers", "worker_relation", "pairwise", "sentence_relation", "relations", "similarity"):
            pd.testing.assert_frame_equal(getattr(r, part), getattr(base, part), check_exact=False, rtol=0, atol=1e-12,
                                          obj=f"{k}: {part}")
        pd.testing.assert_frame_equal(r.worker_sentence.sort_index(), base.worker_sentence.sort_index(),
                                      check_exact=False, rtol=0, atol=1e-12, obj=f"{k}: worker_sentence")
        pd.testing.assert_frame_equal(r.sentences, base.sentences, obj=f"{k}: sentences")
        assert (r.workers.index.name, r.sentences.index.name, r.relations.index.name) == ("worker", "unit", "label")
