"""The `crowdnb` command line: in-process runs of `main` against the library and reference packages, and the
installed console script once through a subprocess (exit codes, one-line errors, --help)."""
import subprocess, sys, warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from hypothesis.extra.numpy import arrays

from crowdnb.cli import main
from crowdnb.core import simulate_crowd
from crowdnb import agreement, coref, crowdtruth, model_b, trust

nan = np.nan
KRIPP = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
                  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
                  [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
                  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])


def run(capsys, *argv):
    "main(argv) in-process: (exit status, stdout, stderr)."
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def write_wide(path, x, raters=None):
    pd.DataFrame(x, index=pd.Index(raters or [f"r{i}" for i in range(len(x))], name="rater"),
                 columns=[f"u{j}" for j in range(x.shape[1])]).to_csv(path)
    return path


# ---------------------------------------------------------------- alpha, kappa, fleiss against reference packages
def test_alpha_published_example_and_krippendorff(tmp_path, capsys):
    import krippendorff
    f = write_wide(tmp_path / "k.csv", KRIPP)
    status, out, err = run(capsys, "alpha", f, "--level", "nominal", "ordinal", "interval", "ratio", "--out", tmp_path / "a.csv")
    assert status == 0, err
    got = pd.read_csv(tmp_path / "a.csv", index_col="level")["alpha"]
    paper = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}   # Krippendorff (2011)
    for level, value in paper.items():
        assert round(got[level], 3) == value
        assert got[level] == pytest.approx(krippendorff.alpha(KRIPP, level_of_measurement=level), abs=1e-12)
        assert f"{level:<8} {got[level]:.4f}" in out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(arrays(np.float64, st.tuples(st.integers(2, 5), st.integers(2, 12)), elements=st.sampled_from([0.0, 1.0, 2.0, 3.0, nan])),
       st.sampled_from(["nominal", "ordinal", "interval", "ratio"]))
def test_alpha_parity_random(tmp_path, capsys, x, level):
    import krippendorff
    f = write_wide(tmp_path / "r.csv", x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try: ref = krippendorff.alpha(x, level_of_measurement=level)
        except (ValueError, ZeroDivisionError): ref = None
    status, out, err = run(capsys, "alpha", f, "--level", level, "--out", tmp_path / "a.csv")
    if ref is None or not np.isfinite(ref):
        assert status == 2 and err.startswith("crowdnb: error: ") and err.count("\n") == 1, err
    else:
        assert status == 0, err
        assert pd.read_csv(tmp_path / "a.csv")["alpha"][0] == pytest.approx(ref, abs=1e-12)


def test_alpha_long_table_and_bootstrap_equal_library(tmp_path, capsys):
    long = pd.DataFrame(KRIPP, index=list("ABCD")).stack().rename("score").rename_axis(["coder", "item"]).reset_index()
    long.to_csv(tmp_path / "long.csv", index=False)
    status, out, err = run(capsys, "alpha", tmp_path / "long.csv", "--unit", "item", "--rater", "coder", "--value", "score",
                           "--level", "ordinal", "--bootstrap", 100, "--seed", 3, "--out", tmp_path / "a.csv")
    assert status == 0, err
    r = agreement.alpha_bootstrap(KRIPP, "ordinal", n_boot=100, seed=3, progress=False)
    got = pd.read_csv(tmp_path / "a.csv").iloc[0]
    assert (got["alpha"], got["low"], got["high"]) == pytest.approx((r.alpha, r.low, r.high), abs=1e-12)


def test_alpha_ordinal_string_categories_need_and_take_values(tmp_path, capsys):
    import krippendorff
    words = np.array(["low", "mid", "high"], dtype=object)
    codes = np.array([[0, 1, 2, 2, 0], [0, 1, 2, 1, 0], [0, 2, 2, 1, 1]])
    pd.DataFrame(words[codes], index=["a", "b", "c"]).to_csv(tmp_path / "w.csv")
    status, out, err = run(capsys, "alpha", tmp_path / "w.csv", "--level", "ordinal")
    assert status == 2 and "value_domain" in err
    status, out, err = run(capsys, "alpha", tmp_path / "w.csv", "--level", "ordinal", "--values", "low,mid,high",
                           "--out", tmp_path / "a.csv")
    assert status == 0, err
    ref = krippendorff.alpha(codes.astype(float), level_of_measurement="ordinal")
    assert pd.read_csv(tmp_path / "a.csv")["alpha"][0] == pytest.approx(ref, abs=1e-12)


def test_kappa_matches_scikit_learn(tmp_path, capsys):
    from sklearn.metrics import cohen_kappa_score
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 40); b = np.where(rng.random(40) < 0.6, a, rng.integers(0, 4, 40))
    pd.DataFrame({"item": range(40), "A": a, "B": b}).to_csv(tmp_path / "k.csv", index=False)
    for weights in (None, "linear", "quadratic"):
        extra = ["--weights", weights] if weights else []
        status, out, err = run(capsys, "kappa", tmp_path / "k.csv", "--raters", "A", "B", *extra)
        assert status == 0, err
        assert out.strip().endswith(f"on 40 items rated by both: {cohen_kappa_score(a, b, weights=weights):.4f}")


def test_fleiss_matches_statsmodels(tmp_path, capsys):
    from statsmodels.stats.inter_rater import fleiss_kappa, aggregate_raters
    rng = np.random.default_rng(2)
    x = rng.integers(0, 3, (5, 30))                       # 5 raters x 30 units, every unit fully rated
    ref = fleiss_kappa(aggregate_raters(x.T)[0])
    status, out, err = run(capsys, "fleiss", write_wide(tmp_path / "f.csv", x))
    assert status == 0 and out.strip() == f"Fleiss' kappa (5 raters, 30 units, 150 ratings): {ref:.4f}", (out, err)
    pd.DataFrame(aggregate_raters(x.T)[0]).to_csv(tmp_path / "c.csv")
    status, out, err = run(capsys, "fleiss", tmp_path / "c.csv", "--counts")
    assert status == 0 and out.strip().endswith(f"{ref:.4f}")


# ---------------------------------------------------------------- trust, coref, crowdtruth, dawid-skene vs the library
def test_trust_equals_library_and_transpose(tmp_path, capsys):
    rng = np.random.default_rng(1)
    x = np.vstack([np.clip(np.arange(10) % 5 + rng.integers(-1, 2, 10), 0, 4) for _ in range(4)] + [rng.integers(0, 5, 10)]).astype(float)
    x[0, 3] = nan
    write_wide(tmp_path / "t.csv", x)
    pd.DataFrame(x, index=[f"r{i}" for i in range(5)]).T.to_csv(tmp_path / "tt.csv")
    ref = trust.trust_coefficients(x, "ordinal", raters=[f"r{i}" for i in range(5)])
    for f, extra in ((tmp_path / "t.csv", []), (tmp_path / "tt.csv", ["--transpose"])):
        status, out, err = run(capsys, "trust", f, "--level", "ordinal", *extra, "--out", tmp_path / "o.csv")
        assert status == 0, err
        got = pd.read_csv(tmp_path / "o.csv", index_col=0)
        np.testing.assert_allclose(got["coefficient"], ref["coefficient"], rtol=0, atol=1e-12)
        assert list(got["outlier"]) == list(ref["outlier"])


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
    status, out, err = run(capsys, "coref", tmp_path / "k.conll", tmp_path / "r.conll", "--metrics", "muc", "bcub",
                           "--out", tmp_path / "s.csv")
    assert status == 0, err
    got = pd.read_csv(tmp_path / "s.csv", index_col=[0, 1]).loc["(pooled)"]
    # by hand: key {A,B,C},{D,E}; response {A,B},{C,D,E}; MUC R = ((3 - 2) + (2 - 1))/(2 + 1) = 2/3,
    # P = ((2 - 1) + (3 - 2))/(1 + 2) = 2/3
    assert list(got.loc["muc", ["recall", "precision"]]) == pytest.approx([2 / 3, 2 / 3], abs=1e-12)
    k = [{(0, 0), (1, 1), (2, 2)}, {(3, 3), (4, 4)}]; r = [{(0, 0), (1, 1)}, {(2, 2), (3, 3), (4, 4)}]
    assert list(got.loc["bcub"]) == pytest.approx(list(sc.b_cubed(k, r)), abs=1e-12)


def test_coref_per_document_and_pooled(tmp_path, capsys):
    key2 = KEY.replace("(d)", "(e)")
    (tmp_path / "k.conll").write_text(KEY + key2)
    (tmp_path / "r.conll").write_text(RESPONSE + key2)                      # document e is answered perfectly
    status, out, err = run(capsys, "coref", tmp_path / "k.conll", tmp_path / "r.conll", "--per-document",
                           "--out", tmp_path / "s.csv")
    assert status == 0, err
    got = pd.read_csv(tmp_path / "s.csv", index_col=[0, 1])
    assert list(got.index.get_level_values(0).unique()) == ["d/000", "e/000", "(pooled)"]
    assert list(got.loc[("e/000", "muc")]) == [1.0, 1.0, 1.0]
    # pooled MUC sums the counts of both documents: R = (2 + 3)/(3 + 3), P = (2 + 3)/(3 + 3)
    assert list(got.loc[("(pooled)", "muc"), ["recall", "precision"]]) == pytest.approx([5 / 6, 5 / 6], abs=1e-12)
    ref = coref.score(coref.read_conll(tmp_path / "k.conll"), coref.read_conll(tmp_path / "r.conll"))
    np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=0, atol=1e-12)
    assert "per document" in out and "pooled over 2 documents" in out


def test_crowdtruth_v1_workbooks_equal_library(tmp_path, capsys):
    from crowdnb import crowdtruth_v1
    sim = simulate_crowd(n_units=12, n_workers=6, n_labels=3, workers_per_unit=3, seed=2)
    sim.judgments.to_csv(tmp_path / "job.csv", index=False)
    status, out, err = run(capsys, "crowdtruth-v1", tmp_path / "job.csv", "--out", tmp_path / "o")
    assert status == 0, err
    ref = crowdtruth_v1.metrics(sim.judgments)
    got = pd.read_excel(tmp_path / "o" / "job_workerMetrics.xlsx", sheet_name="workerMetrics", index_col=0)
    np.testing.assert_allclose(got["agreement"], ref.workers["agreement"], rtol=0, atol=1e-12)
    got = pd.read_excel(tmp_path / "o" / "job_sentenceMetrics.xlsx", sheet_name="sentenceMetrics", index_col=0)
    np.testing.assert_allclose(got["clarity"], ref.sentences["clarity"], rtol=0, atol=1e-12)


def test_crowdtruth_equals_library_both_modes(tmp_path, capsys):
    sim = simulate_crowd(n_units=30, n_workers=10, n_labels=3, workers_per_unit=4, multi_label=True, seed=4)
    df = sim.judgments.assign(label=sim.judgments["label"].map(lambda t: "|".join(map(str, t)) if isinstance(t, (list, tuple)) else t))
    df.to_csv(tmp_path / "j.csv", index=False)
    before = (tmp_path / "j.csv").read_bytes()
    for extra, kw in (([], {}), (["--reference-compatible"], {"reference": True})):
        status, out, err = run(capsys, "crowdtruth", tmp_path / "j.csv", "--sep", "|", "--closed", *extra, "--out", tmp_path / "o")
        assert status == 0, err
        ref = crowdtruth.run(df, sep="|", open_ended=False, **kw)
        for name, col in (("units", "uqs"), ("workers", "wqs"), ("annotations", "aqs")):
            got = pd.read_csv(tmp_path / "o" / f"{name}.csv", index_col=0)[col]
            np.testing.assert_allclose(got, getattr(ref, name)[col], rtol=0, atol=1e-12)
    assert (tmp_path / "j.csv").read_bytes() == before                 # the input is not touched


def test_crowdtruth_warning_is_one_line(tmp_path, capsys):
    pd.DataFrame({"unit": ["a", "a", "b"], "worker": ["x", "y", "x"], "label": ["p", "q", "p"]}).to_csv(tmp_path / "j.csv", index=False)
    status, out, err = run(capsys, "crowdtruth", tmp_path / "j.csv", "--closed")
    assert status == 0
    assert err.startswith("crowdnb: warning: 1 unit(s) with a single judgment (b)") and "Warning" not in err, err


def test_dawid_skene_equals_library(tmp_path, capsys):
    sim = simulate_crowd(n_units=40, n_workers=6, n_labels=2, workers_per_unit=4, seed=3)
    sim.judgments.to_csv(tmp_path / "j.csv", index=False)
    status, out, err = run(capsys, "dawid-skene", tmp_path / "j.csv", "--starts", 3, "--seed", 1, "--out", tmp_path / "o")
    assert status == 0, err
    from crowdnb.core import as_judgments
    J = as_judgments(tmp_path / "j.csv")
    best = model_b.fit(J, n_starts=3, seed=1, progress=False).best
    got = pd.read_csv(tmp_path / "o" / "annotators.csv", index_col=0)
    np.testing.assert_allclose(got["theta"], best.theta(), rtol=0, atol=1e-12)
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["annotators.csv", "classes.csv", "items.csv", "optima.csv"]


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("argv, message", [
    (["alpha", "{d}/none.csv"], "crowdnb: error: ratings file '{d}/none.csv' does not exist"),
    (["alpha", "{d}/long.csv", "--unit", "item", "--rater", "who"], "crowdnb: error: columns 'who' (--rater), 'value' (--value) not in"),
    (["crowdtruth", "{d}/long.csv", "--unit", "item", "--worker", "rater", "--label", "score", "--labels", "1,2"],
     "crowdnb: error: label column 'score' has labels outside the declared set (3) at row 2 (line 4)"),
    (["kappa", "{d}/long.csv", "--raters", "rater", "nobody"], "crowdnb: error: column 'nobody' (--raters) not in"),
    (["coref", "{d}/long.csv", "{d}/none.conll"], "crowdnb: error: response file '{d}/none.conll' does not exist"),
    (["trust", "{d}/empty.csv"], "crowdnb: error: ratings file '{d}/empty.csv' is empty"),
    (["alpha", "{d}/long.csv", "--unit", "item", "--rater", "rater", "--value", "score", "--out", "{d}/no/a.csv"],
     "crowdnb: error: --out '{d}/no/a.csv': folder '{d}/no' does not exist"),
])
def test_errors_are_one_line_with_status_2(tmp_path, capsys, argv, message):
    pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "score": [1, 2, 3]}).to_csv(tmp_path / "long.csv", index=False)
    (tmp_path / "empty.csv").write_text("")
    status, out, err = run(capsys, *[a.format(d=tmp_path) for a in argv])
    assert status == 2
    assert err.startswith(message.format(d=tmp_path)) and err.count("\n") == 1, err
    assert out == ""


def test_usage_errors_and_help(capsys):
    assert run(capsys, "alpha")[0] == 2                                   # missing positional: argparse usage error
    status, out, err = run(capsys, "crowdtruth", "j.csv", "--open", "--closed")
    assert status == 2 and "not allowed with argument" in err
    status, out, err = run(capsys, "--help")
    assert status == 0 and "crowdtruth" in out and "dawid-skene" in out
    status, out, err = run(capsys, "trust", "--help")
    assert status == 0 and out.startswith("usage: crowdnb trust") and "--threshold" in out


# ---------------------------------------------------------------- the installed console script
def test_console_script(tmp_path):
    exe = Path(sys.executable).parent / "crowdnb"
    if not exe.exists(): pytest.skip("the crowdnb console script is not installed in this environment")
    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("usage: crowdnb")
    r = subprocess.run([str(exe), "alpha", str(tmp_path / "none.csv")], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"crowdnb: error: ratings file {str(tmp_path / 'none.csv')!r} does not exist\n"
    write_wide(tmp_path / "k.csv", KRIPP)
    r = subprocess.run([str(exe), "alpha", str(tmp_path / "k.csv"), "--level", "interval"], capture_output=True, text=True)
    assert r.returncode == 0 and "interval 0.8491" in r.stdout, r.stderr
    r = subprocess.run([str(exe), "alpha", str(tmp_path / "k.csv"), "--unit", "u1"], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("crowdnb: error: column 'value' (--value) not in")   # the wide file's index is named 'rater'
    p = subprocess.Popen([str(exe), "alpha", str(tmp_path / "k.csv")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()                                                       # the reader is gone before any output
    assert p.wait() == 1 and p.stderr.read() == b""                          # no BrokenPipeError traceback
