"""Literate-style figures of the notebooks (issue: notebooks in the style of the best nbdev projects).

Prints, over `nbs/*.ipynb` (or the notebooks given): the median code cell length, the cells over 30 lines and
their share of code lines, the longest cell, definitions per export cell, public parameters with docments, and
the longest markdown cell in words. Usage: python tools/style_stats.py [NB ...] [--per-notebook]
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


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    nbs = [Path(a) for a in args] or sorted((ROOT / "nbs").glob("*.ipynb"))
    if "--per-notebook" in sys.argv:
        for nb in nbs: print(nb.name, stats([nb]))
    for k, v in stats(nbs).items(): print(f"{k:40s} {v}")
