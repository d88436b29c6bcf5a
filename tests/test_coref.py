"""Coreference metrics: the official scorer's test suite, parity with `scorch`, brute-force definitions, identities."""
import json
from fractions import Fraction as Fr
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from conftest import shared
from crowdnb.coref import (POOLED, align, blanc_counts, blanc_rpf, exact_value, read_conll, reference_cases,
                           score)

# ---------------------------------------------------------------- the official scorer's test cases

@pytest.fixture(scope="module")
def ref_cases():
    return reference_cases(shared("coref-scorer-tests"))

def test_reference_suite_is_complete(ref_cases):
    "The loader finds every case of the three files (so a parsing slip cannot silently drop cases)."
    root = shared("coref-scorer-tests")
    fx = json.loads((root / "scorch/tests/fixtures/conll/conll.json").read_text())
    n_json = sum(3 * len(c["expected_metrics"]) for c in fx.values())
    by = ref_cases.groupby("source")
    assert by.size()["conll.json"] == n_json
    assert by["case"].nunique().to_dict() == {"conll.json": 36, "CorefMetricTestConfig.pm": 36,
                                              "CorefMetricTestConfig.LEA-branch.pm": 34}
    assert set(ref_cases.query("source == 'CorefMetricTestConfig.LEA-branch.pm'").metric) == {"lea"}
    # spot values copied by hand from TestCases.README (A4) and the LEA branch (A13)
    def val(src, case, metric, which):
        return ref_cases.query("source == @src and case == @case and metric == @metric and which == @which").expected.item()
    assert val("conll.json", "A4", "bcub", "recall") == pytest.approx(5 / 9, abs=1e-15)
    assert val("conll.json", "A4", "bcub", "precision") == pytest.approx(17 / 42, abs=1e-15)
    assert val("CorefMetricTestConfig.LEA-branch.pm", "A13", "lea", "precision") == pytest.approx(1 / 21, abs=1e-15)

@pytest.mark.parametrize("source", ["conll.json", "CorefMetricTestConfig.pm", "CorefMetricTestConfig.LEA-branch.pm"])
def test_reference_suite(ref_cases, source):
    "Every expected value of the reference scorer's suite, to 1e-9 (five-decimal values: to their rounding)."
    cases = ref_cases[ref_cases.source == source]
    bad = []
    for (kf, rf), g in cases.groupby(["key_file", "response_file"], sort=False):
        table = score(read_conll(kf), read_conll(rf))
        for row in g.itertuples():
            got = table.loc[(POOLED, row.metric), row.which]
            if not abs(got - row.expected) <= row.tolerance:
                bad.append((row.case, row.metric, row.which, row.expected, got))
    assert not bad, bad

def test_reference_suite_tight_tolerance(ref_cases):
    "The exact expectations are met to 1e-9, not just loosely."
    exact = ref_cases[ref_cases.tolerance == 1e-9]
    assert len(exact) >= 400 and exact.tolerance.max() == 1e-9

def test_blanc_luo_rule_differs_on_N6():
    "N6 (key of singletons, response with links): reference rule = F_n; Luo et al. (2014) rule = F_n / 2."
    root = shared("coref-scorer-tests")
    d = root / "scorch/tests/fixtures/conll/datafiles"
    k, r = read_conll(d / "TC-N.key"), read_conll(d / "TC-N-6.response")
    ref = score(k, r, metrics="blanc").loc[(POOLED, "blanc")]
    luo = score(k, r, metrics="blanc", blanc="luo2014").loc[(POOLED, "blanc")]
    assert ref.f1 == pytest.approx(0.15385, abs=5e-6)   # CorefMetricTestConfig.pm
    assert luo.f1 == pytest.approx(ref.f1 / 2, abs=1e-12)

# ---------------------------------------------------------------- random clusterings

@st.composite
def doc_pair(draw, max_mentions=14, n_tokens=25):
    "A key (at least one mention: an empty key is an error) and a response clustering of one document over a shared pool of distinct spans."
    pool = sorted(draw(st.sets(st.tuples(st.integers(0, n_tokens), st.integers(0, 2)), min_size=1, max_size=max_mentions)))
    pool = [(s, s + w) for s, w in pool]
    def clustering(spans):
        labels = draw(st.lists(st.integers(0, 5), min_size=len(spans), max_size=len(spans)))
        return [tuple(sp for sp, l in zip(spans, labels) if l == c) for c in sorted(set(labels))]
    in_key = draw(st.lists(st.booleans(), min_size=len(pool), max_size=len(pool)))
    in_key[draw(st.integers(0, len(pool) - 1))] = True
    in_resp = draw(st.lists(st.booleans(), min_size=len(pool), max_size=len(pool)))
    key = clustering([p for p, k in zip(pool, in_key) if k])
    resp = clustering([p for p, r in zip(pool, in_resp) if r])
    return key, resp

def _safe_hmean(xs):
    "scorch's F1 via statistics.harmonic_mean raises on (0, 0) with Python 3.11; same value, no error."
    r, p = xs
    return 0.0 if r == 0 or p == 0 else 2 * r * p / (r + p)

@pytest.fixture
def scorch_scores(monkeypatch):
    scores = pytest.importorskip("scorch.scores")
    monkeypatch.setattr(scores, "harmonic_mean", _safe_hmean)
    return scores

SCORCH = {"muc": "muc", "bcub": "b_cubed", "ceafm": "ceaf_m", "ceafe": "ceaf_e", "blanc": "blanc"}

@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc_pair())
def test_parity_with_scorch(scorch_scores, pair):
    "MUC, B³, CEAFm, CEAFe, BLANC of one document equal scorch's (its BLANC edge cases aside, see below)."
    key, resp = pair
    ours = score(key, resp, pooled=False)
    ks, rs = [set(c) for c in key], [set(c) for c in resp]
    for m, fn in SCORCH.items():
        n_key = sum(map(len, key))
        if m == "blanc" and n_key < 2: continue   # key without any link: see test_blanc_no_key_links
        np.testing.assert_allclose(ours.loc[("doc", m)].to_numpy(), getattr(scorch_scores, fn)(ks, rs),
                                   atol=1e-12, err_msg=m)

def test_blanc_no_key_links(scorch_scores):
    """A key with at most one mention has no link at all: the official rule scores 0 (both recalls undefined);
    scorch returns 1 for an identical single mention and for two empty clusterings."""
    one = [((3, 3),)]
    assert score(one, one, metrics="blanc").loc[("doc", "blanc")].tolist() == [0, 0, 0]
    assert scorch_scores.blanc([{(3, 3)}], [{(3, 3)}]) == (1.0, 1.0, 1.0)
    assert score(one, one, metrics="blanc", blanc="luo2014").loc[("doc", "blanc")].tolist() == [1, 1, 1]

@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(doc_pair(max_mentions=10), min_size=1, max_size=4))
def test_pooled_equals_concatenated_document(scorch_scores, pairs):
    """Pooled counts = scoring all documents as one long document (tokens shifted apart) for every metric whose
    counts add up over entities (all but BLANC); the long document is also checked against scorch."""
    keys = {f"d{i}": k for i, (k, _) in enumerate(pairs)}
    resps = {f"d{i}": r for i, (_, r) in enumerate(pairs)}
    shift = lambda cl, o: [tuple((s + o, e + o) for s, e in c) for c in cl]
    big_k = [c for i, (k, _) in enumerate(pairs) for c in shift(k, 100 * i)]
    big_r = [c for i, (_, r) in enumerate(pairs) for c in shift(r, 100 * i)]
    pooled = score(keys, resps, per_document=False, metrics=["muc", "bcub", "ceafm", "ceafe", "lea"])
    one = score(big_k, big_r, per_document=False, metrics=["muc", "bcub", "ceafm", "ceafe", "lea"])
    np.testing.assert_allclose(pooled.to_numpy(), one.to_numpy(), atol=1e-12)
    ks, rs = [set(c) for c in big_k], [set(c) for c in big_r]
    for m in ("muc", "bcub", "ceafm", "ceafe"):
        np.testing.assert_allclose(pooled.loc[(POOLED, m)].to_numpy(), getattr(scorch_scores, SCORCH[m])(ks, rs),
                                   atol=1e-12, err_msg=m)

# ---------------------------------------------------------------- brute-force definitions (independent of M)

def _links(clustering):
    "Coreference and non-coreference links of a clustering, as sets of frozensets."
    ms = [(m, i) for i, c in enumerate(clustering) for m in c]
    coref = {frozenset((a, b)) for (a, i), (b, j) in combinations(ms, 2) if i == j}
    non = {frozenset((a, b)) for (a, i), (b, j) in combinations(ms, 2) if i != j}
    return coref, non

def _blanc_brute(docs_k, docs_r, rule):
    "BLANC by enumerating links, counts summed over documents, then the edge-case rule."
    tot = np.zeros(6)
    for d in docs_k:
        ck, nk = _links(docs_k[d]); cr, nr = _links(docs_r[d])
        tot += [len(ck & cr), len(ck), len(cr), len(nk & nr), len(nk), len(nr)]
    tc, ck, cr, tn, nk, nr = tot
    div = lambda a, b: a / b if b else 0.0
    f = lambda r, p: div(2 * r * p, r + p)
    c = (div(tc, ck), div(tc, cr)); n = (div(tn, nk), div(tn, nr))
    c, n = (*c, f(*c)), (*n, f(*n))
    use_c, use_n = (ck > 0, nk > 0) if rule == "reference" else (ck + cr > 0, nk + nr > 0)
    halves = [h for h, u in ((c, use_c), (n, use_n)) if u]
    if not halves: return None
    return [sum(h[i] for h in halves) / len(halves) for i in range(3)]

@settings(max_examples=120, deadline=None)
@given(st.lists(doc_pair(max_mentions=10), min_size=1, max_size=3), st.sampled_from(["reference", "luo2014"]))
def test_blanc_brute_force(pairs, rule):
    "Per-document and pooled BLANC equal link enumeration with either edge-case rule."
    keys = {i: k for i, (k, _) in enumerate(pairs)}; resps = {i: r for i, (_, r) in enumerate(pairs)}
    table = score(keys, resps, metrics="blanc", blanc=rule)
    for d in list(keys) + [POOLED]:
        want = _blanc_brute(keys, resps, rule) if d == POOLED else _blanc_brute({d: keys[d]}, {d: resps[d]}, rule)
        if want is None: continue   # no link anywhere: covered by test_blanc_no_key_links
        np.testing.assert_allclose(table.loc[(d, "blanc")].to_numpy(), want, atol=1e-12)

def _lea_brute(key, resp):
    "LEA from its definition with exact fractions (singleton self-links resolved only by the same singleton)."
    def side(a, b):
        num = den = Fr(0)
        for e in map(set, a):
            if len(e) == 1:
                res = Fr(int(any(set(o) == e for o in b)))
            else:
                res = Fr(sum(len(e & set(o)) * (len(e & set(o)) - 1) // 2 for o in b), len(e) * (len(e) - 1) // 2)
            num += len(e) * res; den += len(e)
        return num / den if den else Fr(0)
    r, p = side(key, resp), side(resp, key)
    return [r, p, 2 * r * p / (r + p) if r + p else Fr(0)]

@settings(max_examples=150, deadline=None)
@given(doc_pair())
def test_lea_brute_force(pair):
    key, resp = pair
    np.testing.assert_allclose(score(key, resp, metrics="lea").loc[("doc", "lea")].to_numpy(),
                               [float(x) for x in _lea_brute(key, resp)], atol=1e-12)

# ---------------------------------------------------------------- identities and options

@settings(max_examples=80, deadline=None)
@given(doc_pair())
def test_identities(pair):
    "A perfect response scores 1 (given a key link); an empty response has recall 0; nothing is mutated."
    key, resp = pair
    before = [list(c) for c in key], [list(c) for c in resp]
    n_key = sum(map(len, key))
    if any(len(c) > 1 for c in key) and sum(len(c) == 1 for c in key) < n_key:
        perfect = score(key, key)
        assert np.allclose(perfect[["recall", "precision", "f1"]].fillna(1).to_numpy(), 1, atol=1e-12)
    empty = score(key, [])
    assert (empty["recall"].fillna(0) == 0).all() and (empty["precision"].fillna(0) == 0).all()
    score(key, resp, add_response_mentions=True, singletons=False)
    assert ([list(c) for c in key], [list(c) for c in resp]) == before

@settings(max_examples=60, deadline=None)
@given(doc_pair())
def test_options_match_manual_preprocessing(pair):
    "singletons=False / add_response_mentions=True equal scoring the hand-edited clusterings."
    key, resp = pair
    drop = lambda cl: [c for c in cl if len(c) > 1]
    a = score(key, resp, singletons=False)
    if drop(key):                      # a key of singletons only is empty once they go: an error to score by hand
        b = score(drop(key), drop(resp))
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=1e-12)
    else:
        with pytest.raises(ValueError, match="has no mention"): score(drop(key), drop(resp))
    key_m = {m for c in key for m in c}
    extra = [(m,) for c in resp for m in c if m not in key_m]
    a = score(key, resp, add_response_mentions=True)
    b = score(list(key) + extra, resp)
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=1e-12)

def test_repeated_mentions_first_entity_wins():
    "A span repeated in a later entity is dropped from it (reference test case A8 logic)."
    key = [((0, 0), (1, 1)), ((2, 2),)]
    dup = [((0, 0), (1, 1)), ((1, 1), (2, 2))]
    assert score(key, dup).equals(score(key, [((0, 0), (1, 1)), ((2, 2),)]))

# ---------------------------------------------------------------- reader

def _to_conll(docs, sep="\t", join="|"):
    """Write {doc: clustering} as CoNLL text (test-only writer: one column per token plus the coreference column).
    At each token closing brackets come first, then one-token mentions, then openings, so that concatenated
    brackets ("1)(2") stay unambiguous."""
    out = []
    for doc, clustering in docs.items():
        name, part = doc.rsplit("-", 1)
        n_tok = max((e for c in clustering for _, e in c), default=0) + 2
        closes, singles, opens = ([[] for _ in range(n_tok)] for _ in range(3))
        for i, c in enumerate(clustering):
            for s, e in c:
                if s == e: singles[s].append(f"({i})")
                else: opens[s].append(f"({i}"); closes[e].append(f"{i})")
        out.append(f"#begin document ({name}); part {part}")
        for t in range(n_tok):
            cell = closes[t] + singles[t] + opens[t]
            out.append(sep.join([name, str(t), f"w{t}", join.join(cell) if cell else "-"]))
            if t % 7 == 6: out.append("")
        out.append("#end document")
    return "\n".join(out) + "\n"

def _non_crossing(cluster):
    "Drop mentions that cross another mention of the same entity (brackets cannot encode those unambiguously)."
    kept = []
    for s, e in sorted(cluster):
        if all(not (s2 < s <= e2 < e or s < s2 <= e < e2) for s2, e2 in kept): kept.append((s, e))
    return tuple(kept)

@settings(max_examples=120, deadline=None)
@given(st.lists(doc_pair(), min_size=1, max_size=3), st.sampled_from(["\t", " "]), st.sampled_from(["|", ""]))
def test_read_conll_round_trip(pairs, sep, join):
    docs = {f"doc{i}-00{i}": [_non_crossing(c) for c in k] for i, (k, _) in enumerate(pairs)}
    back = read_conll(_to_conll(docs, sep, join))
    assert list(back) == list(docs)
    for d in docs:
        assert sorted(map(sorted, back[d])) == sorted(map(sorted, docs[d]))

def test_read_conll_file_errors(tmp_path):
    p = tmp_path / "bad.conll"
    p.write_text("#begin document (x); part 000\nx\t0\ta\t(1\nx\t1\tb\t2)\n#end document\n")
    with pytest.raises(ValueError, match=r"bad\.conll', line 3: closing bracket '2\)'"): read_conll(p)
    p.write_text("#begin document (x); part 000\nx\t0\ta\t(1\nx\t1\tb\t-\n#end document\n")
    with pytest.raises(ValueError, match=r"bad\.conll', line 2: mention '\(1' of entity 1 is never closed"): read_conll(str(p))
    p.write_text("#begin document (x); part 000\nx\t0\ta\t(1x\n#end document\n")
    with pytest.raises(ValueError, match=r"line 2: malformed coreference column '\(1x'"): read_conll(p)
    with pytest.raises(TypeError, match="path or CoNLL text"): read_conll(3)

def test_read_conll_empty_column_and_part():
    text = "#begin document (a/b); part 003\na\t(0\na\t\na\t0)\n#end document\n"
    assert read_conll(text) == {"a/b-003": [((0, 2),)]}   # scorch's name-part convention

def test_bad_clusterings():
    with pytest.raises(TypeError, match="key document 'doc', cluster 1: mention"):
        score([((0, 0),), ((1, 2, 3),)], [])
    with pytest.raises(ValueError, match="document 'doc', cluster 0: mention \\(4, 2\\)"):
        score([], [((4, 2),)])
    with pytest.raises(ValueError, match="unknown metric"):
        score([], [], metrics="rand")
    with pytest.raises(ValueError, match="named '\\(pooled\\)'"):
        score({POOLED: []}, {POOLED: []})

@settings(max_examples=80, deadline=None)
@given(doc_pair())
def test_mention_identification(pair):
    "Mention recall/precision = shared spans over key/response spans (set arithmetic)."
    key, resp = pair
    k, r = {m for c in key for m in c}, {m for c in resp for m in c}
    want = [len(k & r) / len(k) if k else 0.0, len(k & r) / len(r) if r else 0.0]
    np.testing.assert_allclose(score(key, resp, metrics="mentions").loc[("doc", "mentions")].to_numpy()[:2], want, atol=1e-12)
