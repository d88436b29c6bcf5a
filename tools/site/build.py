"""Build the offline documentation site of crowdnb from its notebooks: no Quarto, no network.

Each notebook goes through nbdev's documentation processors (`tools/site/proc.py`: what `nbdev-proc-nbs`
does: directives applied, `#| hide` cells removed, `#| export` code replaced by its `show_doc`, `show_doc`
executed into nbdev's markdown with the docments table), then is rendered to HTML by `crowdnb.render` (the one
notebook-to-HTML renderer, shared with `crowdnb report`; its page template is `crowdnb/assets/page.html`):
markdown with markdown-it, code with Pygments, outputs as stored (stderr progress-bar frames dropped). Math is
left to a MathJax copied from the `jupyter-server-mathjax` package; figures are written to figures/. Pages carry a sidebar grouped by layer (from the
notebook number: 0x core, 1x CrowdTruth, 2x agreement, 3x models, 4x coreference, 5x reproductions,
9x command line), a table of contents, and previous/next links. The look is one CSS file, `crowdnb/assets/site.css`, shared with `crowdnb report`.

Usage (from the project root):
    python -m tools.site.build --out _site                      # from the outputs stored in nbs/ (fast)
    python -m tools.site.build --out _site --nbs _site/executed # from executed copies (make reproduce)
"""
from __future__ import annotations
import argparse, html, json, os, re, shutil, subprocess, sys, tempfile, time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
from crowdnb.render import EXTENSIONS, NotebookRenderer, data_of, page_html, title_cell, toc_html  # noqa: E402
CSS = ROOT / "crowdnb" / "assets" / "site.css"   # one home: the package ships it for `crowdnb report`
GROUPS = {0: "Core", 1: "CrowdTruth", 2: "Agreement", 3: "Annotation models", 4: "Coreference",
          5: "Reproductions", 9: "Command line"}
DOC_URL = "https://crowdnb.github.io/crowdnb/"   # nbdev's doc_host + doc_baseurl: its links are made local
MATHJAX_KEEP = ["MathJax.js", "config/TeX-AMS-MML_HTMLorMML-full.js", "extensions", "jax/input", "jax/element",
                "jax/output/HTML-CSS", "fonts/HTML-CSS", "localization/en", "LICENSE"]

BRAND = '<a class="brand" href="index.html">crowdnb</a>'
# the stylesheet, and MathJax (tex2jax, processClass "tex": it typesets the formulas crowdnb.render marks, nothing else)
HEAD = r"""<link rel="stylesheet" href="assets/site.css">
<script type="text/x-mathjax-config">
MathJax.Hub.Config({
  tex2jax: {inlineMath: [["\\(", "\\)"], ["$", "$"]], displayMath: [["\\[", "\\]"], ["$$", "$$"]], processEscapes: true,
            processClass: "tex", ignoreClass: "tex2jax_ignore"},
  TeX: {extensions: ["AMSmath.js", "AMSsymbols.js", "noUndefined.js"]},
  "HTML-CSS": {availableFonts: ["STIX-Web"], preferredFont: "STIX-Web", webFont: "STIX-Web", imageFont: null, scale: 95,
               EqnChunk: 500, EqnChunkFactor: 1, EqnChunkDelay: 0},
  processSectionDelay: 0,
  showMathMenu: false, messageStyle: "none", menuSettings: {zoom: "None", CHTMLpreview: false},
  "fast-preview": {disabled: true}
});
MathJax.Hub.Queue(function () { document.documentElement.setAttribute("data-math", "done"); });
</script>
<script src="assets/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"></script>"""
TOC_SCRIPT = r"""<script>
/* table of contents: mark the section being read */
(function () {
  var links = {}, toc = document.querySelectorAll('nav.toc a');
  if (!toc.length || !window.IntersectionObserver) return;
  toc.forEach(function (a) { links[decodeURIComponent(a.getAttribute('href').slice(1))] = a; });
  var heads = Array.prototype.filter.call(document.querySelectorAll('main h2[id], main h3[id]'), function (h) { return links[h.id]; });
  var obs = new IntersectionObserver(function () {
    var cur = null;
    heads.forEach(function (h) { if (h.getBoundingClientRect().top < 120) cur = h; });
    toc.forEach(function (a) { a.classList.remove('active'); });
    if (cur) links[cur.id].classList.add('active');
  }, {rootMargin: '0px 0px -60% 0px'});
  heads.forEach(function (h) { obs.observe(h); });
})();
</script>"""

# ---------------------------------------------------------------- notebook fields


def src_of(cell) -> str:
    return data_of(cell.get("source", ""))

# ---------------------------------------------------------------- pages


@dataclass
class Page:
    src: Path
    stem: str
    key: tuple
    group: str
    href: str = ""
    title: str = ""
    description: str = ""
    cells: list = field(default_factory=list)
    processed: bool = True
    problem: str = ""
    body: str = ""
    toc: list = field(default_factory=list)
    ids: set = field(default_factory=set)


def group_of(stem: str):
    "(sort key, group name) from the notebook number: 00 core, 1x CrowdTruth, ... 9x command line."
    if stem == "index": return (-1, 0, stem), ""
    m = re.match(r"(\d+)", stem)
    if not m: return (99, 0, stem), "Other"
    n = int(m[1][:2]) // 10 if len(m[1]) >= 2 else 0
    return (n, int(m[1]), stem), GROUPS.get(n) or re.sub(r"^\d+[a-zA-Z]?_", "", stem).replace("_", " ").capitalize()


def nbdev_href(stem: str) -> str:
    return ("index" if stem == "index" else re.sub(r"^\d+[a-zA-Z]?_", "", stem)) + ".html"


def front_matter(cells):
    "nbdev's processed notebooks start with a raw YAML cell (title, description, output-file)."
    import yaml
    for c in cells:
        if c["cell_type"] == "raw":
            s = src_of(c).strip()
            if s.startswith("---"):
                try: return yaml.safe_load(s.strip("-\n ")) or {}
                except Exception: return {}
    return {}


def split_title_cell(cells: list) -> list:
    """nbdev turns the whole first markdown cell into front matter (title from `# `, description from the
    first `> ` line only) and drops it, so text after the subtitle, or a subtitle wrapped over several `>`
    lines, would be lost. Keep `# title` and the whole `> subtitle` (joined into one line) in that cell and
    move the rest into a markdown cell of its own. A no-op on a notebook that already does so."""
    for i, c in enumerate(cells):
        if c["cell_type"] != "markdown": continue
        lines = src_of(c).strip("\n").splitlines()
        if not lines or not re.match(r"#\s+\S", lines[0]): return cells
        k, quote = 1, []
        while k < len(lines) and not lines[k].strip(): k += 1
        while k < len(lines) and lines[k].strip() and (lines[k].startswith(">") or quote):
            quote.append(re.sub(r"^>\s?", "", lines[k]).strip()); k += 1
        rest = "\n".join(lines[k:]).strip("\n")
        head = lines[0] + (f"\n\n> {' '.join(q for q in quote if q)}" if quote else "")
        if not rest and len(quote) <= 1: return cells
        new = [dict(c, source=head)] + ([{"cell_type": "markdown", "metadata": {}, "source": rest}] if rest else [])
        return cells[:i] + new + cells[i + 1:]
    return cells


def process_all(nbs, out_dir: Path, workers: int = 2):
    "nbdev's processors on every notebook, in `workers` child processes."
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               MPLBACKEND="Agg", CROWDNB_PROGRESS="0")
    chunks = [nbs[i::workers] for i in range(workers) if nbs[i::workers]]
    procs = [subprocess.Popen([sys.executable, "-m", "tools.site.proc", str(out_dir), *map(str, ch)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for ch in chunks]
    for p in procs:
        _, err = p.communicate()
        if p.returncode: print(f"warning: nbdev processing exited with {p.returncode}: {err[-2000:]}", file=sys.stderr)


def load_pages(nbs_dir: Path, only=None, workers: int = 2, processed: Path | None = None):
    """The pages of the notebooks in `nbs_dir`, through nbdev's processors; those already processed into the folder
    `processed` (by `tools/reproduce.py`'s workers) are taken from there."""
    nbs = sorted(p for p in nbs_dir.glob("*.ipynb") if not p.name.startswith(("_", ".")))
    if only: nbs = [p for p in nbs if p.stem in only]
    pages = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        def source(nb):   # the folder that holds the notebook's processed copy (or why it has none)
            if processed and any((processed / f).exists() for f in (nb.name, nb.stem + ".error")): return processed
            return tmp
        todo = [nb for nb in nbs if source(nb) is tmp]
        if todo: process_all(todo, tmp, workers)
        for nb in nbs:
            key, group = group_of(nb.stem)
            pg = Page(nb, nb.stem, key, group)
            done, err = source(nb) / nb.name, source(nb) / (nb.stem + ".error")
            if done.exists():
                d = json.loads(done.read_text())
            else:
                try: d = json.loads(nb.read_text()); d["cells"] = split_title_cell(d["cells"])
                except Exception as e: d = {"cells": []}; err = None; pg.problem = f"unreadable: {e}"   # mid-save
                pg.processed = False
                pg.problem = pg.problem or ((err.read_text().splitlines() or ["unknown error"])[0]
                                            if err and err.exists() else "not processed")
                print(f"warning: nbdev could not process {nb.name} ({pg.problem}); rendering it unprocessed", file=sys.stderr)
            pg.cells = d["cells"]
            fm = front_matter(pg.cells)
            t, desc = "", ""
            if not pg.processed: t, desc, pg.cells = title_cell(pg.cells)   # nbdev's front matter, by hand
            pg.title = str(fm.get("title") or t or nb.stem)
            pg.description = str(fm.get("description") or desc or "")
            pg.href = fm.get("output-file") or nbdev_href(nb.stem)
            pages.append(pg)
    pages.sort(key=lambda p: p.key)
    first = {}
    for p in pages:   # a decade without a layer name is named after its first notebook (60_report: "Report")
        p.group = first.setdefault(p.key[0], p.group)
    seen = set()
    for p in pages:   # two notebooks with one output name (e.g. 10_x and 11_x): keep them apart
        if p.href in seen: p.href = p.stem + ".html"
        seen.add(p.href)
    return pages

# ---------------------------------------------------------------- cells -> HTML


class Renderer:
    "`crowdnb.render.NotebookRenderer` with the site's links (to its pages) and figures (files in figures/)."
    def __init__(self, pages, out: Path):
        self.by_stem = {p.stem: p for p in pages}
        self.by_href = {p.href: p for p in pages}
        self.figures = out / "figures"
        self.nb = NotebookRenderer(link=self.link, figure=self.save_figure)

    def link(self, href: str) -> str:
        "nbdev's absolute doc links and links to notebooks -> the local pages."
        if href.startswith(DOC_URL):
            rest = href[len(DOC_URL):]
            page, _, anchor = rest.partition("#")
            page = page or "index.html"
            if page in self.by_href: return page + (f"#{anchor}" if anchor else "")
            return href
        m = re.match(r"^(?:\./|\.\./nbs/|nbs/)?([\w.-]+)\.ipynb(#.*)?$", href)
        if m and m[1] in self.by_stem: return self.by_stem[m[1]].href + (m[2] or "")
        return href

    def save_figure(self, mime: str, data: str, name: str) -> str:
        "Write a figure into figures/; its src."
        import base64
        fname = f"{name}.{EXTENSIONS[mime]}"
        self.figures.mkdir(parents=True, exist_ok=True)
        if mime == "image/svg+xml": (self.figures / fname).write_text(data)
        else: (self.figures / fname).write_bytes(base64.b64decode(data))
        return f"figures/{fname}"

    def page_body(self, page: Page):
        r = self.nb.cells_html(page.cells, name=Path(page.href).stem, processed=page.processed)
        page.toc, page.ids, page.body = r.toc, r.ids, r.body

# ---------------------------------------------------------------- site


def sidebar(pages, current: Page) -> str:
    out, group = [], None
    for p in pages:
        if p.group != group:
            if group is not None: out.append("</ul></div>")
            group = p.group
            title = f'<div class="group-title">{html.escape(group)}</div>' if group else ""
            out.append(f'<div class="group">{title}<ul>')
        cur = ' class="active" aria-current="page"' if p is current else ""
        out.append(f'<li><a href="{p.href}"{cur}>{html.escape(p.title)}</a></li>')
    out.append("</ul></div>")
    return "\n".join(out)


def pager(pages, i: int) -> str:
    a = []
    if i > 0:
        p = pages[i - 1]
        a.append(f'<a class="prev" rel="prev" href="{p.href}"><span class="dir">← Previous</span>'
                 f'<span class="t">{html.escape(p.title)}</span></a>')
    else: a.append("<span></span>")
    if i + 1 < len(pages):
        p = pages[i + 1]
        a.append(f'<a class="next" rel="next" href="{p.href}"><span class="dir">Next →</span>'
                 f'<span class="t">{html.escape(p.title)}</span></a>')
    return f'<nav class="pager" aria-label="Previous and next page">{"".join(a)}</nav>'


DOCLINK = re.compile(r'<a href="([^"#]*)#([^"]*)" class="doclink">(.*?)</a>', re.S)


def fix_doclinks(pages):
    """nbdev links every backticked name it knows to its page#anchor, private helpers and undocumented methods
    too, whose anchors exist on no page (nor on the Quarto site). Such a link goes to the class's anchor
    when there is one (`Klass.method` -> `#klass`), else it is dropped and the code shown plain."""
    ids = {p.href: p.ids for p in pages}
    def fix(m):
        page, anchor, inner = m[1], m[2], m[3]
        if anchor in ids.get(page, ()): return m[0]
        owner = anchor.rsplit(".", 1)[0]
        if "." in anchor and owner in ids.get(page, ()): return f'<a href="{page}#{owner}" class="doclink">{inner}</a>'
        return inner
    for p in pages: p.body = DOCLINK.sub(fix, p.body)


def copy_mathjax(dest: Path) -> bool:
    import importlib.util
    spec = importlib.util.find_spec("jupyter_server_mathjax")   # found, not imported: that would take jupyter_server
    if spec is None or not spec.origin:                          # and jsonschema along (seconds), for a folder's path
        print("warning: jupyter-server-mathjax is not installed: formulas will show as TeX", file=sys.stderr)
        return False
    src = Path(spec.origin).parent / "static"
    for rel in MATHJAX_KEEP:
        s, d = src / rel, dest / rel
        if not s.exists(): continue
        d.parent.mkdir(parents=True, exist_ok=True)
        if s.is_dir(): shutil.copytree(s, d, dirs_exist_ok=True)
        else: shutil.copy2(s, d)
    return True


def version() -> str:
    m = re.search(r'__version__\s*=\s*"([^"]+)"', (ROOT / "crowdnb" / "__init__.py").read_text())
    return m[1] if m else ""


def report_page(report, source_label: str) -> str:
    has_cpu = all(len(r) > 5 for r in report)     # (href, title, notebook, ok, seconds[, CPU seconds])
    rows = "".join(f'<tr><td><a href="{href}">{html.escape(t)}</a></td><td><code>nbs/{html.escape(nb)}</code></td>'
                   f'<td class="{"ok" if ok else "bad"}">{"ok" if ok else "FAILED"}</td><td>{secs:.1f} s</td>'
                   + (f'<td>{cpu[0]:.1f} s</td>' if has_cpu else "") + '</tr>'
                   for href, t, nb, ok, secs, *cpu in report)
    total = sum(r[4] for r in report)
    return (f"<p>Every notebook executed top to bottom, slow cells included, by <code>make reproduce</code> "
            f"({html.escape(source_label)}): {total / 60:.1f} minutes in all.</p><table class='report'><thead><tr><th>page</th>"
            f"<th>notebook</th><th>status</th><th>time</th>{'<th>CPU</th>' if has_cpu else ''}</tr></thead><tbody>{rows}</tbody></table>")


def build(out: Path, nbs_dir: Path = ROOT / "nbs", *, report=None, source_label: str = "", only=None,
          workers: int = 2, processed: Path | None = None) -> list:
    """Write the site to `out` from the notebooks in `nbs_dir`; `report`: [(notebook name, ok, seconds)] of an
    execution run, shown as an extra page; `processed`: a folder of notebooks already through nbdev's processors.
    Returns the pages (their `href`, `title`, `processed`, ...)."""
    t0 = time.time()
    out = Path(out).resolve(); out.mkdir(parents=True, exist_ok=True)
    source_label = source_label or ("outputs stored in nbs/" if Path(nbs_dir).resolve() == (ROOT / "nbs").resolve()
                                    else f"notebooks in {nbs_dir}")
    pages = load_pages(Path(nbs_dir), only, workers, processed)
    if report is not None:
        by_name = {p.src.name: p for p in pages}
        rows = [(by_name[n].href if n in by_name else "#", by_name[n].title if n in by_name else n, n, ok, s, *cpu)
                for n, ok, s, *cpu in report]
        rp = Page(Path("reproduce"), "reproduce", (100, 0, ""), "Build", href="reproduce.html",
                  title="Reproduction run", description=f"{sum(not r[1] for r in report)} failed of {len(report)} notebooks")
        rp.body = report_page(rows, source_label)
        pages.append(rp)
    shutil.rmtree(out / "figures", ignore_errors=True); shutil.rmtree(out / "notebooks", ignore_errors=True)
    for old in out.glob("*.html"): old.unlink()
    r = Renderer(pages, out)
    for p in pages:
        if p.cells or not p.body: r.page_body(p)
    fix_doclinks(pages)
    assets = out / "assets"; assets.mkdir(exist_ok=True)
    shutil.copy2(CSS, assets / "site.css")
    copy_mathjax(assets / "mathjax")
    ver = version()
    for i, p in enumerate(pages):
        note = "" if p.processed else (f'<div class="callout warning">nbdev could not process this notebook '
                                       f'({html.escape(p.problem)}); it is shown without its API documentation.</div>')
        src = "" if p.stem == "reproduce" else f"Source: <code>nbs/{html.escape(p.src.name)}</code> · "
        (out / p.href).write_text(page_html(
            note + p.body, p.title, r.nb.md.renderInline(p.description) if p.description else "", toc_html(p.toc),
            head=HEAD, sidebar=sidebar(pages, p), pager=pager(pages, i), scripts=TOC_SCRIPT, body_class="tex2jax_ignore",
            page_title=html.escape(p.title if p.stem == "index" else f"{p.title} – crowdnb"),
            description=html.escape(p.description), version=html.escape(ver), brand=BRAND,
            footer=src + f"built from {html.escape(source_label)}"), encoding="utf-8")
    print(f"site: {len(pages)} pages in {time.time() - t0:.1f} s -> {out / (pages[0].href if pages else 'index.html')}")
    return pages


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "_site"), help="site folder (default _site/)")
    ap.add_argument("--nbs", default=str(ROOT / "nbs"), help="notebooks to render (default nbs/: stored outputs)")
    ap.add_argument("--from-stored", action="store_true", help="same as --nbs nbs/ (the default)")
    ap.add_argument("--only", nargs="*", help="notebook stems to include (default all)")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    build(Path(a.out), ROOT / "nbs" if a.from_stored else Path(a.nbs), only=a.only, workers=a.workers)


if __name__ == "__main__":
    main()
