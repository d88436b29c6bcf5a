"""Build the offline documentation site of crowdnb from its notebooks: no Quarto, no network.

Each notebook goes through nbdev's documentation processors (`tools/site/proc.py`: what `nbdev-proc-nbs`
does: directives applied, `#| hide` cells removed, `#| export` code replaced by its `show_doc`, `show_doc`
executed into nbdev's markdown with the docments table), then is rendered here to HTML: markdown with
markdown-it, code with Pygments, math left to a MathJax copied from the `jupyter-server-mathjax` package,
outputs as stored (stderr progress-bar frames dropped). Pages carry a sidebar grouped by layer (from the
notebook number: 0x core, 1x CrowdTruth, 2x agreement, 3x models, 4x coreference, 5x reproductions,
9x command line), a table of contents, and previous/next links. The look is one CSS file, `crowdnb/assets/site.css`, shared with `crowdnb report`.

Usage (from the project root):
    python -m tools.site.build --out _site                      # from the outputs stored in nbs/ (fast)
    python -m tools.site.build --out _site --nbs _site/executed # from executed copies (make reproduce)
"""
from __future__ import annotations
import argparse, base64, html, json, os, re, shutil, subprocess, sys, tempfile, time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CSS = ROOT / "crowdnb" / "assets" / "site.css"   # one home: the package ships it for `crowdnb report`
GROUPS = {0: "Core", 1: "CrowdTruth", 2: "Agreement", 3: "Annotation models", 4: "Coreference",
          5: "Reproductions", 9: "Command line"}
DOC_URL = "https://crowdnb.github.io/crowdnb/"   # nbdev's doc_host + doc_baseurl: its links are made local
MATHJAX_KEEP = ["MathJax.js", "config/TeX-AMS-MML_HTMLorMML-full.js", "extensions", "jax/input", "jax/element",
                "jax/output/HTML-CSS", "fonts/HTML-CSS", "localization/en", "LICENSE"]

# ---------------------------------------------------------------- text helpers
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# a tqdm frame: "desc:  40%|####      | 8/20 [00:00<00:00, 32.54it/s]" or "desc: 5it [00:01, 3.2it/s]"
TQDM = re.compile(r"\d+%\|.*\||\|\s*\d[\d.]*[kMG]?/\d[\d.]*[kMG]?\s*\[|\[\d+:\d\d(:\d\d)?(<|,\s)|"
                  r"\d[\d.]*\s*(it/s|s/it)\]?\s*$")


def is_progress(seg: str) -> bool:
    "Is this piece of a stream (between carriage returns / newlines) a progress-bar frame?"
    return bool(TQDM.search(seg))


def clean_stream(text: str, name: str) -> str:
    "Terminal semantics for `\\r` (keep the last frame of a line); drop stderr progress-bar frames entirely."
    lines = []
    for raw in ANSI.sub("", text).split("\n"):
        segs = raw.split("\r")
        if name == "stderr": segs = [s for s in segs if not is_progress(s)]
        if len(segs) > 1: segs = [next((s for s in reversed(segs) if s.strip()), "")]
        if segs: lines.append(segs[0])
    return "\n".join(lines).strip("\n") if "".join(lines).strip() else ""


def slugify(text: str) -> str:
    "Pandoc's (and so Quarto's) automatic heading identifier, which nbdev's doc links point to."
    s = re.sub(r"[^\w\s.\-]", "", text.strip().lower())
    s = re.sub(r"\s+", "-", s)
    s = re.sub(r"^[^a-z_]+", "", s) if re.search(r"[a-z_]", s) else ""
    return s or "section"


def src_of(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def data_of(v) -> str:
    return "".join(v) if isinstance(v, list) else str(v)


DIRECTIVE = re.compile(r"^\s*#\|\s*([\w-]+)\s*:?\s*(.*?)\s*$")


def split_directives(src: str):
    "Leading `#| key: value` lines of a code cell -> ({key: value}, rest of the source)."
    lines, dirs = src.splitlines(), {}
    while lines and (DIRECTIVE.match(lines[0]) or not lines[0].strip()):
        m = DIRECTIVE.match(lines.pop(0))
        if m: dirs[m[1].lower()] = m[2] or "true"
    body = "\n".join(l for l in lines if not DIRECTIVE.match(l))   # directives further down, too
    return dirs, body.strip("\n")

# ---------------------------------------------------------------- markdown


def _highlight(code: str, lang: str, _attrs=None) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name, TextLexer
    try: lexer = get_lexer_by_name(lang or "text")
    except Exception: lexer = TextLexer()
    body = highlight(code, lexer, HtmlFormatter(nowrap=True))
    return f'<pre class="highlight"><code>{body}</code></pre>'


def make_markdown(link_map):
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.attrs import attrs_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    md = MarkdownIt("commonmark", {"html": True, "highlight": _highlight}).enable(["table", "strikethrough"])
    md.use(dollarmath_plugin, allow_labels=False, allow_space=True, allow_digits=True, double_inline=True)
    md.use(attrs_plugin).use(footnote_plugin)

    def tex(display: bool):   # MathJax (tex2jax, processClass "tex") typesets these and nothing else
        tag, cls, fmt = ("div", "tex tex-display", "\\[%s\\]") if display else ("span", "tex tex-inline", "\\(%s\\)")
        return lambda self, tokens, idx, options, env: \
            f'<{tag} class="{cls}">{html.escape(fmt % tokens[idx].content.strip(), quote=False)}</{tag}>'
    for rule, display in [("math_inline", False), ("math_inline_double", True), ("math_block", True)]:
        md.add_render_rule(rule, tex(display))

    def heading_open(self, tokens, idx, options, env):
        tok, inline = tokens[idx], tokens[idx + 1]
        text = "".join(t.content for t in (inline.children or []) if t.type in ("text", "code_inline", "math_inline"))
        hid = tok.attrGet("id") or slugify(text)
        base, n = hid, 1
        while hid in env["ids"]: hid, n = f"{base}-{n}", n + 1
        env["ids"].add(hid); tok.attrSet("id", hid)
        level = int(tok.tag[1])
        if level in (2, 3):
            label = re.sub(r"</?a\b[^>]*>", "", self.renderInline(inline.children or [], options, env))
            env["toc"].append((level, hid, label))
        env["hstack"].append(hid)
        return self.renderToken(tokens, idx, options, env)

    def heading_close(self, tokens, idx, options, env):
        hid = env["hstack"].pop()
        return f'<a class="anchor" href="#{hid}" aria-label="link to this section">#</a></{tokens[idx].tag}>\n'

    def link_open(self, tokens, idx, options, env):
        tok = tokens[idx]
        href = tok.attrGet("href") or ""
        tok.attrSet("href", link_map(href))
        if href.startswith(DOC_URL) and tok.attrGet("href") != href: tok.attrSet("class", "doclink")
        style = tok.attrGet("style") or ""
        if "float" in style:   # nbdev's "[source](...){target=_blank style=float:right}" on show_doc
            tok.attrs.pop("style", None); tok.attrSet("class", "source-link")
        if re.match(r"https?:", tok.attrGet("href")): tok.attrSet("class", (tok.attrGet("class") or "") + " external")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("heading_open", heading_open)
    md.add_render_rule("heading_close", heading_close)
    md.add_render_rule("link_open", link_open)
    return md

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


def title_from_markdown(cells):
    "For a notebook nbdev could not process: take `# Title` / `> subtitle` from the first markdown cell and drop them."
    for c in cells:
        if c["cell_type"] != "markdown": continue
        lines, title, desc = src_of(c).splitlines(), "", ""
        if lines and lines[0].startswith("# "):
            title = lines.pop(0)[2:].strip()
            while lines and not lines[0].strip(): lines.pop(0)
            if lines and lines[0].startswith("> "): desc = lines.pop(0)[2:].strip()
            c["source"] = "\n".join(lines)
        return title, desc
    return "", ""


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


def load_pages(nbs_dir: Path, only=None, workers: int = 2):
    nbs = sorted(p for p in nbs_dir.glob("*.ipynb") if not p.name.startswith(("_", ".")))
    if only: nbs = [p for p in nbs if p.stem in only]
    pages = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        process_all(nbs, tmp, workers)
        for nb in nbs:
            key, group = group_of(nb.stem)
            pg = Page(nb, nb.stem, key, group)
            done, err = tmp / nb.name, tmp / (nb.stem + ".error")
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
            t, desc = ("", "") if pg.processed else title_from_markdown(pg.cells)
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
    def __init__(self, pages, out: Path):
        self.out = out
        self.by_stem = {p.stem: p for p in pages}
        self.by_href = {p.href: p for p in pages}
        self.md = make_markdown(self.link)
        self.figures = out / "figures"

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

    def markdown(self, text: str, env) -> str:
        return self.md.render(text, env)

    def outputs(self, page: Page, ci: int, outs, asis: bool, env) -> str:
        merged = []
        for o in outs:   # join consecutive pieces of one stream
            if o["output_type"] == "stream" and merged and merged[-1]["output_type"] == "stream" \
                    and merged[-1].get("name") == o.get("name"):
                merged[-1] = dict(merged[-1], text=data_of(merged[-1]["text"]) + data_of(o["text"]))
            else: merged.append(o)
        parts = []
        for k, o in enumerate(merged):
            t = o["output_type"]
            if t == "stream":
                text = clean_stream(data_of(o.get("text", "")), o.get("name", "stdout"))
                if text: parts.append(f'<pre class="output stream {o.get("name", "stdout")}">{html.escape(text)}</pre>')
            elif t == "error":
                tb = ANSI.sub("", "\n".join(o.get("traceback") or [f'{o.get("ename")}: {o.get("evalue")}']))
                parts.append(f'<pre class="output error">{html.escape(tb)}</pre>')
            elif t in ("execute_result", "display_data"):
                parts.append(self.mime(page, ci, k, o.get("data", {}), o.get("metadata", {}), asis, env))
        return "".join(parts)

    def mime(self, page, ci, k, data, meta, asis, env) -> str:
        order = (["text/markdown"] if asis else []) + ["text/html", "image/svg+xml", "image/png", "image/jpeg",
                                                        "image/gif", "text/markdown", "text/latex", "text/plain"]
        mt = next((m for m in order if m in data), None)
        if mt is None: return ""
        v = data[mt]
        if mt == "text/markdown": return f'<div class="output markdown">{self.markdown(data_of(v), env)}</div>'
        if mt == "text/html":
            return f'<div class="output html tex">{data_of(v)}</div>'   # "$x$" in a table cell: typeset, as Jupyter does
        if mt.startswith("image/"):
            ext = {"image/svg+xml": "svg", "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif"}[mt]
            name = f"{Path(page.href).stem}-{ci}-{k}.{ext}"
            self.figures.mkdir(parents=True, exist_ok=True)
            if ext == "svg": (self.figures / name).write_text(data_of(v))
            else: (self.figures / name).write_bytes(base64.b64decode(data_of(v)))
            m = meta.get(mt, {}) if isinstance(meta.get(mt), dict) else {}
            size = "".join(f' {a}="{int(m[a])}"' for a in ("width", "height") if isinstance(m.get(a), (int, float)))
            alt = html.escape(data_of(data.get("text/plain", "figure")), quote=True)
            return f'<div class="output figure"><img src="figures/{name}" alt="{alt}"{size}></div>'
        if mt == "text/latex":
            return f'<div class="output latex">{self.markdown(data_of(v), env)}</div>'
        return f'<pre class="output text">{html.escape(ANSI.sub("", data_of(v)))}</pre>'

    def page_body(self, page: Page):
        env = {"ids": set(), "toc": [], "hstack": []}
        parts = []
        for ci, c in enumerate(page.cells):
            ct = c["cell_type"]
            if ct == "markdown":
                parts.append(f'<div class="cell markdown">{self.markdown(src_of(c), env)}</div>')
            elif ct == "code":
                dirs, body = split_directives(src_of(c))
                if not page.processed:   # nbdev's own directives, applied by hand
                    if {"hide", "default_exp", "include"} & set(dirs) and dirs.get("include", "false") != "true": continue
                if dirs.get("include") == "false": continue
                echo = dirs.get("echo", "true") != "false"
                asis = dirs.get("output") == "asis"
                show_out = dirs.get("output", "true") != "false"
                doc = bool(re.match(r"\s*show_doc\(", body))
                inner = []
                if echo and body.strip():
                    inner.append(f'<div class="input">{_highlight(body, "python")}</div>')
                if show_out:
                    outs = self.outputs(page, ci, c.get("outputs", []), asis, env)
                    if outs: inner.append(f'<div class="outputs">{outs}</div>')
                if inner: parts.append(f'<div class="cell code{" doc" if doc else ""}">{"".join(inner)}</div>')
        page.toc, page.ids = env["toc"], env["ids"]
        page.body = "\n".join(parts)

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


def toc_html(page: Page) -> str:
    if not page.toc: return ""
    items = "".join(f'<li class="toc-h{lvl}"><a href="#{hid}">{label}</a></li>' for lvl, hid, label in page.toc)
    return f'<nav class="toc" aria-label="On this page"><div class="toc-title">On this page</div><ul>{items}</ul></nav>'


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
    try:
        import jupyter_server_mathjax
    except ImportError:
        print("warning: jupyter-server-mathjax is not installed: formulas will show as TeX", file=sys.stderr)
        return False
    src = Path(jupyter_server_mathjax.__file__).parent / "static"
    for rel in MATHJAX_KEEP:
        s, d = src / rel, dest / rel
        if not s.exists(): continue
        d.parent.mkdir(parents=True, exist_ok=True)
        if s.is_dir(): shutil.copytree(s, d, dirs_exist_ok=True)
        else: shutil.copy2(s, d)
    return True


def fill(template: str, **values) -> str:
    "`${name}` placeholders of page.html -> values (any other `$` is left alone: the MathJax config has some)."
    return re.sub(r"\$\{(\w+)\}", lambda m: values[m[1]], template)


def version() -> str:
    m = re.search(r'__version__\s*=\s*"([^"]+)"', (ROOT / "crowdnb" / "__init__.py").read_text())
    return m[1] if m else ""


def report_page(report, source_label: str) -> str:
    rows = "".join(f'<tr><td><a href="{href}">{html.escape(t)}</a></td><td><code>nbs/{html.escape(nb)}</code></td>'
                   f'<td class="{"ok" if ok else "bad"}">{"ok" if ok else "FAILED"}</td><td>{secs:.1f} s</td></tr>'
                   for href, t, nb, ok, secs in report)
    total = sum(r[4] for r in report)
    return (f"<p>Every notebook executed top to bottom, slow cells included, by <code>make reproduce</code> "
            f"({html.escape(source_label)}): {total / 60:.1f} minutes in all.</p><table class='report'><thead><tr><th>page</th>"
            f"<th>notebook</th><th>status</th><th>time</th></tr></thead><tbody>{rows}</tbody></table>")


def build(out: Path, nbs_dir: Path = ROOT / "nbs", *, report=None, source_label: str = "", only=None,
          workers: int = 2) -> list:
    """Write the site to `out` from the notebooks in `nbs_dir`; `report`: [(notebook name, ok, seconds)] of an
    execution run, shown as an extra page. Returns the pages (their `href`, `title`, `processed`, ...)."""
    t0 = time.time()
    out = Path(out).resolve(); out.mkdir(parents=True, exist_ok=True)
    source_label = source_label or ("outputs stored in nbs/" if Path(nbs_dir).resolve() == (ROOT / "nbs").resolve()
                                    else f"notebooks in {nbs_dir}")
    pages = load_pages(Path(nbs_dir), only, workers)
    if report is not None:
        by_name = {p.src.name: p for p in pages}
        rows = [(by_name[n].href if n in by_name else "#", by_name[n].title if n in by_name else n, n, ok, s)
                for n, ok, s in report]
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
    tpl = (HERE / "page.html").read_text()
    ver = version()
    for i, p in enumerate(pages):
        note = "" if p.processed else (f'<div class="callout warning">nbdev could not process this notebook '
                                       f'({html.escape(p.problem)}); it is shown without its API documentation.</div>')
        src = "" if p.stem == "reproduce" else f"Source: <code>nbs/{html.escape(p.src.name)}</code> · "
        (out / p.href).write_text(fill(tpl,
            title=html.escape(p.title), page_title=html.escape(p.title if p.stem == "index" else f"{p.title} – crowdnb"),
            description=html.escape(p.description), sidebar=sidebar(pages, p), toc=toc_html(p), pager=pager(pages, i),
            body=note + p.body, version=html.escape(ver), footer=src + f"built from {html.escape(source_label)}",
            subtitle="" if not p.description else f'<p class="subtitle">{r.md.renderInline(p.description)}</p>'),
            encoding="utf-8")
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
