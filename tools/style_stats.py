"""Literate-style figures of the notebooks (issue: notebooks in the style of the best nbdev projects).

Prints, over `nbs/*.ipynb` (or the notebooks given): the median code cell length, the cells over 30 lines and
their share of code lines, the longest cell, definitions per export cell, public parameters with docments, and
the longest markdown cell in words; per notebook (`--per-notebook`) the issue's measures: median code cell, share of
code lines in cells over 30 lines, the longest run of exported cells with no example or test between them,
`;`-chained assertions and code lines over 120 characters; and the share of the package's top-level definitions
that are private. Usage: python tools/style_stats.py [NB ...] [--per-notebook]
"""
from __future__ import annotations
import ast, json, statistics, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cells(nb: Path):
    for c in json.loads(nb.read_text())["cells"]:
        yield c["cell_type"], "".join(c["source"])


def _code_lines(src: str) -> list[str]:
    return [l for l in src.splitlines() if l.strip() and not l.lstrip().startswith("#|")]


def _defs(tree) -> list:
    return [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


def _params_with_docments(src: str, fn: ast.FunctionDef) -> tuple[int, int]:
    "(public parameters, those with a docment comment on their line) of one function."
    lines = src.splitlines()
    args = [a for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
            if a.arg not in ("self", "cls") and not a.arg.startswith("_")]
    if fn.args.args and fn.args.args[0].annotation is not None and fn.args.args[0].arg in ("self", "cls"): pass
    documented = sum(1 for a in args if "#" in lines[a.lineno - 1].split(a.arg, 1)[-1])
    return len(args), documented


def stats(nbs: list[Path]) -> dict:
    code_lens, md_words, per_export, long_cells = [], [], [], []
    n_params = n_doc = 0
    for nb in nbs:
        for kind, src in _cells(nb):
            if kind == "markdown":
                md_words.append((len(src.split()), nb.name)); continue
            lines = _code_lines(src)
            if not lines: continue
            code_lens.append(len(lines))
            if len(lines) > 30: long_cells.append((len(lines), nb.name, lines[0][:60]))
            if src.lstrip().startswith("#| export") or "\n#| export" in src:
                try: tree = ast.parse(src)
                except SyntaxError: continue
                defs = _defs(tree)
                if defs: per_export.append(len(defs))
                for d in defs:
                    fns = [d] if not isinstance(d, ast.ClassDef) else [f for f in d.body if isinstance(f, ast.FunctionDef)
                                                                      and (not f.name.startswith("_") or f.name == "__init__")]
                    for f in fns:
                        if f.name.startswith("_") and f.name != "__init__": continue
                        p, dd = _params_with_docments(src, f)
                        n_params += p; n_doc += dd
    total = sum(code_lens)
    return dict(notebooks=len(nbs), code_cells=len(code_lens), median_code_cell=statistics.median(code_lens),
                cells_over_30=len(long_cells), share_of_code_lines_in_cells_over_30=
                round(sum(n for n, *_ in long_cells) / total, 3) if total else 0,
                longest_cell=max(long_cells, default=(max(code_lens, default=0), "", ""))[:2],
                max_definitions_per_export_cell=max(per_export, default=0),
                mean_definitions_per_export_cell=round(statistics.mean(per_export), 2) if per_export else 0,
                public_parameters=n_params, with_docments=n_doc,
                longest_markdown_words=max(md_words, default=(0, ""))[0], longest_markdown_in=max(md_words, default=(0, ""))[1])


def _is_export(src: str) -> bool:
    return src.lstrip().startswith("#| export") or "\n#| export" in src


def _is_check(stmt) -> bool:
    "Is `stmt` an assertion: `assert ...` or a call to a `test_*` function?"
    if isinstance(stmt, ast.Assert): return True
    call = getattr(stmt, "value", None)
    f = getattr(call, "func", None)
    return isinstance(f, ast.Name) and f.id.startswith("test")


def _chained(tree) -> int:
    "Lines holding two or more statements of which one is an assertion (`a; test_eq(...)`)."
    n = 0
    for node in ast.walk(tree):
        for body in (getattr(node, "body", None), getattr(node, "orelse", None)):
            if not isinstance(body, list): continue
            by_line = {}
            for st in body: by_line.setdefault(st.lineno, []).append(st)
            n += sum(1 for sts in by_line.values() if len(sts) > 1 and any(map(_is_check, sts)))
    return n


def rhythm(nb: Path) -> dict:
    "The issue's per-notebook measures of one notebook."
    lens, run, longest, chained, long_lines = [], 0, 0, 0, 0
    for kind, src in _cells(nb):
        if kind != "code": continue
        lines = _code_lines(src)
        if not lines: continue
        lens.append(len(lines))
        long_lines += sum(len(l) > 120 for l in lines)
        if _is_export(src): run += 1; longest = max(longest, run)
        else: run = 0
        try: chained += _chained(ast.parse(src))
        except SyntaxError: pass
    total = sum(lens)
    return dict(median=statistics.median(lens) if lens else 0,
                over30=round(sum(n for n in lens if n > 30) / total, 3) if total else 0,
                run=longest, chained=chained, long_lines=long_lines)


def private_share(pkg: Path = ROOT / "crowdnb") -> tuple[int, int]:
    "(private, all) top-level functions and classes in the package's modules."
    defs = [d.name for f in sorted(pkg.glob("*.py")) if f.name != "_modidx.py" for d in _defs(ast.parse(f.read_text()))]
    return sum(n.startswith("_") for n in defs), len(defs)


GOALS = dict(median=5, over30=0.06, run=6, chained=0, long_lines=0)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    nbs = [Path(a) for a in args] or sorted((ROOT / "nbs").glob("*.ipynb"))
    if "--per-notebook" in sys.argv:
        print(f"{'notebook':28s}" + "".join(f"{k:>11s}" for k in GOALS))
        for nb in nbs:
            r = rhythm(nb)
            print(f"{nb.name:28s}" + "".join(f"{str(v) + ('*' if v > GOALS[k] else ''):>11s}" for k, v in r.items()))
        print(f"{'goal (* = missed)':28s}" + "".join(f"{v:>11}" for v in GOALS.values()))
        priv, alldefs = private_share()
        print(f"private top-level definitions: {priv}/{alldefs} = {priv / alldefs:.0%} (goal <= 40%)")
    for k, v in stats(nbs).items(): print(f"{k:40s} {v}")
