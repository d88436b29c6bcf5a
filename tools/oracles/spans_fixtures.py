"""Oracle fixtures for crowdnb.spans from pygamma-agreement 0.5.9, nervaluate 1.2.1 and seqeval 1.2.2 (developer tool).

    python tools/oracles/spans_fixtures.py          # make .oracles/spans/ if absent, write tests/fixtures/spans_oracles/*.json
    SPANS_ORACLE_PYTHON=/path/to/python python tools/oracles/spans_fixtures.py   # use an environment that has them

pygamma-agreement pulls cvxpy, pyannote.core and a MIP solver, which crowdnb's environment does not need, so the three
reference packages live in an isolated virtual environment (`.oracles/spans/`, git-ignored). This script creates it,
installs the pinned versions, and re-runs itself inside it (`--inside OUT`) to write, next to their seeded inputs:

- `nervaluate.json`: SemEval-2013 Task 9.1 counts and scores (strict, exact, partial, ent_type) of random reference and
  response span sets (non-overlapping within an annotator, as nervaluate expects);
- `seqeval.json`: seqeval's conlleval-style (default mode) precision, recall and F1 of random IOB2 tag sequences,
  ill-formed ones included;
- `pygamma.json`: pygamma-agreement's best-alignment disorder, its gamma-cat disorder and the paper's (without
  pygamma's experimental term for unaligned units) (`get_best_alignment`, exact
  MIP) of random continua of 2 to 4 annotators, with the combined categorical dissimilarity (alpha = beta = 1,
  delta_empty = 1).

The tests read these files; they never run the reference packages.
"""
from __future__ import annotations
import json, os, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = ROOT / ".oracles" / "spans"
OUT = ROOT / "tests" / "fixtures" / "spans_oracles"
PINS = ["pygamma-agreement==0.5.9", "nervaluate==1.2.1", "seqeval==1.2.2"]


def env_python() -> Path:
    "The oracle environment's interpreter ($SPANS_ORACLE_PYTHON, else .oracles/spans/bin/python)."
    if os.environ.get("SPANS_ORACLE_PYTHON"): return Path(os.environ["SPANS_ORACLE_PYTHON"])
    return ENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_env() -> Path:
    "Create `.oracles/spans/` with the pinned packages unless an interpreter that imports them exists."
    py = env_python()
    check = "import pygamma_agreement, nervaluate, seqeval"
    if py.exists() and subprocess.run([str(py), "-c", check], capture_output=True).returncode == 0: return py
    ENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(ENV)], check=True)
    py = ENV / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", *PINS], check=True)
    return py


# ---------------------------------------------------------------- inside the oracle environment
def _spans(rng, n_docs, doc_len, n, labels):
    "Random non-overlapping spans [doc, start, end, label] (end exclusive)."
    out = []
    for d in range(n_docs):
        cuts = sorted(rng.choice(doc_len, size=2 * n, replace=False).tolist())
        for k in range(n):
            out.append([d, cuts[2 * k], cuts[2 * k + 1], labels[int(rng.integers(len(labels)))]])
    return out


def _perturb(rng, spans, labels, doc_len):
    "A response: spans dropped, re-bounded, relabelled and invented, kept non-overlapping."
    out = []
    for d, s, e, lab in spans:
        r = rng.random()
        if r < 0.15: continue
        if r < 0.35: s, e = max(s, s + int(rng.integers(0, 2))), e - int(rng.integers(0, 2))
        if rng.random() < 0.15: lab = labels[int(rng.integers(len(labels)))]
        if e > s: out.append([d, s, e, lab])
    taken = {(d, x) for d, s, e, _ in out for x in range(s, e)}
    for d in sorted({x[0] for x in spans}):
        s = int(rng.integers(doc_len - 3))
        if not any((d, x) in taken for x in range(s, s + 3)): out.append([d, s, s + 3, labels[0]])
    return out


def nervaluate_cases(rng):
    from nervaluate import Evaluator
    cases, labels = [], ["PER", "LOC", "ORG"]
    for case in range(12):
        n_docs, doc_len = int(rng.integers(1, 5)), 60
        ref = _spans(rng, n_docs, doc_len, int(rng.integers(1, 8)), labels)
        resp = _perturb(rng, ref, labels, doc_len)
        as_docs = lambda sp: [[{"label": l, "start": s, "end": e - 1} for dd, s, e, l in sp if dd == d] for d in range(n_docs)]
        res = Evaluator(as_docs(ref), as_docs(resp), tags=labels).evaluate()["overall"]
        cases.append({"reference": ref, "response": resp, "results": {k: v._asdict() if hasattr(v, "_asdict") else dict(vars(v))
                                                                          for k, v in res.items()}})
    return cases


def seqeval_cases(rng):
    from seqeval.metrics import f1_score, precision_score, recall_score
    cases, tags = [], ["O", "O", "O", "B-PER", "I-PER", "B-LOC", "I-LOC", "I-ORG"]
    for case in range(12):
        n_sent = int(rng.integers(1, 6))
        y_true = [[tags[int(i)] for i in rng.integers(len(tags), size=int(rng.integers(3, 15)))] for _ in range(n_sent)]
        y_pred = [[t if rng.random() > 0.25 else tags[int(rng.integers(len(tags)))] for t in s] for s in y_true]
        cases.append({"y_true": y_true, "y_pred": y_pred, "precision": precision_score(y_true, y_pred),
                      "recall": recall_score(y_true, y_pred), "f1": f1_score(y_true, y_pred)})
    return cases


def _cat_paper(alignment, dis) -> float:
    "gamma-cat's disorder as Mathet (2015, section 4.2.5) defines it, on pygamma's best alignment and with pygamma's own\n    dissimilarities: pygamma's gamma_k_disorder without its 'experimental' term for units aligned with nothing."
    num = den = 0.0
    for ua in alignment:
        units = [u for _, u in ua.n_tuple if u is not None]
        if len(units) < 2: continue
        for i, u in enumerate(units):
            for v in units[i + 1:]:
                w = max(0.0, 1 - dis.alpha * dis.positional_dissim.d(u, v)) / (len(units) - 1)
                num += w * dis.categorical_dissim.d(u, v); den += w
    return float(num / den) if den else float("nan")


def pygamma_cases(rng):
    import numpy as np
    from pyannote.core import Segment
    import pygamma_agreement as pa
    cases = []
    for case in range(10):
        n_ann, base = int(rng.integers(2, 5)), _spans(rng, 1, 80, int(rng.integers(2, 6)), ["a", "b"])
        units = []
        for a in range(n_ann):
            for _, s, e, lab in base:
                if rng.random() < 0.2: continue
                s2, e2 = s + int(rng.integers(-1, 2)), e + int(rng.integers(-1, 2))
                if e2 > s2 >= 0: units.append([f"r{a}", s2, e2, lab if rng.random() > 0.2 else ("b" if lab == "a" else "a")])
        if len({u[0] for u in units}) < n_ann: continue
        c = pa.Continuum()
        for a, s, e, lab in units: c.add(a, Segment(s, e), lab)
        dis = pa.CombinedCategoricalDissimilarity(alpha=1, beta=1, delta_empty=1)
        best = c.get_best_alignment(dis)
        cases.append({"units": units, "disorder": float(best.disorder),
                      "cat_disorder": float(best.gamma_k_disorder(dis, None)),
                      "cat_disorder_paper": _cat_paper(best, dis)})
    return cases


def inside(out: Path):
    import numpy as np, importlib.metadata as md
    rng = np.random.default_rng(20260101)
    out.mkdir(parents=True, exist_ok=True)
    for name, fn in (("nervaluate", nervaluate_cases), ("seqeval", seqeval_cases), ("pygamma", pygamma_cases)):
        pkg = {"pygamma": "pygamma-agreement"}.get(name, name)
        data = {"package": pkg, "version": md.version(pkg), "cases": fn(rng)}
        (out / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {out / (name + '.json')}: {len(data['cases'])} cases")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--inside": inside(Path(sys.argv[2]))
    else: subprocess.run([str(ensure_env()), __file__, "--inside", str(OUT)], check=True)
