"""`crowdnb report` at scale: 1,000,000 judgments (100,000 units x 10 judgments, 500 workers, 20% spammers) from a
CSV file to report.html, report.ipynb and summary.csv, kernel start-up and every section included (alpha with a
1000-resample bootstrap, Fleiss, Gwet's table, CrowdTruth, Dawid-Skene, the summary). No reference package makes
such a report; the goal is the wall time on 2 cores, and the check is that the summary names the planted spammers."""
import tempfile, time
from pathlib import Path

import pandas as pd

from benchmarks.common import Result
from crowdnb.core import simulate_crowd
from crowdnb.report import report


def report_million(quick: bool = False):
    n_units = 10_000 if quick else 100_000
    sim = simulate_crowd(n_units=n_units, n_workers=500, n_labels=4, workers_per_unit=10, spammer_fraction=0.2, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "judgments.csv"
        sim.judgments.to_csv(csv, index=False)
        t0 = time.perf_counter()
        page = report(csv, out=Path(tmp) / "report", progress=False)
        secs = time.perf_counter() - t0
        s = pd.read_csv(page.parent / "summary.csv")
        size_mb = page.stat().st_size / 2**20
    flagged = set(s.loc[s["kind"] == "worker", "id"])
    spam = set(sim.spammer.index[sim.spammer])
    found, extra = len(spam & flagged), len(flagged - spam)
    print(f"report: {len(sim.judgments):,} judgments in {secs:.1f} s; {found}/{len(spam)} spammers named, "
          f"{extra} other workers; report.html {size_mb:.1f} MiB")
    return Result("report (CSV -> report.html)", f"{len(sim.judgments):,} judgments, 500 workers", secs, None, None,
                  f"{found}/{len(spam)} spammers named, {extra} others", "< 60 s")


CASES = [report_million]
