"""Coreference metrics: scoring a generated corpus with every metric, crowdnb vs scorch (per-document scores), and
reading a CoNLL file with a malformed '(-' cell per document (read_conll(malformed="skip") vs scorch's reader)."""
import warnings

import numpy as np

from benchmarks.common import Result, timeit, peak_memory, max_abs_diff
from crowdnb.coref import POOLED, read_conll, score

SCORCH = {"muc": "muc", "bcub": "b_cubed", "ceafm": "ceaf_m", "ceafe": "ceaf_e", "blanc": "blanc"}

def corpus(n_docs=1000, n_mentions=100, seed=0):
    """Key and response clusterings of `n_docs` documents of about `n_mentions` mentions: entity sizes are
    skewed (many singletons, a few long chains); the response deletes, moves, re-bounds and invents mentions."""
    rng = np.random.default_rng(seed)
    keys, resps = {}, {}
    for d in range(n_docs):
        starts = np.sort(rng.choice(20 * n_mentions, n_mentions, replace=False))
        ends = starts + rng.integers(0, 3, n_mentions)
        n_ent = max(2, n_mentions // 4)
        lab = rng.zipf(1.6, n_mentions) % n_ent                      # skewed entity sizes
        r_lab = np.where(rng.random(n_mentions) < 0.15, rng.integers(0, n_ent, n_mentions), lab)   # moved
        r_end = np.where(rng.random(n_mentions) < 0.05, ends + 1, ends)                             # border
        keep = rng.random(n_mentions) >= 0.10                                                        # deleted
        n_new = int(0.1 * n_mentions)                                                                # invented
        new_s = 20 * n_mentions + 4 * np.arange(n_new)
        r_spans = list(zip(starts[keep].tolist(), r_end[keep].tolist())) + list(zip(new_s.tolist(), (new_s + 1).tolist()))
        r_l = np.concatenate([r_lab[keep], rng.integers(0, n_ent + 5, n_new)])
        k_spans = list(zip(starts.tolist(), ends.tolist()))
        # a mention may not appear twice in one clustering (the scorers agree only on valid input)
        seen, r_ok = set(), []
        for i, sp in enumerate(r_spans):
            if sp not in seen: seen.add(sp); r_ok.append(i)
        keys[f"doc{d}"] = [tuple(k_spans[i] for i in np.flatnonzero(lab == c)) for c in np.unique(lab)]
        resps[f"doc{d}"] = [tuple(r_spans[i] for i in r_ok if r_l[i] == c) for c in np.unique(r_l[r_ok])]
    return keys, resps

def _scorch_all(keys, resps, scores):
    "scorch's per-document scores, documents x metrics x (R, P, F)."
    out = np.zeros((len(keys), len(SCORCH), 3))
    for i, d in enumerate(keys):
        ks, rs = [set(c) for c in keys[d]], [set(c) for c in resps[d]]
        for j, fn in enumerate(SCORCH.values()):
            out[i, j] = getattr(scores, fn)(ks, rs)
    return out

def score_corpus(quick: bool = False):
    n_docs = 100 if quick else 1000
    keys, resps = corpus(n_docs)
    n_m = sum(len(m) for cl in keys.values() for m in cl)
    table, secs = timeit(score, keys, resps, repeat=3)        # all seven metrics, per document and pooled
    _, peak = peak_memory(score, keys, resps)
    ours = table.drop(index=POOLED, level="document").unstack("metric")
    ours = np.stack([np.stack([ours[(w, m)].to_numpy() for w in ("recall", "precision", "f1")], -1)
                     for m in SCORCH], 1)
    try:
        from scorch import scores
    except ImportError:
        return Result("coref: score all metrics", f"{n_docs:,} docs, {n_m:,} mentions", secs, None, peak,
                      "scorch not installed", ">= 10x")
    ref, ref_secs = timeit(_scorch_all, keys, resps, scores)
    diff = max_abs_diff(ours, ref)
    agree = f"{'yes' if diff < 1e-9 else 'NO'} (MUC/B3/CEAFm/CEAFe/BLANC, max |diff| {diff:.1e})"
    return Result("coref: score all 8 metric rows, per doc + pooled", f"{n_docs:,} docs, {n_m:,} mentions", secs,
                  ref_secs, peak, agree, ">= 10x")

def conll_text(n_docs=1000, n_mentions=100, seed=0):
    """A CoNLL-2012 text of `n_docs` documents ('name-part' ids) and its clusterings: non-overlapping mentions of 1-2
    tokens in random entities, one sentence per document (token number in column 3, as scorch reads it), and one
    malformed '(-' cell per document on a token outside every mention (the cell other scorers skip)."""
    rng = np.random.default_rng(seed)
    lines, docs = [], {}
    for d in range(n_docs):
        n_tok = 3 * n_mentions + 2
        starts = 3 * np.arange(n_mentions); ends = starts + rng.integers(0, 2, n_mentions)
        lab = rng.integers(0, max(2, n_mentions // 4), n_mentions)
        cells = [[] for _ in range(n_tok)]
        for s, e, l in zip(starts.tolist(), ends.tolist(), lab.tolist()):
            if s == e: cells[s].append(f"({l})")
            else: cells[s].append(f"({l}"); cells[e].append(f"{l})")
        cells[n_tok - 1] = ["(-"]                                    # token after the last mention
        name = f"bench/doc{d}"
        lines.append(f"#begin document ({name}); part 000")
        lines += [f"{name}\t0\t{t}\tw{t}\t{'|'.join(c) if c else '-'}" for t, c in enumerate(cells)]
        lines.append("#end document")
        docs[f"{name}-000"] = {frozenset(zip(starts[lab == l].tolist(), ends[lab == l].tolist())) for l in np.unique(lab)}
    return "\n".join(lines) + "\n", docs

def _lenient(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_conll(text, malformed="skip")

def _as_sets(docs):
    return {d: {frozenset(c) for c in cl} for d, cl in docs.items()}

def read_corpus(quick: bool = False):
    n_docs = 100 if quick else 1000
    text, truth = conll_text(n_docs)
    docs, secs = timeit(_lenient, text, repeat=3)
    _, peak = peak_memory(_lenient, text)
    ok = _as_sets(docs) == truth and len(docs.skipped) == n_docs
    size = f"{n_docs:,} docs, {text.count(chr(10)):,} lines"
    try:
        from scorch import conll as sconll
    except ImportError:
        return Result("coref: read_conll (malformed='skip')", size, secs, None, peak,
                      f"{'yes' if ok else 'NO'} (vs the generated clusterings; scorch not installed)", ">= 1x")
    def _scorch(text):
        return {name: {frozenset((int(s), int(e)) for _, s, e in men) for men in ents.values()}
                for name, ents in sconll.parse_file(l.strip() for l in text.splitlines())}
    ref, ref_secs = timeit(_scorch, text)
    same = ok and ref == _as_sets(docs)
    return Result("coref: read_conll (malformed='skip', '(-' per doc)", size, secs, ref_secs, peak,
                  f"{'yes' if same else 'NO'} (same ids name-part and clusters as scorch; {len(docs.skipped):,} cells skipped)",
                  ">= 1x")

CASES = [score_corpus, read_corpus]

if __name__ == "__main__":
    for case in CASES:
        r = case()
        print(r, f"ratio {r.ratio:.1f}x" if r.ratio else "")
