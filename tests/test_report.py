"""`crowdnb report` / `crowdnb.report`: the report notebook executed on a simulated crowd (planted spammers named in
the summary) and on a simulated coreference study (planted outlier raters flagged); the standalone page (no error
output, no raw LaTeX, no progress frames, every image an embedded PNG that loads, in headless Chromium when it is
installed); crowd text never becomes markup or a formula; the sections that fit each kind of data; web-form
exports; bad input through `crowdnb.cli.main(["report", ...])` gives the CLI's one-line errors."""
import base64, re, shutil, sys, tempfile
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from crowdnb.cli import main
from crowdnb.core import as_judgments, simulate_crowd
from crowdnb import humeval
from crowdnb.report import QualityReport, read_form, report, write_conll

sys.path.insert(0, str(ROOT / "tests"))
from test_site import CHROMIUM, DRIVER, FLAGS, PROGRESS, RAW_TEX, needs_browser  # noqa: E402

EVIL_WORKER = '<img src=x onerror="alert(1)">'
EVIL_LABEL = "=HYPERLINK(\"http://evil\",\"x\")"
EVIL_TITLE = "Crowd <b>$x$</b> *report* `y`"


@pytest.fixture(scope="module")
def crowd_report(tmp_path_factory):
    "A report on 150 units x 30 workers, 20% spammers; one spammer and one label renamed to markup / a formula."
    tmp = tmp_path_factory.mktemp("crowd")
    sim = simulate_crowd(n_units=150, n_workers=30, n_labels=4, workers_per_unit=6, spammer_fraction=0.2, seed=3)
    spam = sorted(sim.spammer.index[sim.spammer])
    df = sim.judgments.replace({"worker": {spam[0]: EVIL_WORKER}, "label": {"L3": EVIL_LABEL}})
    df.to_csv(tmp / "crowd.csv", index=False)
    page = report(tmp / "crowd.csv", out=tmp / "out", n_boot=200, progress=False, title=EVIL_TITLE)
    planted = {EVIL_WORKER if w == spam[0] else w for w in spam}
    return page, planted


def test_files_and_summary(crowd_report):
    page, planted = crowd_report
    assert page.name == "report.html"
    assert sorted(p.name for p in page.parent.iterdir()) == ["report.html", "report.ipynb", "summary.csv"]
    s = pd.read_csv(page.parent / "summary.csv")
    assert list(s.columns) == ["kind", "id", "methods", "evidence"]
    workers = s[s["kind"] == "worker"]
    assert set(workers["id"]) == planted                       # every planted spammer, nobody else
    assert (workers["methods"].str.count(",") >= 1).all()     # each by at least two methods
    assert (s["kind"] == "unit").sum() == 10 and (s["kind"] == "label pair").sum() >= 1
    raw = (page.parent / "summary.csv").read_text()
    assert "'" + EVIL_LABEL.replace('"', '""') in raw         # write_csv defused the formula


def test_page_is_clean(crowd_report):
    page, _ = crowd_report
    text = page.read_text()
    body = text.split("</style>", 1)[1]
    assert "<script" not in text
    assert "http" not in re.sub(r'HYPERLINK\((&quot;|")http://evil', "", body)        # nothing loads from the network
    assert EVIL_WORKER not in text and "&lt;img src=x onerror=" in text                  # shown, escaped
    shown = "Crowd &lt;b&gt;$x$&lt;/b&gt; *report* `y`"                                  # the title, as typed
    assert f'<h1 class="title">{shown}</h1>' in body and f"<title>{shown}</title>" in text
    prose = re.sub(r"<[^>]+>", " ", body).replace(shown, "")
    assert "Traceback" not in prose and 'class="output error"' not in body
    assert not RAW_TEX.search(prose), RAW_TEX.search(prose)
    assert not PROGRESS.search(prose)
    imgs = re.findall(r'<img src="([^"]+)"', body)
    assert len(imgs) >= 6
    for src in imgs:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    for h in ("The data at a glance", "Agreement", "CrowdTruth", "Dawid–Skene", "Trust coefficients", "Summary"):
        assert f">{h}</h2>" in body
    assert "Left out: trust coefficients take the alpha of every subset" in body      # 30 raters > 20
    assert ":root" in text.split("</style>")[0]                                         # the site's CSS, inlined


def test_notebook_carries_on(crowd_report):
    page, _ = crowd_report
    nb = nbformat.read(page.parent / "report.ipynb", as_version=4)
    params = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
    assert "crowd.csv" in params.source
    assert any("J = as_judgments(" in c.source for c in nb.cells)
    assert not [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o["output_type"] == "error"]
    assert not [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.get("name") == "stderr"]


@needs_browser
def test_page_in_browser(crowd_report):
    "Every image loads, nothing from the network, the table of contents resolves, no error text."
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    page, _ = crowd_report
    profile = tempfile.mkdtemp(prefix="crowdnb-report-")
    opts = Options(); opts.binary_location = CHROMIUM
    for f in FLAGS + [f"--user-data-dir={profile}"]: opts.add_argument(f)
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        try: drv.execute_cdp_cmd("Network.enable", {}); drv.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        except Exception: pass
        drv.get(page.as_uri())
        f = drv.execute_script("""
          const q = s => [...document.querySelectorAll(s)];
          return {imgs: q('img').map(i => [i.complete, i.naturalWidth]),
                  remote: q('script[src], link[href], img[src], iframe[src]').map(e => e.getAttribute('src') || e.getAttribute('href'))
                          .filter(u => /^(https?:)?\\/\\//.test(u)),
                  toc: q('nav.toc a').map(a => a.getAttribute('href').slice(1)),
                  ids: q('[id]').map(e => e.id), text: document.querySelector('main').innerText,
                  bg: getComputedStyle(document.querySelector('.topbar')).backgroundColor};""")
    finally:
        drv.quit(); shutil.rmtree(profile, ignore_errors=True)
    assert len(f["imgs"]) >= 6 and all(ok and w > 0 for ok, w in f["imgs"])
    assert f["remote"] == []
    assert len(f["toc"]) >= 6 and set(f["toc"]) <= set(f["ids"])
    assert "Traceback" not in f["text"] and not PROGRESS.search(f["text"])
    assert f["bg"] not in ("rgba(0, 0, 0, 0)", "transparent")                        # the site's CSS applies


def test_coref_study_flags_planted_outliers(tmp_path):
    passages = {k: humeval.parse_brackets(v) for k, v in humeval.EXAMPLE_PASSAGES.items()}
    corpus = humeval.error_corpus({k: c for k, (_, c) in passages.items()}, n_items=80,
                                  tokens={k: t for k, (t, _) in passages.items()}, seed=7)
    write_conll(corpus.key, tmp_path / "key.conll"); write_conll(corpus.response, tmp_path / "response.conll")
    corpus.counts.to_csv(tmp_path / "errors.csv")
    sim = humeval.simulate_ratings(corpus.counts, n_workers=8, n_outliers=2, seed=4)
    sim.judgments.rename(columns={"unit": "item", "worker": "rater", "label": "score"}).to_csv(tmp_path / "r.csv", index=False)
    status = main(["report", str(tmp_path / "r.csv"), "--unit", "item", "--worker", "rater", "--label", "score",
                   "--key", str(tmp_path / "key.conll"), "--response", str(tmp_path / "response.conll"),
                   "--errors", str(tmp_path / "errors.csv"), "--out", str(tmp_path / "out")])
    assert status == 0
    s = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert set(s.loc[s["kind"] == "worker", "id"]) == set(sim.outlier.index[sim.outlier])
    body = (tmp_path / "out" / "report.html").read_text().split("</style>", 1)[1]
    for h in ("Coreference metrics", "Table 1: agreement and outlier raters", "Table 2: metrics against the raters",
              "Tables 3 and 4: what each error type costs", "Summary"):
        assert f">{h}</h2>" in body
    assert "Left out" not in body and "Traceback" not in body
    # without the error counts, Tables 3-4 are left out with the reason
    report(tmp_path / "r.csv", out=tmp_path / "out2", key=tmp_path / "key.conll", response=tmp_path / "response.conll",
           unit="item", worker="rater", label="score", progress=False)
    assert "Left out: the regressions need the number of errors" in (tmp_path / "out2" / "report.html").read_text()


# ------------------------------------------------------------------ kinds of data (in-process, no kernel)

def _sections(rep):
    for f in (rep.glance, rep.agreement, rep.crowdtruth, rep.dawid_skene, rep.trust, rep.summary): f()
    return {s.title: s for s in rep.sections}


def test_multi_label():
    d = simulate_crowd(n_units=60, n_workers=10, n_labels=4, workers_per_unit=5, multi_label=True, seed=1).judgments
    rep = QualityReport(as_judgments(d, sep="|"), n_boot=50)
    s = _sections(rep)
    assert rep.plan.kind == "multi-label"
    assert "one label per judgment" in s["Dawid–Skene"].left_out and not s["CrowdTruth"].left_out
    assert "left out" in s["Agreement"]._repr_html_()
    assert set(rep.worker_scores) == {"agreement", "crowdtruth"}
    assert "label pairs are measured on single-label categories" in s["Summary"]._repr_html_()


def test_numeric():
    rng = np.random.default_rng(0)
    truth = rng.normal(50, 10, 80)
    rows = [(f"u{u}", f"w{w}", round(truth[u] + rng.normal(0, 2 if w < 6 else 25), 1)) for u in range(80) for w in range(8)]
    rep = QualityReport(as_judgments(pd.DataFrame(rows, columns=["unit", "worker", "label"])), n_boot=50)
    s = _sections(rep)
    assert (rep.plan.kind, rep.plan.level) == ("numeric", "interval")
    assert "measurements rather than categories" in s["Dawid–Skene"].left_out
    assert "<b>interval</b> level" in s["Agreement"]._repr_html_()
    flagged = set(rep.summary_table().query("kind == 'worker'")["id"])
    assert flagged == {"w6", "w7"}                            # the two noisy raters: agreement and trust


def test_ordinal_likert_labels():
    sim = simulate_crowd(n_units=60, n_workers=8, n_labels=5, workers_per_unit=5, seed=2)
    scale = ["strongly disagree", "disagree", "neutral", "agree", "strongly agree"]
    d = sim.judgments.assign(label=sim.judgments["label"].map(dict(zip(sim.labels, scale))))
    rep = QualityReport(as_judgments(d, labels=scale), n_boot=50)
    s = _sections(rep)
    assert (rep.plan.kind, rep.plan.level, rep.plan.levels) == ("ordinal", "ordinal", ["nominal", "ordinal"])
    assert "<b>ordinal</b> level" in s["Agreement"]._repr_html_() and not s["Dawid–Skene"].left_out


def test_open_ended_many_labels():
    rng = np.random.default_rng(3)
    rows = [(f"u{u}", f"w{w}", f"tag{rng.integers(0, 40)}") for u in range(50) for w in range(4)]
    rep = QualityReport(as_judgments(pd.DataFrame(rows, columns=["unit", "worker", "label"])), n_boot=20)
    s = _sections(rep)
    assert rep.plan.kind == "open-ended" and "confusion matrix" in s["Dawid–Skene"].left_out


# ------------------------------------------------------------------ web-form exports

FORM = """Timestamp,Name,Q1 clear?,Q2 fluent?,Q1 clear?,Comments
2024-01-01 10:00,ann,4,,4,
2024-01-01 10:01,bob,2,3,1,too long
2024-01-02 09:00,ann,,5,,
2024-01-02 10:00,cy,4,4,4,
2024-01-02 11:00,bob,,2,,
"""


def test_read_form(tmp_path):
    (tmp_path / "f.csv").write_text(FORM)
    f = read_form(tmp_path / "f.csv")
    t = f.table.set_index(["unit", "worker"])["label"]
    assert t[("Q2 fluent?", "ann")] == 5 and t[("Q2 fluent?", "bob")] == 2      # later partial submission wins
    assert f.repeats.set_index("worker")["same"].to_dict() == {"ann": True, "bob": False, "cy": True}
    assert f.comments.to_dict("records") == [{"worker": "bob", "column": "Comments", "comment": "too long"}]
    assert (f.judgments.n_units, f.judgments.n_workers) == (2, 3)
    with pytest.raises(ValueError, match="has no column 'Rater'"): read_form(tmp_path / "f.csv", rater="Rater")


def test_form_through_cli(tmp_path, capsys):
    (tmp_path / "f.csv").write_text(FORM)
    assert main(["report", str(tmp_path / "f.csv"), "--form", "--n-boot", "20", "--out", str(tmp_path / "out")]) == 0
    body = (tmp_path / "out" / "report.html").read_text()
    assert ">The data at a glance</h2>" in body and "Traceback" not in body.split("</style>", 1)[1]
    assert ">Consistency of repeated questions</h2>" in body and "3 repeated answer(s) by 3 rater(s); 2 the same" in body
    assert "too long" in body                                                            # the comment, shown
    nb = (tmp_path / "out" / "report.ipynb").read_text()
    assert "judgments.pkl" in nb


# ------------------------------------------------------------------ bad input through the command line

def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err.strip()


def test_cli_errors(tmp_path, capsys):
    (tmp_path / "j.csv").write_text("item,coder,answer\na,x,yes\na,y,no\nb,x,yes\nb,y,yes\n")
    st, err = _run(capsys, "report", tmp_path / "nope.csv", "--out", tmp_path / "o")
    assert (st, err) == (2, f"crowdnb: error: judgments file {str(tmp_path / 'nope.csv')!r} does not exist")
    # raised in the report's kernel, phrased in flags like every other subcommand
    st, err = _run(capsys, "report", tmp_path / "j.csv", "--worker", "rater", "--out", tmp_path / "o")
    assert st == 2 and err.startswith("crowdnb: error:") and "lacks the column(s) --unit unit, --worker rater" in err, err
    st, err = _run(capsys, "report", tmp_path / "j.csv", "--unit", "item", "--worker", "coder", "--label", "answer",
                   "--level", "interval", "--out", tmp_path / "o")
    assert st == 2 and "--level interval needs numeric labels" in err, err
    st, err = _run(capsys, "report", tmp_path / "j.csv", "--n-boot", "0", "--out", tmp_path / "o")
    assert (st, err) == (2, "crowdnb: error: --n-boot must be at least 1; got 0")
    st, err = _run(capsys, "report", "--out", tmp_path / "o")
    assert st == 2 and "give FILE" in err
    st, err = _run(capsys, "report", tmp_path / "j.csv", "--errors", tmp_path / "j.csv", "--out", tmp_path / "o")
    assert st == 2 and "--errors belongs to a coreference study" in err
    (tmp_path / "afile").write_text("x")
    st, err = _run(capsys, "report", tmp_path / "j.csv", "--out", tmp_path / "afile")
    assert st == 2 and "exists and is not a folder" in err
    assert "Traceback" not in err


def test_python_errors(tmp_path):
    with pytest.raises(TypeError, match="report needs data"): report(out=tmp_path / "o")
    with pytest.raises(ValueError, match="n_boot must be at least 1"): report("x.csv", out=tmp_path / "o", n_boot=0)
    with pytest.raises(TypeError, match="data must be a CSV path"): report([1, 2], out=tmp_path / "o")
    with pytest.raises(ValueError, match="does not exist"):
        report(out=tmp_path / "o", key=tmp_path / "k.conll", response=tmp_path / "r.conll")
