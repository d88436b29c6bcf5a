"""Edit notebook cells from the shell, by cell id (developer tool; notebooks are the source of crowdnb).

    python tools/nbcell.py list NB [PATTERN]         one line per cell: index, id, type, first line
    python tools/nbcell.py show NB ID [ID ...]       print the cells' sources
    python tools/nbcell.py set NB ID FILE            replace a cell's source with FILE ('-' = stdin); clears its outputs
    python tools/nbcell.py add NB AFTER_ID TYPE FILE insert a new cell (TYPE code|markdown) after AFTER_ID ('top' = first)
    python tools/nbcell.py rm NB ID [ID ...]         delete cells
    python tools/nbcell.py dump NB OUT.py            whole notebook as '# %% [id] type' sections (for reading/grepping)
    python tools/nbcell.py load NB IN.py             write the sections of IN.py back (ids kept, outputs kept when source unchanged)

`load` is the round trip of `dump`: edit OUT.py freely (add sections with '# %% [new] code' or
'# %% [new] markdown'), then load it; cells whose source changed lose their outputs.
"""
import json, re, sys, secrets
from pathlib import Path

HDR = re.compile(r"^# %% \[(?P<id>[^\]]+)\] (?P<type>code|markdown)\s*$")


def _read(nb):
    return json.loads(Path(nb).read_text())


def _write(nb, d):
    Path(nb).write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n")


def _src(c):
    return "".join(c["source"])


def _lines(text):
    text = text.rstrip("\n")
    return [l + "\n" for l in text.split("\n")[:-1]] + [text.split("\n")[-1]] if text else []


def _new(kind, text):
    c = {"cell_type": kind, "id": secrets.token_hex(4), "metadata": {}, "source": _lines(text)}
    if kind == "code": c.update(execution_count=None, outputs=[])
    return c


def _find(d, cid):
    for i, c in enumerate(d["cells"]):
        if c.get("id") == cid: return i
    sys.exit(f"nbcell: no cell with id {cid!r}")


def _text(f):
    return sys.stdin.read() if f == "-" else Path(f).read_text()


def main(argv):
    if len(argv) < 2: sys.exit(__doc__)
    cmd, nb, *rest = argv
    d = _read(nb)
    if cmd == "list":
        pat = rest[0] if rest else None
        for i, c in enumerate(d["cells"]):
            s = _src(c)
            if pat and pat not in s: continue
            first = s.split("\n")[0][:100]
            print(f"{i:3d} {c.get('id')} {c['cell_type'][:4]} {len(s.splitlines()):3d}L  {first}")
    elif cmd == "show":
        for cid in rest:
            print(f"# ---- {cid}\n{_src(d['cells'][_find(d, cid)])}")
    elif cmd == "set":
        cid, f = rest
        c = d["cells"][_find(d, cid)]
        c["source"] = _lines(_text(f))
        if c["cell_type"] == "code": c["outputs"], c["execution_count"] = [], None
        _write(nb, d)
    elif cmd == "add":
        after, kind, f = rest
        i = 0 if after == "top" else _find(d, after) + 1
        c = _new(kind, _text(f))
        d["cells"].insert(i, c)
        _write(nb, d)
        print(c["id"])
    elif cmd == "rm":
        for cid in rest: del d["cells"][_find(d, cid)]
        _write(nb, d)
    elif cmd == "dump":
        out = []
        for c in d["cells"]:
            out.append(f"# %% [{c.get('id')}] {c['cell_type']}\n{_src(c)}\n")
        Path(rest[0]).write_text("\n".join(out))
    elif cmd == "load":
        old = {c.get("id"): c for c in d["cells"]}
        cells, cur = [], None
        for line in Path(rest[0]).read_text().split("\n"):
            m = HDR.match(line)
            if m:
                cur = [m["id"], m["type"], []]; cells.append(cur); continue
            if cur is None:
                if line.strip(): sys.exit("nbcell: text before the first '# %% [id] type' header")
                continue
            cur[2].append(line)
        new = []
        for cid, kind, lines in cells:
            text = "\n".join(lines).strip("\n")
            c = old.get(cid)
            if c is None or c["cell_type"] != kind:
                new.append(_new(kind, text)); continue
            if _src(c).strip("\n") != text:
                c["source"] = _lines(text)
                if kind == "code": c["outputs"], c["execution_count"] = [], None
            new.append(c)
        d["cells"] = new
        _write(nb, d)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
