"""Oracle fixtures for crowdnb.chance from Gwet's irrCAC, Python port `irrcac` 0.4.4 (developer tool).

    python tools/oracles/irrcac_fixtures.py            # make .oracles/irrcac/ if absent, write tests/fixtures/irrcac/*.json

irrcac pins scipy==1.12 and pandas<3, so it never enters crowdnb's environment: this script creates an isolated
virtual environment in `.oracles/irrcac/` (git-ignored), installs irrcac==0.4.4 there, and re-runs itself inside
it (`--inside OUT`) to compute every coefficient irrcac has for raw ratings (Gwet's AC1/AC2, Fleiss' kappa,
Conger's kappa, Krippendorff's alpha, Brennan-Prediger: estimate, standard error, confidence interval, p-value,
pa, pe) on

- random units x raters matrices with missing ratings (several seeds, 2 to 6 raters, numeric and text labels,
  every weighting scheme, a declared label set with an unused label, a finite population, a 90% interval);
- the raw datasets shipped with irrcac (`raw_4raters`, `raw_5observers`, `raw_ben_gerry`, `raw_g1g2`,
  `raw_gender`), Gwet's (2014) book examples;
- irrcac's contingency tables and rater distributions expanded to raw ratings (`table_cont3x3abstractors`,
  `table_cont4x4diagnosis`, `distrib_6raters` = Fleiss 1971, `dist_4cat`, `dist_g1g2`), with the tables'
  two-rater percent agreement (`irrCAC.table.CAC.pa2`) as well.

Each fixture file holds its input (a units x raters matrix, null = missing) next to irrcac's numbers, unrounded
(`digits=15`). The tests read these files; they never run irrcac.
"""
from __future__ import annotations
import json, os, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = ROOT / ".oracles" / "irrcac"
OUT = ROOT / "tests" / "fixtures" / "irrcac"
PINS = ["irrcac==0.4.4", "mpmath==1.4.1"]   # mpmath: exact t quantiles (scipy 1.12, which irrcac pins, is off by ~1e-8)
WEIGHTS = ["identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"]
METHODS = ["gwet", "fleiss", "conger", "krippendorff", "bp"]


def env_python() -> Path:
    "The oracle environment's interpreter (it may not exist yet)."
    return ENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _base_python() -> str:
    "An interpreter scipy 1.12 installs on (Python 3.9-3.12): $IRRCAC_PYTHON, this one, or python3.12/3.11 on PATH."
    import shutil
    if os.environ.get("IRRCAC_PYTHON"): return os.environ["IRRCAC_PYTHON"]
    if (3, 9) <= sys.version_info[:2] <= (3, 12): return sys.executable
    for name in ("python3.12", "python3.11", "python3.10"):
        if shutil.which(name): return shutil.which(name)
    sys.exit("irrcac 0.4.4 pins scipy 1.12, which needs Python 3.9-3.12: set IRRCAC_PYTHON to such an interpreter")


def ensure_env() -> Path:
    "Create `.oracles/irrcac/` with irrcac installed, unless it is there already; returns its python."
    py = env_python()
    if py.exists() and subprocess.run([str(py), "-c", "import irrCAC, mpmath"], capture_output=True).returncode == 0:
        return py
    ENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([_base_python(), "-m", "venv", str(ENV)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", *PINS], check=True)
    return py


# ---------------------------------------------------------------- inside the oracle environment
def _t_exact(ci, df):
    "The t quantile of a two-sided `ci` interval with `df` degrees of freedom, to 30 digits (mpmath)."
    import mpmath as mp
    mp.mp.dps = 40
    upper = lambda x: mp.betainc(mp.mpf(df) / 2, mp.mpf(1) / 2, 0, df / (df + x ** 2), regularized=True) / 2
    return float(mp.findroot(lambda x: upper(x) - (1 - mp.mpf(ci)) / 2, 2.0))


def _run(matrix, weights, categories=None, ci=0.95, N=None):
    "irrcac's five raw-data coefficients on one units x raters matrix (list of lists, None = missing)."
    import numpy as np, pandas as pd
    from irrCAC.raw import CAC
    df = pd.DataFrame(matrix, columns=[f"R{g}" for g in range(len(matrix[0]))])
    if all(isinstance(v, (int, float)) or v is None for row in matrix for v in row): df = df.astype(float)
    rated = np.array([[v is not None for v in row] for row in matrix]).sum(1)
    dfs = {m: int((rated >= (2 if m == "krippendorff" else 1)).sum()) - 1 for m in METHODS}
    t_exact = {m: _t_exact(ci, d) for m, d in dfs.items()}
    out = {}
    for w in weights:
        cac = CAC(df.copy(), weights=w, categories=categories, confidence_level=ci, N=np.inf if N is None else N, digits=15)
        res = {}
        for m in METHODS:
            e = getattr(cac, m)()["est"]
            res[m] = dict(estimate=float(e["coefficient_value"]), se=float(e["se"]),
                          ci_low=float(e["confidence_interval"][0]), ci_high=float(e["confidence_interval"][1]),
                          p_value=float(e["p_value"]), pa=float(e["pa"]), pe=float(e["pe"]), name=e["coefficient_name"],
                          df=dfs[m], t_exact=t_exact[m])
        out[w if isinstance(w, str) else "custom"] = res
    return out


def _case(name, matrix, weights, source, categories=None, ci=0.95, N=None, custom=None, **extra):
    ws = list(weights) + ([custom] if custom is not None else [])
    return dict(name=name, source=source, matrix=matrix, categories=categories, ci=ci, N=N, custom_weights=custom,
                results=_run(matrix, ws, categories, ci, N), **extra)


def _clean(df):
    "A ratings frame as a list of rows with None for missing and plain Python numbers."
    import numpy as np
    rows = []
    for row in df.itertuples(index=False):
        out = []
        for v in row:
            if v is None or (isinstance(v, float) and np.isnan(v)): out.append(None)
            elif isinstance(v, (float, np.floating)) and float(v).is_integer(): out.append(int(v))
            elif isinstance(v, (np.integer,)): out.append(int(v))
            else: out.append(v)
        rows.append(out)
    return rows


def _expand_counts(counts, categories):
    "Units x categories counts -> units x max-count raw matrix (fake raters: the k-th rating of a unit)."
    width = int(max(sum(r) for r in counts))
    rows = []
    for r in counts:
        vals = [c for c, k in zip(categories, r) for _ in range(int(k))]
        rows.append(vals + [None] * (width - len(vals)))
    return rows


def _random(seed, n, r, labels, missing, noise):
    "A units x raters matrix: a true label per unit, each rater right with prob 1 - noise, holes at rate `missing`."
    import numpy as np
    rng = np.random.default_rng(seed)
    q = len(labels)
    truth = rng.choice(q, n, p=rng.dirichlet(np.full(q, 2.0)))
    codes = np.where(rng.random((n, r)) < 1 - noise, truth[:, None], rng.integers(0, q, (n, r)))
    hole = rng.random((n, r)) < missing
    hole[np.arange(n), rng.integers(0, r, n)] = False          # every unit keeps at least one rating
    lab = np.asarray(labels, dtype=object)
    return [[None if hole[i, g] else lab[codes[i, g]] for g in range(r)] for i in range(n)]


def inside(out: Path):
    import irrCAC, numpy as np, pandas as pd
    from irrCAC import datasets as ds
    from irrCAC.table import CAC as TableCAC
    out.mkdir(parents=True, exist_ok=True)
    meta = dict(oracle=f"irrcac {getattr(irrCAC, '__version__', '0.4.4')}", numpy=np.__version__, pandas=pd.__version__)

    # (a) random data with missing ratings
    cases = []
    specs = [  # seed, units, raters, labels, missing, noise
        (0, 40, 2, [1, 2, 3, 4, 5], 0.2, 0.4), (1, 60, 2, [1, 2, 4, 7], 0.15, 0.5), (2, 30, 3, ["a", "b", "c"], 0.3, 0.4),
        (3, 50, 4, [1, 2, 3, 4, 5], 0.3, 0.5), (4, 45, 6, [1, 2, 3, 4, 5, 6, 7], 0.4, 0.6), (5, 35, 5, [2, 3, 5, 8], 0.25, 0.3),
        (6, 25, 3, ["no", "yes"], 0.2, 0.3), (7, 80, 6, [1, 2, 3], 0.5, 0.7)]
    for seed, n, r, labels, missing, noise in specs:
        m = _random(seed, n, r, labels, missing, noise)
        text = isinstance(labels[0], str)
        ws = ["identity", "quadratic", "ordinal", "linear", "bipolar"] if text else WEIGHTS
        cases.append(_case(f"random seed {seed}: {n} units x {r} raters, labels {labels}", m, ws,
                           f"numpy default_rng({seed}), {missing:.0%} missing", labels=labels))
    m = _random(11, 40, 3, [1, 2, 3, 4, 5], 0.3, 0.5)               # a declared label (6) nobody used
    cases.append(_case("declared labels 1..6, 6 unused", m, ["identity", "quadratic", "linear"], "numpy default_rng(11)",
                       categories=[1, 2, 3, 4, 5, 6], labels=[1, 2, 3, 4, 5, 6]))
    m = _random(12, 30, 4, [1, 2, 3], 0.2, 0.5)                     # finite population and a 90% interval
    cases.append(_case("finite population N=90, 90% interval", m, ["identity", "quadratic"], "numpy default_rng(12)",
                       ci=0.90, N=90, labels=[1, 2, 3]))
    custom = [[1.0, 0.5, 0.0], [0.5, 1.0, 0.8], [0.0, 0.8, 1.0]]
    m = _random(13, 30, 3, ["lo", "mid", "hi"], 0.2, 0.5)           # a custom weights matrix, labels in their own order
    cases.append(_case("custom weights", m, ["identity"], "numpy default_rng(13)", categories=["hi", "lo", "mid"],
                       custom=custom, labels=["hi", "lo", "mid"]))
    (out / "random.json").write_text(json.dumps(dict(meta, cases=cases), indent=None) + "\n")

    # (b) irrcac's raw datasets (Gwet 2014)
    cases = []
    for name in ["raw_4raters", "raw_5observers", "raw_g1g2", "raw_gender", "raw_ben_gerry"]:
        df = getattr(ds, name)()
        m = _clean(df)
        numeric = all(isinstance(v, (int, float)) or v is None for row in m for v in row)
        ws = [w for w in WEIGHTS if w != "ratio" or (numeric and min(v for row in m for v in row if v is not None) > 0)]
        cases.append(_case(name, m, ws if numeric else ["identity", "quadratic", "ordinal", "linear"],
                           f"irrCAC.datasets.{name}()", raters=list(df.columns)))
    (out / "datasets.json").write_text(json.dumps(dict(meta, cases=cases), indent=None) + "\n")

    # (c) tables and distributions expanded to raw ratings
    cases = []
    for name in ["table_cont3x3abstractors", "table_cont4x4diagnosis"]:
        t = getattr(ds, name)()
        cats = list(t.index)
        m = [[cats[a], cats[b]] for a in range(len(cats)) for b in range(len(cats)) for _ in range(int(t.iloc[a, b]))]
        pa2 = {}
        for w in ["identity", "quadratic"]:
            e = TableCAC(t, weights=w, digits=15).pa2()["est"]
            pa2[w] = dict(estimate=float(e["coefficient_value"]), se=float(e["se"]))
        cases.append(_case(name, m, ["identity", "quadratic"], f"irrCAC.datasets.{name}() expanded to one row per subject",
                           categories=cats, labels=cats, pa2_table=pa2))
    for name in ["distrib_6raters", "dist_4cat", "dist_g1g2"]:
        t = getattr(ds, name)()
        cats = list(t.columns)
        m = _expand_counts(t.to_numpy().tolist(), cats)
        cases.append(_case(name, m, ["identity", "quadratic"], f"irrCAC.datasets.{name}() expanded: rater k = the "
                           "k-th rating of a subject (Conger's kappa then depends on that arbitrary order)",
                           categories=cats, labels=cats))
    (out / "tables.json").write_text(json.dumps(dict(meta, cases=cases), indent=None) + "\n")
    print(f"wrote {', '.join(sorted(p.name for p in out.glob('*.json')))} to {out}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--inside"]:
        return inside(Path(argv[1]))
    py = ensure_env()
    subprocess.run([str(py), str(Path(__file__).resolve()), "--inside", str(OUT)], check=True)


if __name__ == "__main__":
    main()
