"""The `crowdnb` command line: in-process runs of `main` against reference packages (krippendorff, scikit-learn,
statsmodels, scorch), hand derivations and the library on the same judgments (the CLI is a thin layer over the one
front door), and the installed console script through subprocesses (exit codes, one-line errors, --help).

Every subcommand reads a LONG table (one row per judgment) with --unit/--worker/--label, or a units x workers table
with --wide."""
import subprocess, sys, warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from hypothesis.extra.numpy import arrays

from crowdnb.cli import main
from crowdnb.core import as_judgments, simulate_crowd
from crowdnb import agreement, coref, crowdtruth, crowdtruth_v1, model_b, trust

nan = np.nan
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders (rows) x 12 units (columns)
KRIPP = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
                  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
                  [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
                  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
PAPER = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


def run(capsys, *argv):
    "main(argv) in-process: (exit status, stdout, stderr)."
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def write_long(path, x, unit="unit", worker="worker", label="label", workers=None):
    "A workers x units array (NaN = not judged) as a long CSV: one row per judgment, integer labels."
    workers = workers or [f"w{i}" for i in range(x.shape[0])]
    rows = [(f"u{j}", workers[i], int(x[i, j])) for i in range(x.shape[0]) for j in range(x.shape[1]) if not np.isnan(x[i, j])]
    pd.DataFrame(rows, columns=[unit, worker, label]).to_csv(path, index=False)
    return path


def write_wide(path, x, workers=None):
    "A workers x units array as a wide CSV: a row per unit (ids first), a column per worker, empty cells missing."
    workers = workers or [f"w{i}" for i in range(x.shape[0])]
    pd.DataFrame(np.asarray(x, dtype=float).T, columns=workers,
                 index=pd.Index([f"u{j}" for j in range(x.shape[1])], name="unit")).to_csv(path)
    return path


def one_line_error(status, out, err):
    return status == 2 and out == "" and err.startswith("crowdnb: error: ") and err.count("\n") == 1


# ---------------------------------------------------------------- alpha against krippendorff and the published values
@pytest.mark.parametrize("wide", [False, True], ids=["long", "wide"])
def test_alpha_published_example_and_krippendorff(tmp_path, capsys, wide):
    import krippendorff
    f = write_wide(tmp_path / "k.csv", KRIPP) if wide else write_long(tmp_path / "k.csv", KRIPP)
    status, out, err = run(capsys, "alpha", f, *(["--wide"] if wide else []),
                           "--level", "nominal", "ordinal", "interval", "ratio", "--out", tmp_path / "a.csv")
    assert status == 0, err
    got = pd.read_csv(tmp_path / "a.csv", index_col="level")["alpha"]
    assert list(got.index) == list(PAPER)
    for level, value in PAPER.items():
        assert round(got[level], 3) == value                                   # Krippendorff (2011)
        assert got[level] == pytest.approx(krippendorff.alpha(KRIPP, level_of_measurement=level), abs=1e-12)
        assert f"{level:<8} {got[level]:.4f}" in out
    assert "Krippendorff's alpha (4 workers, 12 units, 41 judgments)" in out   # 48 cells, 7 missing


def test_alpha_wide_missing_token_and_column_names(tmp_path, capsys):
    "--missing TOKEN in a wide file; long files under other column names through --unit/--worker/--label."
    import krippendorff
    wide = pd.DataFrame(KRIPP.T, columns=list("ABCD"), index=pd.Index([f"s{j}" for j in range(12)], name="id"))
    wide.astype(object).where(wide.notna(), "*").map(lambda v: v if v == "*" else int(v)).to_csv(tmp_path / "w.csv", sep=";")
    status, out, err = run(capsys, "alpha", tmp_path / "w.csv", "--wide", "--missing", "*", "--delimiter", ";",
                           "--level", "interval", "--out", tmp_path / "a.csv")
    assert status == 0, err
    ref = krippendorff.alpha(KRIPP, level_of_measurement="interval")
    assert pd.read_csv(tmp_path / "a.csv")["alpha"][0] == pytest.approx(ref, abs=1e-12)
    write_long(tmp_path / "l.csv", KRIPP, unit="item", worker="coder", label="score")
    status, out, err = run(capsys, "alpha", tmp_path / "l.csv", "--unit", "item", "--worker", "coder", "--label", "score",
                           "--level", "interval", "--out", tmp_path / "b.csv")
    assert status == 0, err
    assert pd.read_csv(tmp_path / "b.csv")["alpha"][0] == pytest.approx(ref, abs=1e-12)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(arrays(np.float64, st.tuples(st.integers(2, 5), st.integers(2, 12)), elements=st.sampled_from([0.0, 1.0, 2.0, 3.0, nan])),
       st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_alpha_parity_random_long_and_wide(tmp_path, capsys, x, level):
    import krippendorff
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try: ref = krippendorff.alpha(x, level_of_measurement=level)
        except (ValueError, ZeroDivisionError): ref = None
    write_long(tmp_path / "l.csv", x); write_wide(tmp_path / "w.csv", x)
    for f, extra in ((tmp_path / "l.csv", []), (tmp_path / "w.csv", ["--wide"])):
        status, out, err = run(capsys, "alpha", f, *extra, "--level", level, "--out", tmp_path / "a.csv")
        if ref is None or not np.isfinite(ref):
            assert one_line_error(status, out, err), (status, err)
        else:
            assert status == 0, err
            assert pd.read_csv(tmp_path / "a.csv")["alpha"][0] == pytest.approx(ref, abs=1e-12)


def test_alpha_bootstrap_equals_library(tmp_path, capsys):
    f = write_long(tmp_path / "l.csv", KRIPP, unit="item", worker="coder", label="score")
    status, out, err = run(capsys, "alpha", f, "--unit", "item", "--worker", "coder", "--label", "score",
                           "--level", "ordinal", "interval", "--n-boot", 200, "--ci", 0.9, "--seed", 3, "--out", tmp_path / "a.csv")
    assert status == 0, err
    J = as_judgments(f, unit="item", worker="coder", label="score")
    got = pd.read_csv(tmp_path / "a.csv", index_col="level")
    assert list(got.columns) == ["alpha", "low", "high"]
    for level in ("ordinal", "interval"):
        r = agreement.alpha_bootstrap(J, level=level, n_boot=200, ci=0.9, seed=3, progress=False)
        assert list(got.loc[level]) == pytest.approx([r.alpha, r.low, r.high], abs=1e-12)
        assert got.loc[level, "low"] <= got.loc[level, "alpha"] <= got.loc[level, "high"]
    assert "90% percentile interval from 200 bootstrap resamples of units (seed 3)" in out


def test_alpha_ordinal_text_labels_take_their_order_from_labels(tmp_path, capsys):
    import krippendorff
    words = np.array(["low", "mid", "high"], dtype=object)
    codes = np.array([[0, 1, 2, 2, 0, 1], [0, 1, 2, 1, 0, 2], [0, 2, 2, 1, 1, 1]])     # 3 coders x 6 units
    pd.DataFrame([(f"u{j}", f"c{i}", words[codes[i, j]]) for i in range(3) for j in range(6)],
                 columns=["unit", "worker", "label"]).to_csv(tmp_path / "w.csv", index=False)
    status, out, err = run(capsys, "alpha", tmp_path / "w.csv", "--level", "ordinal")
    assert one_line_error(status, out, err) and "ordinal" in err, err                  # text has no order of its own
    for order in (["low", "mid", "high"], ["mid", "low", "high"]):
        status, out, err = run(capsys, "alpha", tmp_path / "w.csv", "--level", "ordinal", "--labels", ",".join(order),
                               "--out", tmp_path / "a.csv")
        assert status == 0, err
        rank = {w: order.index(w) for w in words}                                      # the scale position of each word
        ref = krippendorff.alpha(np.vectorize(lambda c: rank[words[c]])(codes).astype(float), level_of_measurement="ordinal")
        assert pd.read_csv(tmp_path / "a.csv")["alpha"][0] == pytest.approx(ref, abs=1e-12)
    # nominal alpha does not depend on the order
    status, out, err = run(capsys, "alpha", tmp_path / "w.csv", "--labels", "high,low,mid", "--out", tmp_path / "n.csv")
    assert status == 0, err
    assert pd.read_csv(tmp_path / "n.csv")["alpha"][0] == pytest.approx(
        krippendorff.alpha(codes.astype(float), level_of_measurement="nominal"), abs=1e-12)


# ---------------------------------------------------------------- kappa, fleiss against scikit-learn and statsmodels
def test_kappa_matches_scikit_learn(tmp_path, capsys):
    from sklearn.metrics import cohen_kappa_score
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 40); b = np.where(rng.random(40) < 0.6, a, rng.integers(0, 4, 40))
    rows = [(i, "A", a[i]) for i in range(40)] + [(i, "B", b[i]) for i in range(40)] + [(i, "C", 0) for i in range(0, 40, 3)]
    pd.DataFrame(rows, columns=["item", "coder", "code"]).to_csv(tmp_path / "k.csv", index=False)
    for weights in ("identity", "linear", "quadratic"):
        ref = cohen_kappa_score(a, b, weights=None if weights == "identity" else weights)
        status, out, err = run(capsys, "kappa", tmp_path / "k.csv", "--unit", "item", "--worker", "coder", "--label", "code",
                               "--workers", "A", "B", "--weights", weights)
        assert status == 0, err
        kind = "" if weights == "identity" else f" ({weights} weights)"
        assert out.strip() == f"Cohen's kappa{kind} of A and B on 40 units judged by both: {ref:.4f}"
        assert agreement.cohen_kappa(tmp_path / "k.csv", unit="item", worker="coder", label="code", workers=("A", "B"),
                                     weights=weights) == pytest.approx(ref, abs=1e-12)


def test_kappa_two_workers_default_and_scott(tmp_path, capsys):
    "Without --workers a file of exactly two workers is compared; Scott's pi of two raters is Fleiss' kappa (statsmodels)."
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import fleiss_kappa, aggregate_raters
    rng = np.random.default_rng(8)
    x = np.vstack([rng.integers(0, 3, 25), rng.integers(0, 3, 25)]).astype(float)
    x[1, :3] = nan                                                       # 3 units judged by A only
    write_long(tmp_path / "k.csv", x, workers=["A", "B"])
    both = ~np.isnan(x).any(axis=0)
    status, out, err = run(capsys, "kappa", tmp_path / "k.csv")
    assert status == 0, err
    assert out.strip() == f"Cohen's kappa of A and B on 22 units judged by both: {cohen_kappa_score(x[0, both], x[1, both]):.4f}"
    status, out, err = run(capsys, "kappa", tmp_path / "k.csv", "--scott")
    assert status == 0, err
    ref = fleiss_kappa(aggregate_raters(x[:, both].T.astype(int))[0])
    assert out.strip() == f"Scott's pi of A and B on 22 units judged by both: {ref:.4f}"


def test_fleiss_matches_statsmodels_long_and_wide(tmp_path, capsys):
    from statsmodels.stats.inter_rater import fleiss_kappa, aggregate_raters
    rng = np.random.default_rng(2)
    x = rng.integers(0, 3, (5, 30)).astype(float)                      # 5 workers x 30 units, every unit fully rated
    ref = fleiss_kappa(aggregate_raters(x.T.astype(int))[0])
    write_long(tmp_path / "l.csv", x); write_wide(tmp_path / "w.csv", x)
    for f, extra in ((tmp_path / "l.csv", []), (tmp_path / "w.csv", ["--wide"]),
                     (tmp_path / "l.csv", ["--missing-ratings", "gwet"])):   # complete data: Gwet's convention = Fleiss
        status, out, err = run(capsys, "fleiss", f, *extra)
        assert status == 0 and out.strip() == f"Fleiss' kappa (5 workers, 30 units, 150 judgments): {ref:.4f}", (extra, out, err)
    J = as_judgments(tmp_path / "l.csv")
    assert agreement.fleiss_kappa(J) == pytest.approx(ref, abs=1e-12)


# ---------------------------------------------------------------- trust, coref, crowdtruth, dawid-skene vs the library
def test_trust_equals_library_long_and_wide(tmp_path, capsys):
    rng = np.random.default_rng(1)
    x = np.vstack([np.clip(np.arange(10) % 5 + rng.integers(-1, 2, 10), 0, 4) for _ in range(4)] + [rng.integers(0, 5, 10)]).astype(float)
    x[0, 3] = nan
    workers = [f"r{i}" for i in range(5)]
    write_long(tmp_path / "t.csv", x, workers=workers); write_wide(tmp_path / "w.csv", x, workers=workers)
    ref = trust.trust_coefficients(as_judgments(tmp_path / "t.csv"), level="ordinal", threshold=0.6)
    assert ref["outlier"].any() and not ref["outlier"].all()
    for f, extra in ((tmp_path / "t.csv", []), (tmp_path / "w.csv", ["--wide"])):
        status, out, err = run(capsys, "trust", f, "--level", "ordinal", "--threshold", 0.6, *extra, "--out", tmp_path / "o.csv")
        assert status == 0, err
        got = pd.read_csv(tmp_path / "o.csv", index_col=0)
        assert list(got.index) == list(ref.index)
        np.testing.assert_allclose(got["coefficient"], ref["coefficient"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(got["total"], ref["total"], rtol=0, atol=1e-12)
        assert list(got["outlier"]) == list(ref["outlier"])
        assert f"outliers (coefficient <= 0.6): {', '.join(ref.index[ref['outlier']])}" in out
    # the default level is nominal
    status, out, err = run(capsys, "trust", tmp_path / "t.csv", "--out", tmp_path / "n.csv")
    assert status == 0, err
    nominal = trust.trust_coefficients(as_judgments(tmp_path / "t.csv"), level="nominal")
    np.testing.assert_allclose(pd.read_csv(tmp_path / "n.csv", index_col=0)["coefficient"], nominal["coefficient"], atol=1e-12)


KEY = """#begin document (d); part 000
d 0 0 A (1)
d 0 1 B (1)
d 0 2 C (1)
d 0 3 D (2)
d 0 4 E (2)
#end document
"""
RESPONSE = KEY.replace("C (1)", "C (2)")


def test_coref_hand_computed_and_scorch(tmp_path, capsys):
    from scorch import scores as sc
    (tmp_path / "k.conll").write_text(KEY); (tmp_path / "r.conll").write_text(RESPONSE)
    status, out, err = run(capsys, "coref", tmp_path / "k.conll", tmp_path / "r.conll", "--metrics", "muc", "bcub", "blanc",
                           "--out", tmp_path / "s.csv")
    assert status == 0, err
    got = pd.read_csv(tmp_path / "s.csv", index_col=[0, 1]).loc[coref.POOLED]
    assert list(got.index) == ["muc", "bcub", "blanc"]
    # by hand: key {A,B,C},{D,E}; response {A,B},{C,D,E}; MUC R = ((3 - 2) + (2 - 1))/(2 + 1) = 2/3,
    # P = ((2 - 1) + (3 - 2))/(1 + 2) = 2/3
    assert list(got.loc["muc", ["recall", "precision"]]) == pytest.approx([2 / 3, 2 / 3], abs=1e-12)
    # B-cubed by hand: R = (2/3 + 2/3 + 1/3 + 1 + 1)/5 = 11/15, P = (1 + 1 + 1/3 + 2/3 + 2/3)/5 = 11/15
    assert list(got.loc["bcub", ["recall", "precision"]]) == pytest.approx([11 / 15, 11 / 15], abs=1e-12)
    k = [{(0, 0), (1, 1), (2, 2)}, {(3, 3), (4, 4)}]; r = [{(0, 0), (1, 1)}, {(2, 2), (3, 3), (4, 4)}]
    assert list(got.loc["muc"]) == pytest.approx(list(sc.muc(k, r)), abs=1e-12)
    assert list(got.loc["bcub"]) == pytest.approx(list(sc.b_cubed(k, r)), abs=1e-12)
    assert list(got.loc["blanc"]) == pytest.approx(list(sc.blanc(k, r)), abs=1e-12)
    assert "pooled over 1 document" in out


def test_coref_per_document_and_pooled(tmp_path, capsys):
    key2 = KEY.replace("(d)", "(e)").replace("\nd ", "\ne ")
    (tmp_path / "k.conll").write_text(KEY + key2)
    (tmp_path / "r.conll").write_text(RESPONSE + key2)                      # document e is answered perfectly
    status, out, err = run(capsys, "coref", tmp_path / "k.conll", tmp_path / "r.conll", "--per-document",
                           "--out", tmp_path / "s.csv")
    assert status == 0, err
    got = pd.read_csv(tmp_path / "s.csv", index_col=[0, 1])
    assert list(got.index.get_level_values(0).unique()) == ["d-000", "e-000", coref.POOLED]
    assert list(got.loc[("e-000", "muc")]) == [1.0, 1.0, 1.0]
    # pooled MUC sums the counts of both documents: R = (2 + 3)/(3 + 3), P = (2 + 3)/(3 + 3)
    assert list(got.loc[(coref.POOLED, "muc"), ["recall", "precision"]]) == pytest.approx([5 / 6, 5 / 6], abs=1e-12)
    ref = coref.score(coref.read_conll(tmp_path / "k.conll"), coref.read_conll(tmp_path / "r.conll"), per_document=True)
    np.testing.assert_allclose(got.to_numpy(dtype=float), ref.to_numpy(dtype=float), rtol=0, atol=1e-12)
    assert "per document" in out and "pooled over 2 documents" in out and "d-000" in out


def test_coref_malformed_skip_warns_on_one_line(tmp_path, capsys):
    (tmp_path / "k.conll").write_text(KEY); (tmp_path / "r.conll").write_text(RESPONSE.replace("B (1)", "B x7"))
    status, out, err = run(capsys, "coref", tmp_path / "k.conll", tmp_path / "r.conll")
    assert one_line_error(status, out, err) and "line 3" in err and "--malformed skip" in err, err
    status, out, err = run(capsys, "coref", tmp_path / "k.conll", tmp_path / "r.conll", "--malformed", "skip",
                           "--metrics", "muc", "--out", tmp_path / "s.csv")
    assert status == 0, err
    assert all(line.startswith(("crowdnb: warning: ", "wrote ")) for line in err.splitlines()), err
    # B is read as '-': response {A}, {C,D,E}. By hand, MUC R = ((3 - 3) + (2 - 1))/(2 + 1) = 1/3 (key {A,B,C} falls
    # into {A}, {B}, {C}), P = (0 + (3 - 2))/(0 + 2) = 1/2 (response {C,D,E} falls into {C}, {D,E})
    got = pd.read_csv(tmp_path / "s.csv", index_col=[0, 1])
    assert list(got.loc[(coref.POOLED, "muc"), ["recall", "precision"]]) == pytest.approx([1 / 3, 1 / 2], abs=1e-12)
    with pytest.warns(UserWarning):
        response = coref.read_conll(tmp_path / "r.conll", malformed="skip")
    ref = coref.score(coref.read_conll(tmp_path / "k.conll"), response, metrics=["muc"], per_document=False)
    np.testing.assert_allclose(got.to_numpy(dtype=float), ref.to_numpy(dtype=float), rtol=0, atol=1e-12)


def test_crowdtruth_equals_library_both_modes(tmp_path, capsys):
    sim = simulate_crowd(n_units=30, n_workers=10, n_labels=3, workers_per_unit=4, multi_label=True, seed=4)
    df = sim.judgments.rename(columns={"unit": "sentence", "worker": "annotator", "label": "relations"})
    df.to_csv(tmp_path / "j.csv", index=False)
    before = (tmp_path / "j.csv").read_bytes()
    J = as_judgments(tmp_path / "j.csv", unit="sentence", worker="annotator", label="relations", sep="|")
    cols = ["--unit", "sentence", "--worker", "annotator", "--label", "relations", "--sep", "|"]
    for extra, kw in (([], dict(open_ended=None)), (["--closed"], dict(open_ended=False)),
                      (["--closed", "--reference-compatible"], dict(open_ended=False, reference=True))):
        status, out, err = run(capsys, "crowdtruth", tmp_path / "j.csv", *cols, *extra, "--out", tmp_path / "o")
        assert status == 0, err
        ref = crowdtruth.run(J, **kw)
        assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["annotations.csv", "unit_annotation.csv", "units.csv", "workers.csv"]
        for name, col in (("units", "uqs"), ("workers", "wqs"), ("annotations", "aqs")):
            got = pd.read_csv(tmp_path / "o" / f"{name}.csv", index_col=0)[col]
            want = getattr(ref, name)[col]
            assert list(got.index.astype(str)) == list(want.index.astype(str))
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert (tmp_path / "j.csv").read_bytes() == before                 # the input is not touched
    # declared labels make the task closed, in their order
    status, out, err = run(capsys, "crowdtruth", tmp_path / "j.csv", *cols, "--labels", "L2,L0,L1", "--out", tmp_path / "d")
    assert status == 0, err
    ref = crowdtruth.run(as_judgments(tmp_path / "j.csv", unit="sentence", worker="annotator", label="relations",
                                      sep="|", labels=["L2", "L0", "L1"]))
    got = pd.read_csv(tmp_path / "d" / "annotations.csv", index_col=0)
    assert list(got.index) == ["L2", "L0", "L1"]
    np.testing.assert_allclose(got["aqs"], ref.annotations["aqs"], rtol=0, atol=1e-12)


def test_crowdtruth_warning_is_one_line(tmp_path, capsys):
    pd.DataFrame({"unit": ["a", "a", "b"], "worker": ["x", "y", "x"], "label": ["p", "q", "p"]}).to_csv(tmp_path / "j.csv", index=False)
    status, out, err = run(capsys, "crowdtruth", tmp_path / "j.csv", "--closed")
    assert status == 0
    assert err.startswith("crowdnb: warning: 1 unit(s) with a single judgment (b)") and err.count("\n") == 1, err
    assert "Warning" not in err and ".py" not in err


def test_crowdtruth_v1_workbooks_equal_library(tmp_path, capsys):
    sim = simulate_crowd(n_units=12, n_workers=6, n_labels=3, workers_per_unit=3, seed=2)
    sim.judgments.to_csv(tmp_path / "job.csv", index=False)
    status, out, err = run(capsys, "crowdtruth-v1", tmp_path / "job.csv", "--out", tmp_path / "o")
    assert status == 0, err
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["job_sentenceMetrics.xlsx", "job_workerMetrics.xlsx"]
    ref = crowdtruth_v1.metrics(as_judgments(tmp_path / "job.csv"))
    got = pd.read_excel(tmp_path / "o" / "job_workerMetrics.xlsx", sheet_name="workerMetrics", index_col=0)
    np.testing.assert_allclose(got["agreement"], ref.workers["agreement"], rtol=0, atol=1e-12)
    got = pd.read_excel(tmp_path / "o" / "job_sentenceMetrics.xlsx", sheet_name="sentenceMetrics", index_col=0)
    np.testing.assert_allclose(got["clarity"], ref.sentences["clarity"], rtol=0, atol=1e-12)
    status, out, err = run(capsys, "crowdtruth-v1", tmp_path / "job.csv", "--job-id", "77", "--subtract", "cosine",
                           "--out", tmp_path / "p")
    assert status == 0, err
    ref = crowdtruth_v1.metrics(as_judgments(tmp_path / "job.csv"), subtract="cosine")
    got = pd.read_excel(tmp_path / "p" / "77_sentenceMetrics.xlsx", sheet_name="relationMetrics", index_col=0)
    np.testing.assert_allclose(got.select_dtypes("number").to_numpy(), ref.relations.select_dtypes("number").to_numpy(),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("command", ["dawid-skene", "model-b"])
def test_dawid_skene_equals_library(tmp_path, capsys, command):
    sim = simulate_crowd(n_units=40, n_workers=6, n_labels=3, workers_per_unit=4, seed=3)
    sim.judgments.rename(columns={"label": "answer"}).to_csv(tmp_path / "j.csv", index=False)
    status, out, err = run(capsys, command, tmp_path / "j.csv", "--label", "answer", "--method", "smoothed",
                           "--n-starts", 3, "--seed", 1, "--out", tmp_path / "o")
    assert status == 0, err
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["confusion.csv", "labels.csv", "optima.csv", "units.csv", "workers.csv"]
    J = as_judgments(tmp_path / "j.csv", label="answer")
    m = model_b.ModelB(method="smoothed", n_starts=3, seed=1, progress=False).fit(J)
    o = tmp_path / "o"
    workers = pd.read_csv(o / "workers.csv", index_col=0)
    np.testing.assert_allclose(workers["theta"], m.theta_.loc[workers.index], rtol=0, atol=1e-12)
    assert list(workers["judgments"]) == [int((J.frame["worker"] == w).sum()) for w in workers.index]
    units = pd.read_csv(o / "units.csv", index_col=0)
    assert list(units["label"]) == list(m.labels_.loc[units.index])
    np.testing.assert_allclose(units["probability"], m.posterior_.max(axis=1).loc[units.index], rtol=0, atol=1e-12)
    np.testing.assert_allclose(units[[f"P({v})" for v in J.labels]], m.posterior_.loc[units.index], rtol=0, atol=1e-12)
    np.testing.assert_allclose(pd.read_csv(o / "labels.csv", index_col=0)["gamma"], m.gamma_, rtol=0, atol=1e-12)
    conf = pd.read_csv(o / "confusion.csv", index_col=[0, 1])
    np.testing.assert_allclose(conf.to_numpy(), m.confusion_.to_numpy(), rtol=0, atol=1e-12)
    opt = pd.read_csv(o / "optima.csv")
    np.testing.assert_allclose(opt["log_lik"], m.optima_["log_lik"], rtol=0, atol=1e-12)
    assert f"best log L = {m.log_lik_:.4f}" in out and "from 3 starts" in out


def test_dawid_skene_max_iter_warns(tmp_path, capsys):
    sim = simulate_crowd(n_units=30, n_workers=5, n_labels=3, workers_per_unit=4, seed=6)
    sim.judgments.to_csv(tmp_path / "j.csv", index=False)
    status, out, err = run(capsys, "dawid-skene", tmp_path / "j.csv", "--max-iter", 1, "--seed", 0)
    assert status == 0, err
    assert "crowdnb: warning: EM stopped at --max-iter 1 before converging" in err and "max_iter" not in err


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("argv, message", [
    (["alpha", "{d}/none.csv"], "crowdnb: error: judgments file '{d}/none.csv' does not exist"),
    (["alpha", "{d}/long.csv", "--unit", "item", "--worker", "who", "--label", "score"],
     "crowdnb: error: judgments file '{d}/long.csv' lacks the column(s) --worker who; its columns are ['item', 'rater', 'score']"),
    (["crowdtruth", "{d}/long.csv", "--unit", "item", "--worker", "rater", "--label", "score", "--labels", "1,2"],
     "crowdnb: error: label column 'score' has labels outside the declared set (3) at row 2 (line 4)"),
    (["kappa", "{d}/long.csv", "--unit", "item", "--worker", "rater", "--label", "score", "--workers", "a", "nobody"],
     "crowdnb: error: workers ['nobody'] are not among the judgments' workers"),
    (["coref", "{d}/long.csv", "{d}/none.conll"], "crowdnb: error: response file '{d}/none.conll' does not exist"),
    (["trust", "{d}/empty.csv"], "crowdnb: error: judgments file '{d}/empty.csv' is empty"),
    (["alpha", "{d}/long.csv", "--unit", "item", "--worker", "rater", "--label", "score", "--out", "{d}/no/a.csv"],
     "crowdnb: error: --out '{d}/no/a.csv': folder '{d}/no' does not exist"),
    (["dawid-skene", "{d}/long.csv", "--unit", "item", "--worker", "rater", "--label", "score", "--max-iter", "0"],
     "crowdnb: error: --max-iter must be at least 1"),
    (["fleiss", "{d}/dups.csv"], "crowdnb: error: duplicate judgments (same unit/worker) at rows 0 (line 2), 1 (line 3); "
                                 "pass --duplicates last or --duplicates count"),
])
def test_errors_are_one_line_with_status_2(tmp_path, capsys, argv, message):
    pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "score": [1, 2, 3]}).to_csv(tmp_path / "long.csv", index=False)
    pd.DataFrame({"unit": [1, 1, 2], "worker": ["a", "a", "a"], "label": [1, 2, 3]}).to_csv(tmp_path / "dups.csv", index=False)
    (tmp_path / "empty.csv").write_text("")
    status, out, err = run(capsys, *[a.format(d=tmp_path) for a in argv])
    assert one_line_error(status, out, err), err
    assert err.startswith(message.format(d=tmp_path)), err


def test_duplicates_options_take_effect(tmp_path, capsys):
    "--duplicates last keeps the later judgment (by the file order); count keeps both for dawid-skene."
    import krippendorff
    pd.DataFrame({"unit": ["u1", "u1", "u1", "u2", "u2", "u3", "u3"], "worker": ["a", "b", "a", "a", "b", "a", "b"],
                  "label": [1, 2, 2, 3, 3, 1, 2]}).to_csv(tmp_path / "d.csv", index=False)
    status, out, err = run(capsys, "alpha", tmp_path / "d.csv", "--duplicates", "last", "--out", tmp_path / "a.csv")
    assert status == 0, err
    ref = krippendorff.alpha(np.array([[2, 3, 1], [2, 3, 2]], float), level_of_measurement="nominal")
    assert pd.read_csv(tmp_path / "a.csv")["alpha"][0] == pytest.approx(ref, abs=1e-12)


def test_usage_errors_and_help(capsys):
    status, out, err = run(capsys, "alpha")                               # missing positional: argparse usage error
    assert status == 2 and "the following arguments are required: FILE" in err
    status, out, err = run(capsys, "crowdtruth", "j.csv", "--open", "--closed")
    assert status == 2 and "not allowed with argument" in err
    for old in (["alpha", "k.csv", "--rater", "r"], ["alpha", "k.csv", "--bootstrap", "10"], ["trust", "k.csv", "--transpose"],
                ["fleiss", "k.csv", "--counts"], ["dawid-skene", "k.csv", "--starts", "3"], ["kappa", "k.csv", "--raters", "a", "b"]):
        status, out, err = run(capsys, *old)                              # the old options are gone
        assert status == 2 and "unrecognized arguments" in err, old
    status, out, err = run(capsys, "--help")
    assert status == 0
    for command in ("crowdtruth", "crowdtruth-v1", "alpha", "kappa", "fleiss", "trust", "coref", "dawid-skene"):
        assert command in out
    status, out, err = run(capsys, "--version")
    assert status == 0 and out.startswith("crowdnb ")


@pytest.mark.parametrize("command, defaults", [
    ("crowdtruth", ["--unit COL column of the unit (item) ids (default: unit)", "(default: worker)", "(default: label)",
                    "(default: error)", "--none-token T", "(default: none)", "(default: long)", "(default: ',')", "--show N",
                    "(default: 10)"]),
    ("alpha", ["(default: unit)", "(default: nominal)", "--ci CI coverage of the percentile interval, in (0, 1) (default: 0.95)",
               "--n-boot N"]),
    ("kappa", ["(default: identity", "--workers A B"]),
    ("fleiss", ["--missing-ratings {pooled,gwet}", "default: pooled)"]),
    ("trust", ["(default: nominal)", "(default: 0.5)", "--max-workers K", "default: 20)"]),
    ("coref", ["--malformed {error,skip}", "(default: error)", "(default: all)", "(default: reference)"]),
    ("dawid-skene", ["(default: em)", "(default: 1)", "(default: 0.1)", "(default: 100000)", "(default: 1e-10)"]),
    ("crowdtruth-v1", ["(default: worker_sentence_score)", "(default: the file name without extension)"]),
])
def test_help_states_defaults(capsys, command, defaults):
    status, out, err = run(capsys, command, "--help")
    assert status == 0 and out.startswith(f"usage: crowdnb {command}")
    text = " ".join(out.split())
    for d in defaults: assert d in text, (command, d)
    assert "example" in text


# ---------------------------------------------------------------- the installed console script
def test_console_script(tmp_path):
    "Three runs of the installed script, in parallel (each interpreter start-up imports the whole package)."
    exe = Path(sys.executable).parent / "crowdnb"
    if not exe.exists(): pytest.skip("the crowdnb console script is not installed in this environment")
    write_wide(tmp_path / "k.csv", KRIPP)
    calls = {"none": ["alpha", str(tmp_path / "none.csv")],
             "wide": ["alpha", str(tmp_path / "k.csv"), "--wide", "--level", "interval", "ratio"]}
    procs = {k: subprocess.Popen([str(exe), *v], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k, v in calls.items()}
    pipe = subprocess.Popen([str(exe), "alpha", str(tmp_path / "k.csv"), "--wide"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pipe.stdout.close()                                                   # the reader is gone before any output
    r = {k: (p.returncode, out, err) for k, p in procs.items() for out, err in [p.communicate(timeout=120)]}
    assert r["none"] == (2, "", f"crowdnb: error: judgments file {str(tmp_path / 'none.csv')!r} does not exist\n")
    assert r["wide"][0] == 0 and "interval 0.8491" in r["wide"][1] and "ratio    0.7974" in r["wide"][1], r["wide"][2]
    assert r["wide"][1].startswith("Krippendorff's alpha (4 workers, 12 units, 41 judgments)")
    _, pipe_err = pipe.communicate(timeout=120)
    assert pipe.returncode == 1 and pipe_err == b""                         # no BrokenPipeError traceback


# ---------------------------------------------------------------- set distances (issue 21): alpha and coefficients
MULTI = pd.DataFrame({"unit": [1, 1, 1, 2, 2, 2, 3, 3], "worker": list("abcabcab"),
                      "label": ["x|y", "x", "x|y", "z", "y|z", "x", "y", "y"]})


def test_alpha_and_coefficients_with_a_set_distance(tmp_path, capsys):
    MULTI.to_csv(tmp_path / "m.csv", index=False)
    status, out, err = run(capsys, "alpha", tmp_path / "m.csv", "--sep", "|", "--level", "masi", "jaccard",
                           "--n-boot", "100", "--seed", "3", "--out", tmp_path / "a.csv")
    assert status == 0, err
    a = pd.read_csv(tmp_path / "a.csv", index_col="level")
    np.testing.assert_allclose(a["alpha"], [32 / 95, 79 / 226], rtol=0, atol=1e-12)      # by hand (nbs/20_agreement)
    assert (a["low"] <= a["alpha"]).all() and (a["alpha"] <= a["high"]).all()
    for level, alpha, pa in (("masi", 32 / 95, 5 / 9), ("jaccard", 79 / 226, 11 / 18)):
        status, out, err = run(capsys, "coefficients", tmp_path / "m.csv", "--sep", "|", "--level", level,
                               "--coefficients", "krippendorff", "percent_agreement", "--out", tmp_path / "c.csv")
        assert status == 0, err
        c = pd.read_csv(tmp_path / "c.csv", index_col="coefficient")
        np.testing.assert_allclose(c["estimate"], [alpha, pa], rtol=0, atol=1e-12)   # by hand (nbs/22_chance)
        assert set(c["weights"]) == {level} and "left out" not in err
    status, out, err = run(capsys, "coefficients", tmp_path / "m.csv", "--sep", "|", "--level", "masi")
    assert status == 0 and "coefficients ['gwet', 'brennan_prediger'] are left out" in err
    assert "Gwet's AC1" not in out and "Fleiss' kappa" in out


def test_coefficients_refusals_are_one_line(tmp_path, capsys):
    MULTI.to_csv(tmp_path / "m.csv", index=False)
    status, out, err = run(capsys, "coefficients", tmp_path / "m.csv", "--sep", "|", "--level", "masi",
                           "--coefficients", "gwet")
    assert status == 2 and err.startswith("crowdnb: error: --coefficients ['gwet'] are not defined for a distance")
    status, out, err = run(capsys, "coefficients", tmp_path / "m.csv", "--sep", "|", "--level", "masi", "--weights",
                           "linear")
    assert status == 2 and err.startswith("crowdnb: error: pass --weights or --level, not both")
    status, out, err = run(capsys, "coefficients", tmp_path / "m.csv", "--level", "hamming")
    assert status == 2 and "argument --level: invalid choice: 'hamming'" in err
