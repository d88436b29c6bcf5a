"""The offline documentation site (tools/site/build.py), read in a real browser.

The site is built once from the notebooks' stored outputs (no execution) into a temporary folder, then every
page is loaded in one headless Chromium session (selenium + chromium-driver) with the network switched off.
Checked on every page: title and heading from the notebook's `# Title`; the sidebar (index first, groups
from the notebook numbers) and previous/next links; a table of contents of the page's own headings; the
formulas typeset by the bundled MathJax (no TeX left as text, no TeX errors); every internal link and
#anchor resolves; every figure loads; no traceback or error output, no `#| ` directive text, no progress
frames; nothing loaded from the network. Skipped when chromium or chromedriver is absent (.ci/run installs them).
"""
from __future__ import annotations
import os, re, shutil, sys, tempfile, time
from pathlib import Path
from urllib.parse import unquote, urlsplit
import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT))
from tools.site.build import build, group_of  # noqa: E402
from crowdnb.render import clean_stream, slugify, split_directives  # noqa: E402

CHROMIUM = os.environ.get("CHROME_BIN") or next(
    (shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
DRIVER = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver") or next(   # GitHub runners: $CHROMEWEBDRIVER
    (str(d) for d in [Path(os.environ.get("CHROMEWEBDRIVER", "/nonexistent")) / "chromedriver"] if d.is_file()), None)
needs_browser = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                   reason="needs chromium and chromium-driver (apt-get install chromium chromium-driver)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,1000", "--allow-file-access-from-files"]
PROGRESS = re.compile(r"\d+%\|[^\n]*\||\d+(\.\d+)?(it/s|s/it)\]")
RAW_TEX = re.compile(r"\$[^$\s][^$\n]*\$|\\begin\{|\\\(|\\\[|\\frac|\\sum|\\mathbf")

# ---------------------------------------------------------------- no browser needed


def test_progress_frames_dropped():
    frames = ("\rmodel B em:   0%|          | 0/100 [00:00<?, ?it/s]\rmodel B em:  50%|#####     | 50/100 "
              "[00:01<00:01, 9.04it/s]\rmodel B em: 100%|##########| 100/100 [00:02<00:00, 9.0it/s]\r     \r")
    assert clean_stream(frames, "stderr") == ""
    assert clean_stream("fit 3it [00:01,  2.50it/s]\n", "stderr") == ""
    assert clean_stream(frames + "wrote out.csv\n", "stderr") == "wrote out.csv"
    assert clean_stream("a\nb\n", "stdout") == "a\nb"
    assert clean_stream("10%\r50%\r100%\n", "stdout") == "100%"       # terminal semantics for \r


def test_helpers():
    assert slugify("Judgments.work_vectors") == "judgments.work_vectors"    # nbdev's show_doc anchors
    assert slugify("The crowd index: judgments, unit pairs") == "the-crowd-index-judgments-unit-pairs"
    assert slugify("2. Results") == "results"
    assert [group_of(s)[1] for s in ["index", "00_core", "10_crowdtruth", "22_chance", "31_model_b",
                                     "41_humeval", "51_x", "90_cli", "70_new"]] == \
        ["", "Core", "CrowdTruth", "Agreement", "Annotation models", "Coreference", "Reproductions",
         "Command line", "New"]
    assert split_directives("#| echo: false\n#| output: asis\nshow_doc(f)") == ({"echo": "false", "output": "asis"}, "show_doc(f)")

# ---------------------------------------------------------------- the site in a browser


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    before = {p.stem for p in (ROOT / "nbs").glob("*.ipynb") if not p.name.startswith(("_", "."))}
    t0 = time.time()
    pages = build(out)
    print(f"site built in {time.time() - t0:.1f} s")
    assert before <= {p.stem for p in pages}, "a notebook of nbs/ has no page"
    return out, pages


COLLECT = r"""
const main = document.querySelector('main.content');
const q = (sel, root) => [...(root || document).querySelectorAll(sel)];
const clone = main.cloneNode(true);
q('pre, code, script, style, .MathJax, .MathJax_Display, .MathJax_Preview, .MathJax_MathML', clone).forEach(e => e.remove());
let merror = [];
try { merror = MathJax.Hub.getAllJax().filter(j => j.root && j.root.data && j.root.data[0]
        && j.root.data[0].type === 'merror').map(j => j.originalText); } catch (e) { merror = ['MathJax missing: ' + e]; }
return {
  title: document.title,
  h1: (document.querySelector('h1.title') || {}).textContent || '',
  sidebar: q('nav.sidebar a').map(a => a.getAttribute('href')),
  active: q('nav.sidebar a.active').map(a => a.getAttribute('href')),
  groups: q('nav.sidebar .group-title').map(e => e.textContent),
  prev: (document.querySelector('.pager a.prev') || {getAttribute: () => null}).getAttribute('href'),
  next: (document.querySelector('.pager a.next') || {getAttribute: () => null}).getAttribute('href'),
  toc: q('nav.toc a').map(a => a.getAttribute('href')),
  headings: q('h2[id], h3[id]', main).filter(h => !h.closest('.output.html')).map(h => h.id),   // not an HTML output's own
  links: q('a[href]').map(a => a.getAttribute('href')),
  ids: q('[id]').map(e => e.id),
  imgs: q('img').map(i => [i.getAttribute('src'), i.complete, i.naturalWidth]),
  remote: q('script[src], link[href], img[src], iframe[src]').map(e => e.getAttribute('src') || e.getAttribute('href'))
            .filter(u => /^(https?:)?\/\//.test(u)),
  math_src: q('.tex-inline, .tex-display', main).length,
  math_unrendered: q('.tex-inline, .tex-display', main).filter(e => !e.querySelector('.MathJax, .MathJax_Display')).length,
  math_done: document.documentElement.getAttribute('data-math') === 'done',
  merror: merror,
  prose: clone.textContent,
  code_lines: q('.cell .input pre', main).flatMap(e => e.textContent.split('\n')),
  text: main.innerText,
  error_outputs: q('.output.error', main).length,
};
"""


@pytest.fixture(scope="module")
def pages(site):
    "Load every page once in one browser session; return {href: facts collected in the page}."
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait
    out, built = site
    profile = tempfile.mkdtemp(prefix="crowdnb-chromium-")
    opts = Options()
    opts.binary_location = CHROMIUM
    for f in FLAGS + [f"--user-data-dir={profile}"]: opts.add_argument(f)
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    facts = {}
    try:
        drv.set_page_load_timeout(60)
        try: drv.execute_cdp_cmd("Network.enable", {}); drv.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        except Exception: pass   # offline emulation is a belt: the page check below ("remote") is the braces
        for p in built:
            drv.get((out / p.href).as_uri())
            try: WebDriverWait(drv, 60).until(lambda d: d.execute_script(
                "return document.documentElement.getAttribute('data-math') === 'done'"))
            except Exception: pass   # recorded as math_done False
            facts[p.href] = drv.execute_script(COLLECT)
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
    return facts


def _expected_order(stems):
    "Index first, then by notebook number (written independently of the builder's own rule)."
    return sorted(sorted(stems), key=lambda s: (-1, 0) if s == "index" else
                  (int(s[:2]) // 10, int(re.match(r"\d+", s)[0])) if re.match(r"\d\d", s) else (99, 0))


@needs_browser
def test_every_notebook_is_a_page(site, pages):
    out, built = site
    assert [p.stem for p in built] == _expected_order(p.stem for p in built)
    assert list(pages) == [p.href for p in built]
    assert built[0].href == "index.html"


@needs_browser
def test_titles_from_notebooks(site, pages):
    for p in site[1]:
        f = pages[p.href]
        assert f["h1"] == p.title and p.title not in ("", "Notebook", p.stem), p.href
        assert f["title"] == (p.title if p.href == "index.html" else f"{p.title} – crowdnb"), p.href
    assert pages["index.html"]["h1"] == "crowdnb"


@needs_browser
def test_navigation(site, pages):
    order = [p.href for p in site[1]]
    groups, decades = [], set()
    for s in _expected_order(p.stem for p in site[1]):   # one group per decade of notebook numbers
        key, g = group_of(s)
        if g and key[0] not in decades: decades.add(key[0]); groups.append(g)
    for i, href in enumerate(order):
        f = pages[href]
        assert f["sidebar"] == order, href                  # every page, index first, in notebook order
        assert f["active"] == [href], href
        assert f["groups"] == groups, href                  # Core, CrowdTruth, Agreement, ... Command line
        assert f["prev"] == (order[i - 1] if i else None), href
        assert f["next"] == (order[i + 1] if i + 1 < len(order) else None), href
        assert f["toc"] == ["#" + h for h in f["headings"]], href   # the page's own ## and ### headings
    assert sum(len(f["toc"]) for f in pages.values()) > len(pages)


@needs_browser
def test_formulas_rendered(pages):
    assert sum(f["math_src"] for f in pages.values()) > 20     # the notebooks are full of formulas
    for href, f in pages.items():
        assert f["math_done"], f"{href}: MathJax did not finish (not loaded from assets/mathjax?)"
        assert f["math_unrendered"] == 0, f"{href}: {f['math_unrendered']} of {f['math_src']} formulas not typeset"
        assert not f["merror"], f"{href}: TeX errors in {f['merror'][:5]}"
        raw = RAW_TEX.findall(f["prose"])
        assert not raw, f"{href}: TeX left as text: {RAW_TEX.search(f['prose'])[0]!r}"


@needs_browser
def test_links_and_anchors_resolve(site, pages):
    out, _ = site
    bad = []
    for href, f in pages.items():
        for link in set(f["links"]):
            u = urlsplit(link)
            if u.scheme or link.startswith("//"): continue        # external (http, mailto)
            target = unquote(u.path) or href
            if not (out / target).resolve().is_file(): bad.append(f"{href}: {link} (no file)"); continue
            if u.fragment and target in pages and unquote(u.fragment) not in pages[target]["ids"]:
                bad.append(f"{href}: {link} (no anchor)")
    assert not bad, "\n".join(sorted(bad)[:30])


@needs_browser
def test_figures_load(pages):
    n = 0
    for href, f in pages.items():
        for src, complete, width in f["imgs"]:
            assert complete and width > 0, f"{href}: figure {src} did not load"
            n += 1
    assert n > 0


@needs_browser
def test_no_errors_directives_progress_or_network(pages):
    for href, f in pages.items():
        t = f["text"]
        assert "Traceback (most recent call last)" not in t and f["error_outputs"] == 0, f"{href} shows an error output"
        directives = [l for l in f["code_lines"] if l.lstrip().startswith("#|")]
        assert not directives and "#| " not in f["prose"], f"{href} shows nbdev directives: {directives[:3]}"
        m = PROGRESS.search(t)
        assert not m, f"{href} shows progress frames: {t[max(0, m.start() - 80):m.end() + 20]!r}"
        assert not f["remote"], f"{href} loads from the network: {f['remote']}"


def _nb(*cells):
    mk = lambda t, s, outs=None: {"cell_type": t, "metadata": {}, "source": s,
                                  **({"outputs": outs or [], "execution_count": None} if t == "code" else {})}
    return {"cells": [mk(*c) for c in cells], "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
            "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}


def test_builder_copes_with_partial_and_broken_notebooks(tmp_path):
    "No browser: an unexecuted cell has no output, progress frames go, a notebook nbdev cannot process still gets a page."
    import json
    nbs, out = tmp_path / "nbs", tmp_path / "site"; nbs.mkdir()
    tqdm = "\rfit:   0%|          | 0/9 [00:00<?, ?it/s]\rfit: 100%|##########| 9/9 [00:01<00:00, 8.1it/s]\r"
    (nbs / "12_toy.ipynb").write_text(json.dumps(_nb(
        ("markdown", "# Toy page\n\n> A subtitle with $x$\n\n## Section A\n\nText with $x^2$ and [a link](13_broken.ipynb)."),
        ("code", "#| hide\nimport os"),
        ("code", "print('hello')", [{"output_type": "stream", "name": "stdout", "text": "hello\n"},
                                    {"output_type": "stream", "name": "stderr", "text": tqdm}]),
        ("code", "1 + 1"))))
    (nbs / "13_broken.ipynb").write_text(json.dumps(_nb(
        ("markdown", "# Broken\n\n> nbdev's processor fails here"),
        ("code", "#| export\nimport no_such_module_for_crowdnb_site_test"),
        ("code", "#| hide\nsecret = 1"))))
    pages = build(out, nbs, workers=1)
    assert [(p.href, p.title, p.processed) for p in pages] == [("toy.html", "Toy page", True), ("broken.html", "Broken", False)]
    toy, broken = (out / "toy.html").read_text(), (out / "broken.html").read_text()
    assert "<title>Toy page – crowdnb</title>" in toy and 'id="section-a"' in toy and 'href="broken.html"' in toy
    assert "hello" in toy and "it/s" not in toy and "%|" not in toy and "import os" not in toy and "#|" not in toy
    assert 'class="tex tex-inline">\\(x^2\\)' in toy
    assert 'class="prev" rel="prev" href="toy.html"' in broken and "could not process" in broken
    assert "secret" not in broken and "#|" not in broken
