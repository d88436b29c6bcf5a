"""Write README.md from nbs/index.ipynb without Quarto (the docs site build uses nbdev-docs instead).

Markdown cells are copied; code cells become ```python blocks followed by their text output;
cells marked `#| hide` and the `#| ...` directive lines are left out.
Usage: python tools/make_readme.py [--check]   (--check: exit 1 if README.md is out of date)
"""
from __future__ import annotations
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def render(nb_path: Path = ROOT / "nbs" / "index.ipynb") -> str:
    nb = json.loads(nb_path.read_text())
    parts = []
    for c in nb["cells"]:
        src = "".join(c["source"])
        lines = src.splitlines()
        directives = [l for l in lines if l.startswith("#|")]
        if any(d.replace(" ", "") in ("#|hide", "#|include:false") for d in directives): continue
        body = "\n".join(l for l in lines if not l.startswith("#|")).strip("\n")
        if c["cell_type"] == "markdown":
            parts.append(body)
        elif c["cell_type"] == "code" and body:
            parts.append(f"```python\n{body}\n```")
            for o in c.get("outputs", []):
                text = o.get("text") or o.get("data", {}).get("text/plain")
                if text: parts.append("    " + "".join(text).rstrip("\n").replace("\n", "\n    "))
    return "\n\n".join(p for p in parts if p.strip()) + "\n"

def main(argv):
    text = render()
    readme = ROOT / "README.md"
    if "--check" in argv:
        if not readme.exists() or readme.read_text() != text:
            print("README.md is out of date with nbs/index.ipynb: run `make readme`"); return 1
        return 0
    readme.write_text(text); print(f"wrote {readme.relative_to(ROOT)}")
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
