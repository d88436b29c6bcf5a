"""Fuzzing every front door (issue 22). Hypothesis builds a small clean crowd (unit, worker, label), then dirties it
in ways that keep its meaning (ids and answers padded with spaces, unicode and right-to-left ids, ids that look
like numbers, categorical / string / nullable dtypes, extra columns; for files: a BOM, CRLF line ends, blank
lines, quoted cells) and sometimes plants one bad cell (a missing or blank id, a missing or empty answer, a
repeated pair, a number among text answers, a ragged row). Every user-facing function and every CLI subcommand
must then either
  - give the result it gives on the clean equivalent table (or the same error as there: the data's own limits), or
  - raise a ValueError/TypeError whose message names the planted culprit (its column and row, or the file's line);
the CLI: status 2 and one line `crowdnb: error: ...`.
The input (DataFrame or file) is never changed. Hypothesis runs derandomized with a fixed number of examples per
front door and no example database, so the run is the same in CI and writes nothing into the repository."""
import io, math, re, tempfile, warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from crowdnb import agreement, chance, crowdtruth, crowdtruth_v1, humeval, model_a, model_b, trust
from crowdnb.cli import main
from crowdnb.core import Judgments, as_judgments

FUZZ = settings(max_examples=30, derandomize=True, database=None, deadline=None, print_blob=False,
                suppress_health_check=list(HealthCheck))

ID_POOLS = {"ascii": ["u1", "alpha", "x_9", "B"], "unicode": ["ünï", "日本", "ñandú", "Ω"],
            "rtl": ["שלום", "مرحبا", "עב-2", "\u200fא"], "numeric": ["12", "3", "45", "7"],
            "mixed": ["u1", "7", "שלום", "ω"]}
LABEL_POOLS = {"text": ["yes", "no", "maybe"], "rtl": ["כן", "لا", "אולי"], "int": [1, 2, 3], "scale": [0, 3, 7]}
PLANTS = [None, None, None, "missing unit", "blank worker", "missing label", "empty label", "repeated pair",
          "mixed label"]


@st.composite
def crowds(draw, max_units=6, max_workers=5, full=False):
    "A clean crowd as rows (unit, worker, label): distinct (unit, worker) pairs, at least one row (`full`: every pair)."
    ids = ID_POOLS[draw(st.sampled_from(sorted(ID_POOLS)))]
    units = [f"{i}{k}" if ids is not ID_POOLS["numeric"] else str(10 * int(i) + k) for k in range(3) for i in ids][:max_units]
    units = units[:draw(st.integers(2, len(units)) | st.just(1))]
    workers = [f"w{w}" if draw(st.booleans()) else f"{ids[w % len(ids)]}-{w}"
               for w in range(max_workers if full else draw(st.integers(2, max_workers) | st.just(1)))]
    pairs = [(u, w) for u in units for w in workers]
    drop = [] if full else draw(st.lists(st.sampled_from(range(len(pairs))), max_size=len(pairs) // 3, unique=True))
    keep = [k for k in range(len(pairs)) if k not in drop]
    labels = LABEL_POOLS[draw(st.sampled_from(sorted(LABEL_POOLS)))]
    pick = np.random.default_rng(draw(st.integers(0, 2**16))).integers(0, len(labels), len(keep))   # varied answers
    rows = [(pairs[k][0], pairs[k][1], labels[i]) for k, i in zip(sorted(keep), pick)]
    return pd.DataFrame(rows, columns=["unit", "worker", "label"])


def _is_num(df): return pd.api.types.is_integer_dtype(df["label"].dtype)


@st.composite
def dirty_tables(draw, **kw):
    "(dirty DataFrame, clean DataFrame, planted culprit: None or (kind, column, rows))."
    clean = draw(crowds(**kw))
    d = pd.DataFrame({c: clean[c].to_numpy(object) for c in clean.columns}, dtype=object)
    if draw(st.booleans()):                                  # padded ids and text answers
        for c in ("unit", "worker") + (() if _is_num(clean) else ("label",)):
            d[c] = pd.Series([f"{' ' * draw(st.integers(0, 2))}{v}{chr(9) * draw(st.integers(0, 1))}" for v in d[c]],
                             dtype=object)
    plant = draw(st.sampled_from(PLANTS))
    culprit = None
    if plant is not None:
        k = draw(st.integers(0, len(d) - 1))
        if plant == "missing unit": d.loc[k, "unit"] = draw(st.sampled_from([None, np.nan])); culprit = ("unit", [k])
        elif plant == "blank worker": d.loc[k, "worker"] = draw(st.sampled_from(["", "   ", "\t"])); culprit = ("worker", [k])
        elif plant == "missing label": d.loc[k, "label"] = draw(st.sampled_from([None, np.nan])); culprit = ("label", [k])
        elif plant == "empty label": d.loc[k, "label"] = draw(st.sampled_from(["", "  "])); culprit = ("label", [k])
        elif plant == "repeated pair":
            d = pd.concat([d, d.iloc[[k]]], ignore_index=True); culprit = ("duplicate", [k, len(d) - 1])
        elif plant == "mixed label":
            d.loc[k, "label"] = "x" if _is_num(clean) else 5; culprit = ("label", [k])
            if len(d) == 1: culprit = None; d.loc[k, "label"] = clean.loc[k, "label"]   # nothing to mix with
    kind = draw(st.sampled_from(["object", "category", "string", "native"]))
    for c in d.columns:
        try:
            if kind == "category": d[c] = d[c].astype("category")
            elif kind == "string" and (c != "label" or not _is_num(clean)): d[c] = d[c].astype("string")
            elif kind == "native" and c == "label" and _is_num(clean) and culprit is None: d[c] = d[c].astype("Int64")
        except (TypeError, ValueError): pass
    if draw(st.booleans()): d.insert(0, "junk ✓", range(len(d)))          # a column nobody asked for
    return d, clean, culprit


def comparable(x):
    "A result as plain, comparable values: pandas objects with str ids, numbers rounded, NaN kept."
    if isinstance(x, (pd.DataFrame, pd.Series)):
        x = x.copy()
        x.index = x.index.map(str)
        if isinstance(x, pd.DataFrame): x.columns = x.columns.map(str)
        return x
    if isinstance(x, Judgments):
        f = x.frame[["unit", "worker", "labels", "count"]].astype(str)
        return (f.sort_values(["unit", "worker"]).to_numpy().tolist(), [str(v) for v in x.labels], x.closed)
    if isinstance(x, (float, np.floating)): return float(x)
    if isinstance(x, np.ndarray): return x
    return x


def same(a, b):
    a, b = comparable(a), comparable(b)
    if isinstance(a, (pd.DataFrame, pd.Series)):
        assert a.index.tolist() == b.index.tolist()
        if isinstance(a, pd.DataFrame): assert a.columns.tolist() == b.columns.tolist()
        av = a.to_numpy(object).ravel() if isinstance(a, pd.Series) else a.to_numpy(object).ravel()
        bv = b.to_numpy(object).ravel()
        for p, q in zip(av, bv): same_value(p, q)
    elif isinstance(a, np.ndarray): np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
    elif isinstance(a, float): same_value(a, b)
    else: assert a == b, (a, b)


def same_value(p, q):
    if isinstance(p, (int, float, np.number)) and not isinstance(p, bool) and isinstance(q, (int, float, np.number)):
        assert (math.isnan(p) and math.isnan(q)) or p == pytest.approx(q, rel=1e-9, abs=1e-12), (p, q)
    else: assert str(p) == str(q), (p, q)


def outcome(fn, data):
    "('ok', result) or ('error', exception); anything but ValueError/TypeError fails the test."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try: return "ok", fn(data)
        except (ValueError, TypeError) as e: return "error", e


def names_culprit(e: Exception, culprit, lines=None) -> bool:
    "The message names the planted culprit: its column (or 'duplicate') and one of its rows (or CSV lines)."
    msg = str(e)
    what, rows = culprit
    if what == "duplicate": ok = "duplicate judgments" in msg
    else: ok = f"{what} column" in msg or (what == "label" and "label" in msg)
    at = [lines[r] if lines is not None else r for r in rows]
    word = "line" if lines is not None else "row"
    return ok and any(re.search(rf"\b{word}s? (\d+ \(line \d+\), )*{a}\b|\b{word} {a}\b|\(line {a}\)|, {a}\b", msg)
                      for a in at)


TALLY = {}   # outcome counts per front door: the fuzz must reach results, errors and planted culprits alike


def check_front_door(fn, dirty, clean, culprit, name="?"):
    before = dirty.copy(deep=True)
    got = outcome(fn, dirty)
    key = "planted" if culprit is not None else got[0]
    TALLY.setdefault(name, {}).setdefault(key, 0); TALLY[name][key] += 1
    pd.testing.assert_frame_equal(dirty, before)                          # never mutated
    if culprit is not None:
        assert got[0] == "error", f"planted {culprit} but got a result"
        assert names_culprit(got[1], culprit), (culprit, str(got[1]))
        return
    want = outcome(fn, clean)
    assert got[0] == want[0], (got, want)
    if got[0] == "error": assert type(got[1]) is type(want[1]) and str(got[1]) == str(want[1]), (got[1], want[1])
    else: same(got[1], want[1])


FRONT_DOORS = {
    "as_judgments": lambda d: as_judgments(d),
    "crowdtruth.run": lambda d: crowdtruth.run(d).workers,
    "crowdtruth.run closed": lambda d: crowdtruth.run(d, open_ended=False).units.drop(columns=["uas", "uas_initial"], errors="ignore"),
    "crowdtruth_v1.metrics": lambda d: crowdtruth_v1.metrics(d).workers,
    "krippendorff_alpha": lambda d: agreement.krippendorff_alpha(d),
    "alpha_bootstrap": lambda d: agreement.alpha_bootstrap(d, n_boot=20, seed=0, progress=False).samples,
    "fleiss_kappa": lambda d: agreement.fleiss_kappa(d),
    "cohen_kappa": lambda d: agreement.cohen_kappa(d),
    "scott_pi": lambda d: agreement.scott_pi(d),
    "pairwise_agreement": lambda d: agreement.pairwise_agreement(d).pairs,
    "unit_value_counts": lambda d: agreement.unit_value_counts(d),
    "coefficient_table": lambda d: chance.coefficient_table(d, n_boot=None) if "n_boot" in chance.coefficient_table.__code__.co_varnames[:0] else chance.coefficient_table(d),
    "gwet_ac": lambda d: chance.gwet_ac(d).estimate,
    "trust_coefficients": lambda d: trust.trust_coefficients(d, progress=False),
    "ModelA": lambda d: model_a.ModelA(seed=0, n_starts=1).fit(d).theta_,
    "ModelB": lambda d: model_b.ModelB(seed=0).fit(d).theta_,
    "model_b.fit": lambda d: model_b.fit(d, n_starts=2, seed=0).optima,
    "model_b.em": lambda d: model_b.em(d).log_lik,
    "humeval.ratings_matrix": lambda d: humeval.ratings_matrix(d),
}


SHAPES = {"ModelA": dict(max_workers=3, full=True)}   # model A: three annotators on every unit


@pytest.mark.parametrize("name", list(FRONT_DOORS))
def test_front_door_fuzz(name):
    fn = FRONT_DOORS[name]

    @FUZZ
    @given(dirty_tables(**SHAPES.get(name, {})))
    def run(case):
        check_front_door(fn, *case, name=name)
    run()
    t = TALLY.get(name, {})
    assert t.get("planted", 0) >= 5 and t.get("ok", 0) + t.get("error", 0) >= 5, t   # both branches exercised


@FUZZ
@given(dirty_tables(max_units=4, max_workers=3))
def test_from_matrix_fuzz(case):
    "The wide door: a bad cell is named by its unit and worker; a clean matrix gives the long table's judgments."
    dirty, clean, culprit = case
    if culprit is not None and culprit[0] != "label": return               # ids are the matrix's index and columns
    d = dirty.drop_duplicates(["unit", "worker"]) if culprit is None else dirty
    if d[["unit", "worker"]].isna().any().any() or d.duplicated(["unit", "worker"]).any(): return
    wide = d.assign(unit=d["unit"].astype(str).str.strip(), worker=d["worker"].astype(str).str.strip()) \
        .pivot(index="unit", columns="worker", values="label")
    before = wide.copy()
    got = outcome(lambda m: Judgments.from_matrix(m), wide)
    pd.testing.assert_frame_equal(wide, before)
    if culprit is not None:
        if got[0] == "ok": return                                         # a missing cell is simply missing in a matrix
        unit, worker = str(d["unit"].iloc[culprit[1][0]]).strip(), str(d["worker"].iloc[culprit[1][0]]).strip()
        assert f"unit {unit!r}" in str(got[1]) or "unit" in str(got[1]), str(got[1])
        return
    want = outcome(as_judgments, clean)
    assert got[0] == want[0], (got, want)
    if got[0] == "ok": same(got[1], want[1])


@FUZZ
@given(st.lists(st.sampled_from(["unit", "worker", "label", "labels", "sep", "empty", "dimension", "weights", "seed",
                                 "level", "n_boot", "max_iter", "colour", "labls", "rater"]), min_size=1, max_size=2, unique=True),
       st.sampled_from([[], {}, 3.5, None, True, "x", ("a",), object()]),
       st.sampled_from(sorted(FRONT_DOORS)))
def test_options_fuzz(names, value, door):
    "Any option with any value: a result, or a TypeError/ValueError that names the option."
    fn = FRONT_DOORS[door]
    df = pd.DataFrame({"unit": ["a", "a", "b", "b", "c", "c"], "worker": ["x", "y"] * 3, "label": [1, 2, 2, 2, 1, 1]})
    before = df.copy()
    call = {"as_judgments": lambda kw: as_judgments(df, **kw)}.get(door)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if call: call({n: value for n in names})
            else: _with_options(door, df, {n: value for n in names})
        except (ValueError, TypeError) as e:
            assert any(n in str(e) for n in names) or "column" in str(e) or "label" in str(e), (names, value, str(e))
    pd.testing.assert_frame_equal(df, before)


def _with_options(door, df, kw):
    "Call the front door's function with extra options (the same call as FRONT_DOORS, options added)."
    calls = {
        "crowdtruth.run": lambda: crowdtruth.run(df, **kw), "crowdtruth.run closed": lambda: crowdtruth.run(df, **kw),
        "crowdtruth_v1.metrics": lambda: crowdtruth_v1.metrics(df, **kw),
        "krippendorff_alpha": lambda: agreement.krippendorff_alpha(df, **kw),
        "alpha_bootstrap": lambda: agreement.alpha_bootstrap(df, **{"n_boot": 10, **kw}),
        "fleiss_kappa": lambda: agreement.fleiss_kappa(df, **kw), "cohen_kappa": lambda: agreement.cohen_kappa(df, **kw),
        "scott_pi": lambda: agreement.scott_pi(df, **kw), "pairwise_agreement": lambda: agreement.pairwise_agreement(df, **kw),
        "unit_value_counts": lambda: agreement.unit_value_counts(df, **kw),
        "coefficient_table": lambda: chance.coefficient_table(df, **kw), "gwet_ac": lambda: chance.gwet_ac(df, **kw),
        "trust_coefficients": lambda: trust.trust_coefficients(df, **kw),
        "ModelA": lambda: model_a.ModelA().fit(df, **kw), "ModelB": lambda: model_b.ModelB().fit(df, **kw),
        "model_b.fit": lambda: model_b.fit(df, **{"n_starts": 1, **kw}), "model_b.em": lambda: model_b.em(df, **kw),
        "humeval.ratings_matrix": lambda: humeval.ratings_matrix(df, **kw),
    }
    return calls[door]()


# ---------------------------------------------------------------- files through the command line
@st.composite
def dirty_files(draw):
    "(dirty CSV bytes, clean CSV bytes, planted culprit: None or (kind, the file lines at fault))."
    clean = draw(crowds(max_units=5, max_workers=4))
    crlf, bom, quote = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    cells = [[str(v) for v in r] for r in clean.itertuples(index=False)]
    plant = draw(st.sampled_from([None, None, None, "missing label", "blank unit", "ragged long", "ragged short",
                                  "repeated pair"]))
    k = draw(st.integers(0, len(cells) - 1))
    if plant == "missing label": cells[k][2] = ""
    elif plant == "blank unit": cells[k][0] = "  "
    elif plant == "ragged long": cells[k] = cells[k] + ["extra"]
    elif plant == "ragged short": cells[k] = cells[k][:2]
    elif plant == "repeated pair": cells.append(list(cells[k]))
    lines, text, line_no = [], ["unit,worker,label"], {}
    for i, r in enumerate(cells):
        if draw(st.integers(0, 5)) == 0: text.append("")           # a blank line
        q = [f'"{c}"' if quote and draw(st.booleans()) and c.strip() else c for c in r]
        text.append(",".join(q)); line_no[i] = len(text)
    sep = "\r\n" if crlf else "\n"
    dirty = ("\ufeff" if bom else "") + sep.join(text) + sep
    plain = "unit,worker,label\n" + "".join(f"{u},{w},{lab}\n" for u, w, lab in clean.itertuples(index=False))
    culprit = None if plant is None else (plant, [line_no[k]] + ([line_no[len(cells) - 1]] if plant == "repeated pair" else []))
    return dirty.encode("utf-8"), plain.encode("utf-8"), culprit


COMMANDS = {
    "alpha": ["alpha"], "alpha ordinal": ["alpha", "--level", "ordinal", "interval"], "fleiss": ["fleiss"],
    "kappa": ["kappa"], "trust": ["trust"], "crowdtruth": ["crowdtruth"], "crowdtruth closed": ["crowdtruth", "--closed"],
    "dawid-skene": ["dawid-skene", "--seed", "0"], "crowdtruth-v1": ["crowdtruth-v1", "--out", "{out}"],
}


def cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try: status = main(argv)
        except SystemExit as e: status = e.code
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", list(COMMANDS))
def test_cli_fuzz(name):
    @settings(FUZZ, max_examples=20)
    @given(dirty_files())
    def run(case):
        dirty, plain, culprit = case
        with tempfile.TemporaryDirectory() as tmp:
            a, b = Path(tmp) / "a", Path(tmp) / "b"
            a.mkdir(); b.mkdir()
            (a / "j.csv").write_bytes(dirty); (b / "j.csv").write_bytes(plain)
            args = lambda d: [x.format(out=d / "out") for x in COMMANDS[name]]
            got = cli([args(a)[0], str(a / "j.csv"), *args(a)[1:]])
            assert (a / "j.csv").read_bytes() == dirty                       # the input file is never changed
            if got[0] == 2:
                assert got[1] == "" and got[2].startswith("crowdnb: error: ") and got[2].count("\n") == 1, got
            else: assert got[0] == 0, got
            if culprit is not None:
                assert got[0] == 2, (culprit, got)
                assert any(f"line {n}" in got[2] for n in culprit[1]), (culprit, got[2])
                return
            want = cli([args(b)[0], str(b / "j.csv"), *args(b)[1:]])
            assert got[0] == want[0], (got, want)
            if got[0] == 0: assert got[1] == want[1]
            else: assert got[2].replace(str(a), "") == want[2].replace(str(b), "")
    run()


@settings(FUZZ, max_examples=40)
@given(st.lists(st.sampled_from(["#begin document (d); part 000", "#end document", "d 0 0 A (1)", "d 0 1 B (1", "d 0 2 C 1)",
                                 "d 0 3 D -", "d 0 4 E (2)", "", "d 0 5 F xx", "d 0", "\ufeffd 0 6 G (3)"]), max_size=8))
def test_coref_cli_fuzz(lines):
    "Random CoNLL text as key and response: a table, or one error line with status 2."
    with tempfile.TemporaryDirectory() as tmp:
        k = Path(tmp) / "k.conll"
        k.write_text("\n".join(lines) + "\n", encoding="utf-8")
        status, out, err = cli(["coref", str(k), str(k)])
        assert status in (0, 2), (status, err)
        if status == 2: assert out == "" and err.startswith("crowdnb: error: ") and err.count("\n") == 1, err


def test_a_million_distinct_workers():
    "10^6 workers, each judging one of 2 x 10^5 units once: read, checked and measured without a loop over them."
    n = 1_000_000
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"unit": np.arange(n) // 5, "worker": [f"w{i}" for i in range(n)], "label": rng.integers(0, 3, n)})
    J = as_judgments(df)
    assert J.n_workers == n and J.n_units == n // 5
    a = agreement.krippendorff_alpha(J)
    assert -0.01 < a < 0.01                                      # random labels: alpha near 0 (its sd here is ~0.001)
