"""Span agreement (crowdnb.spans): span_f1 on 1M spans, unitizing_alpha on 100k spans, gamma on 4 annotators x 1,000
spans against pygamma-agreement (same number of random continua), and every reader's throughput on a generated export.

The reference packages live in the oracle environment of tools/oracles/spans_fixtures.py (`.oracles/spans/`, or
$SPANS_ORACLE_PYTHON); without it the gamma case reports crowdnb alone."""
from __future__ import annotations
import json, os, subprocess, tempfile, time, warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import Result, timeit, peak_memory
from crowdnb.spans import (as_spans, gamma, read_brat, read_doccano, read_iob, read_label_studio, read_prodigy,
                           read_webanno_tsv, span_f1, unitizing_alpha)

ROOT = Path(__file__).resolve().parent.parent


def study(n_ann=4, per_ann=1000, docs=50, doc_len=2000, labels=4, seed=0) -> pd.DataFrame:
    """Spans of `n_ann` annotators who mark about `per_ann` spans each in `docs` documents: the same underlying
    mentions (2-14 characters), 10% missed, 30% with a boundary moved by up to 2, 10% relabelled."""
    rng = np.random.default_rng(seed)
    k = per_ann
    d, ln = rng.integers(0, docs, k), rng.integers(2, 15, k)
    s, lab = rng.integers(0, doc_len - 20, k), rng.integers(0, labels, k)
    rows = []
    for a in range(n_ann):
        keep = rng.random(k) > 0.1
        js = np.where(rng.random(k) < 0.3, rng.integers(-2, 3, k), 0)
        je = np.where(rng.random(k) < 0.3, rng.integers(-2, 3, k), 0)
        st = np.clip(s + js, 0, doc_len - 1)
        en = np.clip(np.maximum(s + ln + je, st + 1), 1, doc_len)
        lb = np.where(rng.random(k) < 0.1, rng.integers(0, labels, k), lab)
        rows.append(pd.DataFrame({"doc": d[keep], "annotator": f"a{a}", "start": st[keep], "end": en[keep],
                                  "label": np.array(list("PLOM"))[lb[keep] % 4]}))
    return pd.concat(rows, ignore_index=True).drop_duplicates(["doc", "annotator", "start", "end", "label"])


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def f1_million(quick: bool = False):
    "span_f1 (exact and partial) on about 1M spans of 4 annotators in 20,000 documents."
    n = 25_000 if quick else 250_000
    S = _quiet(as_spans, study(4, n, docs=n // 12, doc_len=2000))
    _, secs = timeit(_quiet, span_f1, S, "exact", repeat=3)
    _, secs_p = timeit(_quiet, span_f1, S, "partial", repeat=1)
    _, peak = peak_memory(_quiet, span_f1, S, "exact")
    return Result("spans: span_f1 exact (partial)", f"{len(S.frame):,} spans, 4 annotators", secs, None, peak,
                  f"partial {secs_p:.2f} s; tested against nervaluate (tests/test_spans.py)", "<= 2 s")


def alpha_u(quick: bool = False):
    "unitizing_alpha on about 100k spans."
    n = 2_500 if quick else 25_000
    df = study(4, n, docs=n // 12)
    S = _quiet(as_spans, df, texts={d: "x" * 2000 for d in df["doc"].unique()})
    a, secs = timeit(_quiet, unitizing_alpha, S, repeat=3)
    _, peak = peak_memory(_quiet, unitizing_alpha, S)
    return Result("spans: unitizing_alpha", f"{len(S.frame):,} spans, 4 annotators", secs, None, peak,
                  f"alpha_U {a:.3f}; brute-force definition in tests", "<= 1 s")


def _oracle_python() -> Path | None:
    p = Path(os.environ.get("SPANS_ORACLE_PYTHON") or ROOT / ".oracles" / "spans" / "bin" / "python")
    return p if p.exists() else None


PYGAMMA = """
import json, sys, time, warnings, logging
warnings.simplefilter("ignore"); logging.disable(logging.WARNING)
from pyannote.core import Segment
import pygamma_agreement as pa
d = json.load(open(sys.argv[1]))
c = pa.Continuum()
for a, doc, s, e, l in zip(d["annotator"], d["doc"], d["start"], d["end"], d["label"]):
    c.add(a, Segment(doc * 10000 + s, doc * 10000 + e), str(l))     # documents far apart on one continuum
dis = pa.CombinedCategoricalDissimilarity(alpha=1, beta=1, delta_empty=1)
t = time.perf_counter(); g = c.compute_gamma(dis, n_samples=int(sys.argv[2])); t = time.perf_counter() - t
print(json.dumps({"seconds": t, "gamma": float(g.gamma), "observed": float(g.observed_disorder)}))
"""


LIMIT = 300   # seconds pygamma-agreement may take (it took over 16 min for 4 x 1,000 spans, 30 samples, on 2 cores)

def gamma_4x1000(quick: bool = False):
    "gamma with 30 random continua, 4 annotators x about 1,000 spans, against pygamma-agreement (its default, fast=True)."
    n_samples, per = (5, 200) if quick else (30, 1000)
    df = study(4, per, docs=max(per // 20, 1))
    S = _quiet(as_spans, df, texts={d: "x" * 2000 for d in df["doc"].unique()})
    g, secs = timeit(_quiet, gamma, S, seed=0, n_samples=n_samples)
    _, peak = peak_memory(_quiet, gamma, S, seed=0, n_samples=n_samples)
    size = f"{len(S.frame):,} spans, 4 annotators, {n_samples} samples"
    py = _oracle_python()
    if py is None:
        return Result("spans: gamma (exact alignment)", size, secs, None, peak, "pygamma-agreement env absent", ">= 50x")
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "g.json"
        f.write_text(json.dumps(df.astype({"start": int, "end": int, "doc": int}).to_dict("list")))
        (Path(tmp) / "pg.py").write_text(PYGAMMA)
        try:
            out = subprocess.run([str(py), str(Path(tmp) / "pg.py"), str(f), str(n_samples)], capture_output=True,
                                 text=True, timeout=LIMIT)
        except subprocess.TimeoutExpired:
            return Result("spans: gamma (exact alignment) vs pygamma", size, secs, LIMIT, peak,
                          f"pygamma-agreement did not finish in {LIMIT} s: the ratio is a lower bound", ">= 50x")
    ref = json.loads(out.stdout.strip().splitlines()[-1])
    agree = (f"observed disorder {g['observed_disorder']:.5f} (exact) vs pygamma {ref['observed']:.5f} (fast); gamma "
             f"{g['gamma']:.4f} +- {g['se']:.4f} vs {ref['gamma']:.4f} (other chance sampler)")
    return Result("spans: gamma (exact alignment) vs pygamma", size, secs, ref["seconds"], peak, agree, ">= 50x")


def _exports(tmp: Path, df: pd.DataFrame, texts: dict) -> dict:
    "The study written in each tool's format: {format: (reader call, files)}."
    ann = sorted(df["annotator"].unique())
    g = {a: t for a, t in df.groupby("annotator")}
    by = {a: {d: x for d, x in t.groupby("doc")} for a, t in g.items()}
    tasks = [{"id": int(d), "data": {"text": texts[d]}, "annotations": [
        {"completed_by": a, "result": [{"type": "labels", "value": {"start": int(s), "end": int(e), "labels": [l]}}
                                       for s, e, l in by[a].get(d, df.iloc[:0])[["start", "end", "label"]].itertuples(index=False)]}
        for a in ann]} for d in texts]
    (tmp / "ls.json").write_text(json.dumps(tasks))
    with open(tmp / "prodigy.jsonl", "w") as f:
        for d in texts:
            for a in ann:
                sp = [{"start": int(s), "end": int(e), "label": l} for s, e, l in by[a].get(d, df.iloc[:0])[["start", "end", "label"]].itertuples(index=False)]
                f.write(json.dumps({"text": texts[d], "_input_hash": int(d), "_annotator_id": a, "answer": "accept", "spans": sp}) + "\n")
    for a in ann:
        with open(tmp / f"{a}.jsonl", "w") as f:
            for d in texts:
                lab = [[int(s), int(e), l] for s, e, l in by[a].get(d, df.iloc[:0])[["start", "end", "label"]].itertuples(index=False)]
                f.write(json.dumps({"id": int(d), "text": texts[d], "label": lab}) + "\n")
        (tmp / "brat" / a).mkdir(parents=True)
        for d in texts:
            (tmp / "brat" / a / f"d{d}.txt").write_text(texts[d])
            x = by[a].get(d, df.iloc[:0])
            (tmp / "brat" / a / f"d{d}.ann").write_text("".join(
                f"T{i + 1}\t{l} {s} {e}\t{texts[d][s:e]}\n" for i, (s, e, l) in enumerate(x[["start", "end", "label"]].itertuples(index=False))))
    return {"label-studio": (read_label_studio, tmp / "ls.json"), "prodigy": (read_prodigy, tmp / "prodigy.jsonl"),
            "doccano": (read_doccano, [tmp / f"{a}.jsonl" for a in ann]), "brat": (read_brat, [tmp / "brat" / a for a in ann])}


def _token_exports(tmp: Path, n_tokens: int, n_ann: int, seed=0) -> dict:
    "CoNLL IOB2 files and WebAnno TSV files of `n_ann` annotators over random tokens with about one span per 3 tokens."
    rng = np.random.default_rng(seed)
    words = np.array(["Ada", "Lovelace", "met", "Babbage", "in", "London", "."])
    toks = words[rng.integers(0, len(words), n_tokens)]
    iob, tsv = [], []
    for a in range(n_ann):
        begin = rng.random(n_tokens) < 0.3
        inside = ~begin & (rng.random(n_tokens) < 0.3) & np.r_[False, begin[:-1]]
        typ = np.array(["PER", "LOC"])[rng.integers(0, 2, n_tokens)]
        tags = np.where(begin, np.char.add("B-", typ), np.where(inside, np.char.add("I-", np.r_[typ[:1], typ[:-1]]), "O"))
        sent = (np.arange(n_tokens) % 20 == 19)
        lines = [f"{t} {g}" + ("\n" if e else "") for t, g, e in zip(toks, tags, sent)]
        p = tmp / f"ann{a}.conll"; p.write_text("-DOCSTART- O\n\n" + "\n".join(lines) + "\n"); iob.append(p)
        off = np.r_[0, np.cumsum(np.char.str_len(toks) + 1)[:-1]]
        (tmp / "wa" / "doc").mkdir(parents=True, exist_ok=True)
        cells = np.where(begin, np.char.add(typ, "[1]"), "_")                   # single-token spans (the fast path)
        cells = np.where(begin, typ, "_")
        body = "\n".join(f"1-{i + 1}\t{o}-{o + len(t)}\t{t}\t{c}" for i, (t, o, c) in enumerate(zip(toks, off, cells)))
        q = tmp / "wa" / "doc" / f"ann{a}.tsv"
        q.write_text("#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Entity|value\n\n\n#Text=x\n" + body + "\n")
        tsv.append(q)
    return {"iob": (read_iob, iob), "webanno": (read_webanno_tsv, tsv)}


def readers(quick: bool = False):
    "Spans per second of each reader on a generated export of about 100k spans (20k in --quick)."
    per = 5_000 if quick else 25_000
    df = study(4, per, docs=per // 40, doc_len=2000)                  # about 40 spans per 2,000-character document
    texts = {d: ("lorem ipsum " * 200)[:2000] for d in df["doc"].unique()}
    rates, cpu = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        jobs = _exports(tmp, df, texts) | _token_exports(tmp, per * 3, 4)
        for name, (fn, files) in jobs.items():
            S, secs = timeit(_quiet, fn, files)
            c0 = time.process_time()                              # CPU time too: the machine is shared
            _quiet(fn, files)
            rates[name], cpu[name] = len(S.frame) / secs, len(S.frame) / (time.process_time() - c0)
    worst = min(rates, key=rates.get)
    return Result("spans: readers (slowest shown)", f"about {4 * per:,} spans each", len(df) / rates[worst], None, None,
                  "; ".join(f"{k} {v / 1e3:,.0f}k/s (CPU {cpu[k] / 1e3:,.0f}k/s)" for k, v in rates.items()),
                  ">= 100k spans/s")


CASES = [f1_million, alpha_u, gamma_4x1000, readers]

if __name__ == "__main__":
    for case in CASES:
        r = case()
        print(r, f"ratio {r.ratio:.1f}x" if r.ratio else "")
