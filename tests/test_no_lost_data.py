"""No lost data (issue 22): no `--out` overwrites an input file (a one-line error, the input untouched); every
output goes through `crowdnb.core.atomic_write` (a temporary file in the same folder, then one rename), so a run
that fails or is killed part way leaves the old file or the new one, never half of one; a report into a folder
that holds other files leaves them alone."""
import os, signal, subprocess, sys, textwrap, time
from pathlib import Path

import pandas as pd
import pytest

from crowdnb.cli import main
from crowdnb.core import atomic_write, write_csv

LONG = "unit,worker,label\n" + "".join(f"u{u},w{w},{(u * w) % 3}\n" for u in range(6) for w in range(4))
CONLL = "#begin document (d); part 000\nd 0 0 A (1)\nd 0 1 B (1)\n#end document\n"


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_line(status, out, err, *fragments):
    assert status == 2, (status, err)
    assert err.startswith("crowdnb: error: ") and err.count("\n") == 1, err
    for f in fragments: assert f in err, (f, err)
    return True


# (argv, the input that must survive); {d} is the folder
OVERWRITE = {
    "alpha --out FILE": (["alpha", "{d}/j.csv", "--out", "{d}/j.csv"], "j.csv"),
    "trust --out FILE": (["trust", "{d}/j.csv", "--out", "{d}/j.csv"], "j.csv"),
    "alpha --out through ..": (["alpha", "{d}/j.csv", "--out", "{d}/sub/../j.csv"], "j.csv"),
    "alpha --out a link to FILE": (["alpha", "{d}/j.csv", "--out", "{d}/link.csv"], "j.csv"),
    "coref --out KEY": (["coref", "{d}/k.conll", "{d}/r.conll", "--out", "{d}/k.conll"], "k.conll"),
    "coref --out RESPONSE": (["coref", "{d}/k.conll", "{d}/r.conll", "--out", "{d}/r.conll"], "r.conll"),
    "crowdtruth --out holding FILE": (["crowdtruth", "{d}/units.csv", "--out", "{d}"], "units.csv"),
    "dawid-skene --out holding FILE": (["dawid-skene", "{d}/labels.csv", "--out", "{d}"], "labels.csv"),
    "model-b --out holding FILE": (["model-b", "{d}/workers.csv", "--out", "{d}"], "workers.csv"),
    "crowdtruth-v1 job named like FILE": (["crowdtruth-v1", "{d}/x_workerMetrics.xlsx", "--job-id", "x", "--out", "{d}"],
                                          "x_workerMetrics.xlsx"),
    "report --out holding FILE": (["report", "{d}/summary.csv", "--out", "{d}"], "summary.csv"),
    "report --out holding --errors": (["report", "--key", "{d}/k.conll", "--response", "{d}/r.conll",
                                       "--errors", "{d}/summary.csv", "--out", "{d}"], "summary.csv"),
}


@pytest.fixture
def d(tmp_path):
    for name in ("j.csv", "units.csv", "labels.csv", "workers.csv", "summary.csv", "x_workerMetrics.xlsx"):
        (tmp_path / name).write_text(LONG)
    (tmp_path / "k.conll").write_text(CONLL); (tmp_path / "r.conll").write_text(CONLL)
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.csv").symlink_to(tmp_path / "j.csv")
    return tmp_path


@pytest.mark.parametrize("argv, survivor", list(OVERWRITE.values()), ids=list(OVERWRITE))
def test_out_never_overwrites_an_input(d, capsys, argv, survivor):
    before = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}
    status, out, err = run(capsys, *[a.format(d=d) for a in argv])
    assert one_line(status, out, err, "would overwrite the input file", survivor)
    after = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}
    assert after == before                                       # nothing written, nothing removed


def test_out_beside_the_input_is_fine(d, capsys):
    status, out, err = run(capsys, "alpha", d / "j.csv", "--out", d / "alpha.csv")
    assert status == 0, err
    assert (d / "j.csv").read_text() == LONG and (d / "alpha.csv").exists()


def test_library_report_refuses_its_input_as_output(d):
    from crowdnb import report as rp
    with pytest.raises(ValueError, match="is in the output folder under a name the report writes"):
        rp.report(d / "summary.csv", out=d)
    assert (d / "summary.csv").read_text() == LONG


# ---------------------------------------------------------------- atomic writes
def test_atomic_write_failure_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "t.csv"
    target.write_text("old\n")

    def half(self, path, *a, **k):                              # a writer that dies half way
        Path(path).write_text("unit,wor"); raise OSError("disk full")
    monkeypatch.setattr(pd.DataFrame, "to_csv", half)
    with pytest.raises(OSError, match="disk full"): write_csv(pd.DataFrame({"a": [1]}), target)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]   # no temporary file left behind


def test_atomic_write_refuses_a_folder_and_a_missing_folder(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        with atomic_write(tmp_path): pass
    with pytest.raises(ValueError, match="does not exist"):
        with atomic_write(tmp_path / "no" / "x.csv"): pass


def test_every_writer_goes_through_atomic_write():
    "No module of crowdnb writes a file by itself: to_csv, write_text, ExcelWriter, nbformat.write and pickles all sit inside atomic_write."
    import re
    root = Path(__file__).resolve().parent.parent / "crowdnb"
    for f in root.glob("*.py"):
        if f.name == "_modidx.py": continue
        for n, line in enumerate(f.read_text().splitlines(), 1):
            if re.search(r"\.to_csv\(|\.write_text\(|ExcelWriter\(|nbformat\.write\(|to_pickle\(|\.to_excel\(", line) \
                    and "atomic_write" not in line and "xl, sheet_name" not in line:
                pytest.fail(f"{f.name}:{n} writes without atomic_write: {line.strip()}")


CHILD = textwrap.dedent("""
    import sys, pandas as pd
    from crowdnb.core import write_csv
    big = pd.DataFrame({"unit": [f"unit-{i}" for i in range(300_000)], "label": "x" * 40})
    print("ready", flush=True)
    while True: write_csv(big, sys.argv[1], index=False)
""")


def _sigint_default():
    ("In the child: SIGINT back to its default, so Python raises KeyboardInterrupt. An ignored SIGINT is inherited "
     "through exec, and some test run before this one (a cluster, a kernel) may leave it ignored in pytest's process.")
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=["SIGKILL", "SIGTERM", "SIGINT"])
def test_a_killed_writer_leaves_the_old_or_the_new_file(tmp_path, sig):
    "A process killed while it writes a large CSV over and over: the target is always whole (old or new)."
    target = tmp_path / "out.csv"
    old = "unit,label\nold,1\n"
    target.write_text(old)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    seen_new = False
    for delay in (0.3, 0.7, 1.1):
        p = subprocess.Popen([sys.executable, "-c", CHILD, str(target)], stdout=subprocess.PIPE, env=env,
                             preexec_fn=_sigint_default)
        assert p.stdout.readline().strip() == b"ready"
        time.sleep(delay)                                       # somewhere in the middle of a write
        p.send_signal(sig); p.wait(timeout=60); p.stdout.close()
        text = target.read_text()
        if text != old:
            t = pd.read_csv(target)
            assert len(t) == 300_000 and t["unit"].iloc[-1] == "unit-299999", len(t)   # whole, never half
            seen_new = True
    assert seen_new or target.read_text() == old
    left = [x.name for x in tmp_path.iterdir() if x.name != "out.csv"]
    if sig == signal.SIGINT: assert left == []                  # KeyboardInterrupt: the temporary file is removed
    else: assert all(n.startswith(".out.") and n.endswith(".partial.csv") for n in left), left   # hidden, never the target


# ---------------------------------------------------------------- a report leaves other files alone
def test_report_leaves_other_files_alone(tmp_path, capsys):
    pytest.importorskip("nbclient")
    data = tmp_path / "j.csv"
    data.write_text(LONG)
    out = tmp_path / "rep"
    (out / "mine").mkdir(parents=True)
    keep = {out / "notes.txt": "my notes\n", out / "mine" / "data.csv": "a,b\n1,2\n", out / "report.css": "x{}\n"}
    for p, text in keep.items(): p.write_text(text)
    stamps = {p: p.stat().st_mtime_ns for p in keep}
    status, _, err = run(capsys, "report", data, "--n-boot", 20, "--out", out)
    assert status == 0, err
    for p, text in keep.items():
        assert p.read_text() == text and p.stat().st_mtime_ns == stamps[p], p
    names = {p.name for p in out.iterdir()}
    assert {"report.html", "report.ipynb", "summary.csv", "notes.txt", "mine", "report.css"} <= names
    assert not [n for n in names if ".partial" in n]
