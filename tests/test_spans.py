"""crowdnb.spans: the reference packages as oracles (nervaluate, seqeval, pygamma-agreement, fixtures written by
tools/oracles/spans_fixtures.py), brute-force definitions, identities, and each reader on its tool's export."""
import json
import warnings
from fractions import Fraction as Fr
from itertools import permutations, product
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from crowdnb.agreement import cohen_kappa, krippendorff_alpha
from crowdnb.spans import (ALL, Spans, as_spans, best_alignment, gamma, match_spans, read_brat, read_doccano, read_iob,
                           read_label_studio, read_prodigy, read_webanno_tsv, span_agreement, span_f1, token_agreement,
                           unitizing_alpha)

FIX = Path(__file__).parent / "fixtures" / "spans"
ORACLES = Path(__file__).parent / "fixtures" / "spans_oracles"
SEMEVAL = {"exact": "strict", "boundary": "exact", "partial": "partial", "type": "ent_type"}


def _oracle(name):
    return json.loads((ORACLES / f"{name}.json").read_text())["cases"]


def _two(ref, resp, docs=None):
    "Spans of a reference and a response given as [doc, start, end, label] lists, every document seen by both."
    df = pd.concat([pd.DataFrame(ref, columns=["doc", "start", "end", "label"]).assign(annotator="ref"),
                    pd.DataFrame(resp, columns=["doc", "start", "end", "label"]).assign(annotator="resp")])
    docs = sorted(set(df["doc"])) if docs is None else docs
    return as_spans(df, seen=[(d, a) for d in docs for a in ("ref", "resp")])

# ---------------------------------------------------------------- oracles

@pytest.mark.parametrize("k", range(12))
@pytest.mark.parametrize("match", list(SEMEVAL))
def test_nervaluate(k, match):
    "SemEval-2013 9.1 precision, recall, F1 and counts equal nervaluate's on non-overlapping span sets."
    c = _oracle("nervaluate")[k]
    o = c["results"][SEMEVAL[match]]
    r = span_f1(_two(c["reference"], c["response"]), match).iloc[0]
    tp = o["correct"] + 0.5 * o["partial"]
    assert r["tp"] == pytest.approx(tp) and r["fp"] == pytest.approx(o["actual"] - tp)
    assert r["fn"] == pytest.approx(o["possible"] - tp)
    assert r[["precision", "recall", "f1"]].tolist() == pytest.approx([o["precision"], o["recall"], o["f1"]], abs=1e-12)


@pytest.mark.parametrize("k", range(12))
def test_seqeval(k, tmp_path):
    "read_iob + exact span F1 equal seqeval's default (conlleval) mode, ill-formed I- starts included."
    c = _oracle("seqeval")[k]
    for name, y in (("t", c["y_true"]), ("p", c["y_pred"])):
        (tmp_path / f"{name}.conll").write_text("\n\n".join("\n".join(f"w{i} {t}" for i, t in enumerate(s)) for s in y) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = span_f1(read_iob([tmp_path / "t.conll", tmp_path / "p.conll"]), "exact").iloc[0]
    assert r[["precision", "recall", "f1"]].tolist() == pytest.approx([c["precision"], c["recall"], c["f1"]], abs=1e-12)


@pytest.mark.parametrize("k", range(9))
def test_pygamma_best_alignment(k):
    "The exact best alignment's disorder equals pygamma-agreement's (its MIP) to its float32; gamma-cat's the paper's."
    c = _oracle("pygamma")[k]
    S = as_spans(pd.DataFrame(c["units"], columns=["annotator", "start", "end", "label"]).assign(doc="d"),
                 texts={"d": "x" * 100})
    g = gamma(S, seed=0, n_samples=2)
    assert g["observed_disorder"] == pytest.approx(c["disorder"], abs=1e-6)
    assert g["observed_cat_disorder"] == pytest.approx(c["cat_disorder_paper"], abs=1e-6)

# ---------------------------------------------------------------- brute force

def _brute_alignment(units, n, delta=1.0):
    "The best alignment's disorder by trying every partition into unitary alignments (tiny inputs only)."
    def d(u, v):
        return ((abs(u[1] - v[1]) + abs(u[2] - v[2])) / (u[2] - u[1] + v[2] - v[1])) ** 2 + (u[3] != v[3])
    def cost(group):
        k = len(group)
        return (sum(d(group[i], group[j]) for i in range(k) for j in range(i + 1, k)) + (n * (n - 1) - k * (k - 1)) / 2 * delta) / (n * (n - 1) / 2)
    best = [np.inf]
    def rec(rest, acc):
        if acc >= best[0]: return
        if not rest: best[0] = acc; return
        u, others = rest[0], rest[1:]
        for r in range(0, n):
            for combo in _subsets(others, r, {u[0]}):
                left = [x for x in others if x not in combo]
                rec(left, acc + cost([u, *combo]))
    rec(list(units), 0.0)
    return best[0] / (len(units) / n)


def _subsets(pool, r, used):
    if r == 0: yield []; return
    for i, x in enumerate(pool):
        if x[0] in used: continue
        for rest in _subsets(pool[i + 1:], r - 1, used | {x[0]}): yield [x, *rest]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 3), st.lists(st.tuples(st.integers(0, 2), st.integers(0, 20), st.integers(1, 6), st.integers(0, 1)),
                                   min_size=2, max_size=7))
def test_best_alignment_brute_force(n, raw):
    "The MILP over the admissible unitary alignments finds the same optimum as trying every partition."
    units = list(dict.fromkeys((a % n, s, s + l, c) for a, s, l, c in raw))
    if len({u[0] for u in units}) < n: return
    arr = np.array(units)
    _, dis = best_alignment(np.zeros(len(arr), np.int64), arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], n)
    assert dis == pytest.approx(_brute_alignment([tuple(u) for u in units], n), abs=1e-9)


def _brute_alpha_u(units, L, A):
    "Krippendorff's α_U of one label on one continuum, δ² summed over every pair of segments (units and gaps)."
    segs = {}
    for a in range(A):
        us = sorted((s, e) for aa, s, e in units if aa == a)
        out, pos = [], 0
        for s, e in us:
            if s > pos: out.append((pos, s, 0))
            out.append((s, e, 1)); pos = e
        if pos < L: out.append((pos, L, 0))
        segs[a] = out
    def dd(g, h):
        (bg, eg, wg), (bh, eh, wh) = g, h
        lg, lh = eg - bg, eh - bh
        if wg and wh and -lg < bg - bh < lh: return (bg - bh) ** 2 + (eg - eh) ** 2
        if wg and not wh and bh <= bg and eg <= eh: return lg ** 2
        if wh and not wg and bg <= bh and eh <= eg: return lh ** 2
        return 0
    Do = Fr(sum(dd(g, h) for i in range(A) for j in range(A) if i != j for g in segs[i] for h in segs[j]), A * (A - 1) * L * L)
    ls = [e - s for _, s, e in units]
    gaps = [e - s for a in range(A) for s, e, w in segs[a] if not w]
    N = len(ls)
    num = sum(Fr(N - 1, 3) * (2 * l**3 - 3 * l**2 + l) + l * l * sum(g - l + 1 for g in gaps if g >= l) for l in ls)
    De = Fr(2, L) * num / (A * L * (A * L - 1) - sum(l * (l - 1) for l in ls))
    return float(1 - Do / De)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.lists(st.tuples(st.integers(0, 3), st.integers(0, 25), st.integers(1, 5)), min_size=1, max_size=10))
def test_unitizing_alpha_brute_force(A, raw):
    "α_U equals the definition summed over every pair of segments (units and gaps) in exact fractions."
    L = 30
    units, taken = [], set()
    for a, s, l in raw:                                   # non-overlapping units per coder (the definition's premise)
        a, e = a % A, min(s + l, L)
        if any((a, x) in taken for x in range(s, e)): continue
        taken |= {(a, x) for x in range(s, e)}; units.append((a, s, e))
    df = pd.DataFrame([(f"c{a}", s, e) for a, s, e in units], columns=["annotator", "start", "end"]).assign(doc="d", label="x")
    seen = [("d", f"c{a}") for a in range(A)]
    got = unitizing_alpha(as_spans(df, texts={"d": "." * L}, seen=seen))
    assert got == pytest.approx(_brute_alpha_u(units, L, A), abs=1e-9)


def test_unitizing_alpha_hand_example():
    "The notebook's hand example: L = 10, A [2, 5), B [3, 6): D_o = 0.02, D_e = 25.6 / 368."
    df = pd.DataFrame({"doc": "c", "annotator": ["A", "B"], "start": [2, 3], "end": [5, 6], "label": "x"})
    assert unitizing_alpha(as_spans(df, texts={"c": "0123456789"})) == pytest.approx(1 - 0.02 / (25.6 / 368))


def _brute_matching(ref, resp, match):
    "The best one-to-one matching's credit by trying every assignment (tiny inputs)."
    def credit(r, p):
        same_b, same_l = (r[1], r[2]) == (p[1], p[2]), r[3] == p[3]
        over = r[0] == p[0] and min(r[2], p[2]) > max(r[1], p[1])
        return {"exact": float(same_b and same_l and r[0] == p[0]), "boundary": float(same_b and r[0] == p[0]),
                "type": float(over and same_l), "overlap": float(over), "partial": (1.0 if same_b else 0.5) * over}[match]
    best = 0.0
    k = max(len(ref), len(resp))
    for perm in permutations(range(k), len(ref)) if len(ref) <= len(resp) else []:
        best = max(best, sum(credit(ref[i], resp[j]) for i, j in enumerate(perm) if j < len(resp)))
    if len(ref) > len(resp):
        for perm in permutations(range(len(ref)), len(resp)):
            best = max(best, sum(credit(ref[i], resp[j]) for j, i in enumerate(perm)))
    return best


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["exact", "boundary", "type", "overlap", "partial"]),
       st.lists(st.tuples(st.integers(0, 1), st.integers(0, 12), st.integers(1, 4), st.sampled_from("AB")), min_size=1, max_size=5),
       st.lists(st.tuples(st.integers(0, 1), st.integers(0, 12), st.integers(1, 4), st.sampled_from("AB")), min_size=1, max_size=5))
def test_matching_credit_brute_force(match, ref, resp):
    "Exact, boundary, type and overlap matchings are maximum (greedy = optimal here); partial's credit never exceeds the best."
    ref = list(dict.fromkeys((d, s, s + l, c) for d, s, l, c in ref))
    resp = list(dict.fromkeys((d, s, s + l, c) for d, s, l, c in resp))
    got = span_f1(_two(ref, resp, docs=[0, 1]), match)["tp"].iloc[0]
    best = _brute_matching(ref, resp, match)
    if match in ("exact", "boundary"): assert got == best
    else: assert got <= best + 1e-12 and got >= best / 2 - 1e-12

# ---------------------------------------------------------------- identities

def _random_study(seed, A=3, n=40):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 200, n)
    rows = [(f"d{rng.integers(3)}", f"a{a}", max(0, x + rng.integers(-1, 2)), x + 2 + rng.integers(0, 4), rng.choice(list("XYZ")))
            for x in s for a in range(A) if rng.random() > 0.2]
    return pd.DataFrame(rows, columns=["doc", "annotator", "start", "end", "label"]).drop_duplicates()


@pytest.mark.parametrize("seed", range(4))
def test_identities(seed):
    "Swapping reference and response swaps P and R; F1 = 2tp/(POS + ACT); micro F1 pools; identical copies agree fully."
    df = _random_study(seed).sort_values("annotator", kind="stable")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        S = as_spans(df)
        t = span_f1(S, "partial")
        back = span_f1(as_spans(df.sort_values("annotator", ascending=False, kind="stable")), "partial")
    r = t.loc[("a0", "a1")]
    b = back.loc[("a1", "a0")]
    assert (r["precision"], r["recall"], r["f1"]) == pytest.approx((b["recall"], b["precision"], b["f1"]))
    assert t["f1"].to_numpy() == pytest.approx((2 * t["tp"] / (2 * t["tp"] + t["fp"] + t["fn"])).to_numpy())
    sa = span_agreement(S, "partial")
    assert sa.loc[ALL, "micro_f1"] == pytest.approx(2 * t["tp"].sum() / (2 * t["tp"].sum() + t["fp"].sum() + t["fn"].sum()))
    assert sa.loc[ALL, "mean_f1"] == pytest.approx(t["f1"].mean())
    same = as_spans(pd.concat([df[df["annotator"] == "a0"], df[df["annotator"] == "a0"].assign(annotator="b")]))
    assert (span_f1(same, "exact")["f1"] == 1).all()
    assert unitizing_alpha(same) == pytest.approx(1.0)


def test_by_label_and_doc_sum_to_total():
    "Per-document counts add up to the pair's counts (label-respecting modes: per-label counts too)."
    df = _random_study(7)
    t = span_f1(df, "exact")
    for by in ("doc", "label"):
        g = span_f1(df, "exact", by=by).groupby(level=[0, 1])[["tp", "fp", "fn"]].sum()
        assert g.to_numpy() == pytest.approx(t[["tp", "fp", "fn"]].to_numpy())


def test_token_agreement_matches_agreement_module():
    "token_agreement is crowdnb.agreement's coefficient on to_judgments (same Judgments, same number)."
    S = read_label_studio(FIX / "label_studio.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        J = S.to_judgments()
        assert token_agreement(S, "alpha") == pytest.approx(krippendorff_alpha(J))
    two = as_spans(S.frame[S.frame["annotator"].isin(["1", "2"])], texts=S.docs["text"].to_dict(),
                   seen=S.seen[S.seen["annotator"].isin(["1", "2"])])
    assert token_agreement(two, "cohen") == pytest.approx(cohen_kappa(two.to_judgments()))


def test_token_judgments_by_hand():
    "Toy study: 9 tokens, Cohen's kappa 27/45 (hand computation in the notebook)."
    texts = {"d1": "Barack Obama visited Paris.", "d2": "Berlin is cold."}
    toy = pd.DataFrame([("d1", "ann", 0, 12, "PER"), ("d1", "ann", 21, 26, "LOC"), ("d1", "bob", 7, 12, "PER"),
                        ("d1", "bob", 21, 26, "PER"), ("d2", "ann", 0, 6, "LOC"), ("d2", "bob", 0, 6, "LOC")],
                       columns=["doc", "annotator", "start", "end", "label"])
    assert token_agreement(as_spans(toy, texts=texts), "cohen") == pytest.approx(27 / 45)
    nested = pd.concat([toy, pd.DataFrame([("d1", "ann", 0, 6, "X")], columns=toy.columns)])
    J = as_spans(nested, texts=texts).to_judgments(nested="shortest")
    first = J.frame[(J.frame["unit"] == "d1:0-6") & (J.frame["worker"] == "ann")]["labels"].iloc[0]
    assert first == ("X",)


def test_gamma_seeded_and_bounded():
    "γ is reproducible from its seed, 1 for identical annotations, and its se shrinks with more samples."
    df = _random_study(3)
    g1, g2 = gamma(df, seed=5, n_samples=10), gamma(df, seed=5, n_samples=10)
    assert g1.equals(g2)
    assert g1["gamma"] < 1
    g3 = gamma(df, seed=5, n_samples=40)
    assert g3["se"] < g1["se"] * 1.2
    same = pd.concat([df[df["annotator"] == "a0"], df[df["annotator"] == "a0"].assign(annotator="b")])
    assert gamma(same, seed=0, n_samples=3)["gamma"] == 1.0

# ---------------------------------------------------------------- readers on each tool's export

def test_readers_agree_on_content():
    "Each reader's spans, texts and annotators, checked against the export written by hand."
    ls = read_label_studio(FIX / "label_studio.json")
    assert set(ls.seen.itertuples(index=False, name=None)) == {(101, "1"), (101, "2"), (101, "3"), (102, "1"), (102, "2"), (103, "1")}
    assert (ls.frame["text"] == [ls.docs.loc[d, "text"][s:e] for d, s, e in ls.frame[["doc", "start", "end"]].itertuples(index=False)]).all()
    pg = read_prodigy(FIX / "prodigy.jsonl")
    assert "Tim Cook" not in set(pg.frame["text"])                         # the rejected answer is left out
    br = read_brat([FIX / "brat" / "ann", FIX / "brat" / "bob"])
    assert br.frame.query("annotator == 'bob'")["text"].tolist() == ["BRCA1", "breast and ovarian cancer"]
    wa = read_webanno_tsv(sorted((FIX / "webanno").glob("*/*.tsv")))
    assert sorted(map(tuple, wa.frame.query("annotator == 'ben'")[["start", "end", "label"]].to_numpy().tolist())) == \
        [(0, 3, "PER"), (0, 12, "PER"), (25, 31, "ORG")]
    assert wa.to_judgments().n_units == 7                                   # the TSV's own tokens
    dc = read_doccano(sorted((FIX / "doccano").glob("*.jsonl")))
    assert dc.frame.groupby("annotator").size().to_dict() == {"admin": 3, "kim": 2}
    with pytest.warns(UserWarning, match="start with I-"):
        io = read_iob(sorted((FIX / "iob").glob("*.conll")))
    assert io.docs.loc[2, "text"] == "Peter Blackburn\nBRUSSELS 1996-08-22"


def test_iob_schemes(tmp_path):
    "IOBES and IOB1 chunks, read as conlleval reads them."
    p = tmp_path / "a.conll"
    p.write_text("a S-X\nb B-Y\nc I-Y\nd E-Y\ne E-Y\n")
    with pytest.warns(UserWarning, match="1 chunk"):
        S = read_iob([p], scheme="IOBES")
    assert S.frame[["start", "end", "label"]].values.tolist() == [[0, 1, "X"], [2, 7, "Y"], [8, 9, "Y"]]
    q = tmp_path / "b.conll"
    q.write_text("a I-X\nb I-X\nc B-X\nd O\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        S1 = read_iob([q], scheme="IOB1")
    assert S1.frame[["start", "end"]].values.tolist() == [[0, 3], [4, 5]]


def _rows(S):
    return S.frame[["doc", "annotator", "start", "end", "label", "text"]].astype(str).values.tolist()


def test_reader_fast_paths_agree_with_line_by_line(tmp_path):
    "Each text reader cuts whole files at once when they are plain; odd layouts take the line-by-line path, same spans."
    # brat: plain lines (two splits), a discontinuous one (the regex), a double space (each line alone)
    for name, extra in [("plain", ""), ("frag", "T9\tZ 0 2;3 4\tab c\n"), ("odd", "T9\tZ  0 2\tab\n")]:
        d = tmp_path / "brat" / name
        d.mkdir(parents=True)
        (d / "a.txt").write_text("ab cd ef")
        (d / "a.ann").write_text("T1\tX 0 2\tab\nT2\tY 3 5\tcd\n" + extra)
    spans = {n: _rows(read_brat([tmp_path / "brat" / n], annotators=["a"])) for n in ("plain", "frag", "odd")}
    assert spans["frag"][:2] == spans["plain"] and spans["odd"][:2] == spans["plain"]
    assert spans["frag"][2:] == [["a", "a", "0", "2", "Z", "ab"], ["a", "a", "3", "4", "Z", "c"]]
    assert spans["odd"][2:] == [["a", "a", "0", "2", "Z", "ab"]]
    # CoNLL: LF, CRLF with blank lines of spaces, and a no-break space inside a token (each line split alone)
    conll = "-DOCSTART- O\n\nEU B-ORG\nrejects O\nGerman B-MISC\n\nPeter B-PER\nBlackburn I-PER\n"
    for name, text in [("lf", conll), ("crlf", conll.replace("\n", "\r\n").replace("\r\n\r\n", "\r\n  \r\n"))]:
        (tmp_path / f"{name}.conll").write_bytes(text.encode())
    lf, crlf = (read_iob([tmp_path / f"{n}.conll"], annotators=["a"]) for n in ("lf", "crlf"))
    assert _rows(lf) == _rows(crlf)
    assert _rows(lf)[-1] == ["1", "a", "18", "33", "PER", "Peter Blackburn"]
    nb = tmp_path / "nb.conll"
    nb.write_text("EU\u00a0x B-ORG\n")                               # str.split cuts at the no-break space
    assert read_iob([nb], annotators=["a"]).frame["label"].tolist() == ["ORG"]
    # WebAnno: a regular file (cut at once) and the same with a ragged line (each line alone)
    src = next((FIX / "webanno").glob("*/ann.tsv"), None) or sorted((FIX / "webanno").glob("*/*.tsv"))[0]
    (tmp_path / "wa" / "d").mkdir(parents=True)
    (tmp_path / "wa" / "e").mkdir(parents=True)
    (tmp_path / "wa" / "d" / "x.tsv").write_text(src.read_text())
    body = src.read_text().splitlines()
    i = next(k for k, l in enumerate(body) if l and l[0] != "#")
    body[i] += "\t"
    (tmp_path / "wa" / "e" / "x.tsv").write_text("\n".join(body) + "\n")
    a, b = (read_webanno_tsv([tmp_path / "wa" / d / "x.tsv"]) for d in ("d", "e"))
    assert [r[1:] for r in _rows(a)] == [r[1:] for r in _rows(b)]
    assert len(a.frame) > 0


def test_label_studio_arrow_and_json_paths_agree(tmp_path):
    "A regular export (pyarrow's JSON reader) and one whose `completed_by` changes type (json) give the same spans."
    pytest.importorskip("pyarrow")
    from crowdnb.spans import json_array_lines
    tasks = json.loads((FIX / "label_studio.json").read_text())
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps(tasks, indent=2))                   # the fixture: one completed_by is an object
    for t in tasks:
        for a in t["annotations"]:
            if isinstance(a["completed_by"], dict): a["completed_by"] = a["completed_by"]["id"]
    tasks[1]["annotations"].append({"completed_by": 9, "was_cancelled": True, "result": tasks[0]["annotations"][0]["result"]})
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(tasks))
    lines = json_array_lines(plain.read_bytes())
    assert [json.loads(l) for l in lines.decode().splitlines()] == tasks         # the arrow path's input
    a, b = read_label_studio(plain), read_label_studio(mixed)
    assert _rows(a) == _rows(b)
    assert a.seen.equals(b.seen) and a.docs.equals(b.docs)
    assert len(a.frame) == 12 and "9" not in set(a.frame["annotator"])          # the cancelled annotation is skipped
    (tmp_path / "cut.json").write_text(plain.read_text()[:-40])
    with pytest.raises(ValueError, match=r"cut.json' is not valid JSON \(line 1"):
        read_label_studio(tmp_path / "cut.json")
