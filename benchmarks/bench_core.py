"""Core data model: validation and conversion of a large judgment table (crowdnb alone)."""
from benchmarks.common import Result, timeit, peak_memory
from crowdnb.core import simulate_crowd, as_judgments

def load_and_arrays(quick: bool = False):
    n_units = 5_000 if quick else 50_000
    sim = simulate_crowd(n_units=n_units, n_workers=200, n_labels=10, workers_per_unit=20, seed=0)
    def run():
        j = as_judgments(sim.judgments, labels=sim.labels)
        return j, j.work_vectors(), j.unit_vectors(), j.incidence()
    (j, wv, uv, inc), secs = timeit(run)
    _, peak = peak_memory(run)
    ok = uv.sum() == len(sim.judgments) and inc.sum() == len(sim.judgments)
    return Result("core: validate + sparse arrays", f"{len(sim.judgments):,} judgments", secs, None, peak,
                  "identities hold" if ok else "IDENTITY FAILED")

CASES = [load_and_arrays]
