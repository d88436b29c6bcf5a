"""Agreement coefficients: Krippendorff's alpha vs the `krippendorff` package, pairwise kappas vs scikit-learn
looped over rater pairs, and the spatial-prepositions tables of seed 002 end to end. The random raters x units
arrays enter crowdnb through `Judgments.from_matrix(data.T)` (the one door for wide data), once per data set; the
conversion is timed as a case of its own."""
import numpy as np
import pandas as pd

from benchmarks.common import Result, timeit, peak_memory, max_abs_diff
from crowdnb.core import Judgments
from crowdnb.agreement import krippendorff_alpha, alpha_bootstrap, pairwise_agreement


def _random_reliability(raters, units, values, missing, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, values, units)
    data = np.where(rng.random((raters, units)) < 0.7, truth, rng.integers(0, values, (raters, units))).astype(float)
    data[rng.random((raters, units)) < missing] = np.nan
    return data


def alpha_vs_krippendorff(quick: bool = False):
    import krippendorff
    raters, units = (20, 2_000) if quick else (50, 20_000)
    data = _random_reliability(raters, units, 7, 0.3)
    j, conv = timeit(Judgments.from_matrix, data.T, repeat=3)
    out = [Result("Judgments.from_matrix (raters x units -> judgments)", f"{raters} raters x {units:,} units, "
                  f"{j.n_judgments:,} judgments", conv, None, None, "n/a (conversion, once per data set)", "< 2 s")]
    fresh = Judgments.from_matrix(data.T)          # the first call also builds the Judgments' cached counts
    cold, cold_secs = timeit(krippendorff_alpha, fresh, "nominal")
    ref, ref_secs = timeit(krippendorff.alpha, data, level_of_measurement="nominal", repeat=3)
    out.append(Result("krippendorff_alpha (nominal, first call on a fresh Judgments)", f"{raters} raters x {units:,} units, "
                      "30% missing", cold_secs, ref_secs, None, f"yes (|diff| {abs(cold - ref):.0e})"
                      if abs(cold - ref) < 1e-12 else f"NO (|diff| {abs(cold - ref):.1e})", ">= 1x"))
    for level in ("nominal", "ordinal", "interval", "ratio"):
        ours, secs = timeit(krippendorff_alpha, j, level, repeat=3)
        ref, ref_secs = timeit(krippendorff.alpha, data, level_of_measurement=level, repeat=3)
        _, peak = peak_memory(krippendorff_alpha, j, level)
        out.append(Result(f"krippendorff_alpha ({level})", f"{raters} raters x {units:,} units, 30% missing",
                          secs, ref_secs, peak, f"yes (|diff| {abs(ours - ref):.0e})" if abs(ours - ref) < 1e-12 else
                          f"NO (|diff| {abs(ours - ref):.1e})", ">= 5x"))
    # many distinct values (e.g. 0-100 scores): the package materialises units x values x values arrays
    raters, units = (10, 1_000) if quick else (20, 5_000)
    data = _random_reliability(raters, units, 60, 0.3, seed=3)
    j = Judgments.from_matrix(data.T)
    for level in ("interval", "ordinal"):
        ours, secs = timeit(krippendorff_alpha, j, level, repeat=3)
        ref, ref_secs = timeit(krippendorff.alpha, data, level_of_measurement=level)
        _, peak = peak_memory(krippendorff_alpha, j, level)
        out.append(Result(f"krippendorff_alpha ({level}, 60 values)", f"{raters} raters x {units:,} units, 30% missing",
                          secs, ref_secs, peak, f"yes (|diff| {abs(ours - ref):.0e})" if abs(ours - ref) < 1e-12 else
                          f"NO (|diff| {abs(ours - ref):.1e})", ">= 1x"))
    return out


def alpha_bootstrap_case(quick: bool = False):
    raters, units = (10, 1_000) if quick else (20, 10_000)
    j = Judgments.from_matrix(_random_reliability(raters, units, 5, 0.3, seed=1).T)
    n_boot = 200 if quick else 1000
    res, secs = timeit(alpha_bootstrap, j, "interval", n_boot=n_boot, seed=0, progress=False)
    ok = res.low <= res.alpha <= res.high
    return Result(f"alpha_bootstrap (interval, {n_boot} resamples)", f"{raters} x {units:,}", secs, None, None,
                  "interval holds alpha" if ok else "INTERVAL MISSES ALPHA", "< 10 s")


def pairwise_vs_sklearn_loop(quick: bool = False):
    from sklearn.metrics import cohen_kappa_score
    rng = np.random.default_rng(2)
    n_raters, n_q, per_q = (30, 1_000, 8) if quick else (60, 4_000, 10)
    who = np.argsort(rng.random((n_q, n_raters)), axis=1)[:, :per_q]
    truth = rng.random(n_q) < 0.4
    df = pd.DataFrame({"q": np.repeat(np.arange(n_q), per_q), "rater": who.ravel()})
    df["yes"] = np.where(rng.random(len(df)) < 0.85, truth[df.q], ~truth[df.q])
    long = pd.DataFrame({"unit": df.q, "worker": df.rater, "label": np.where(df.yes, "yes", "no")})

    def loop():
        wide = df.pivot(index="q", columns="rater", values="yes")
        rows = []
        for r1 in wide.columns:
            for r2 in wide.columns[wide.columns > r1]:
                both = wide[[r1, r2]].dropna()
                if len(both) == 0: continue
                a, b = both[r1].astype(int), both[r2].astype(int)
                k = 1.0 if (a == b).all() else cohen_kappa_score(a, b)
                rows.append((r1, r2, len(both), k))
        return pd.DataFrame(rows, columns=["rater1", "rater2", "shared", "kappa"])

    res, secs = timeit(pairwise_agreement, long, none="no")
    ref, ref_secs = timeit(loop)
    mine = res.pairs.rename(columns={"worker1": "rater1", "worker2": "rater2"}).set_index(["rater1", "rater2"])[["shared", "kappa"]]
    theirs = ref.set_index(["rater1", "rater2"])[["shared", "kappa"]].reindex(mine.index)
    d = max_abs_diff(mine.to_numpy(), theirs.to_numpy())
    return Result("pairwise_agreement yes/no vs sklearn looped over pairs", f"{n_raters} raters, {len(df):,} annotations, "
                  f"{len(mine):,} pairs", secs, ref_secs, None, f"yes (max |diff| {d:.0e})" if d < 1e-12 else f"NO ({d:.1e})",
                  ">= 10x")


def spatial_prepositions_tables(quick: bool = False):
    from crowdnb.core import shared_data
    from crowdnb.agreement import spatial_prepositions_agreements, read_published_agreements, agreement_table
    folder = shared_data("spatial-prepositions-2019")
    if folder is None:
        return Result("seed 002 spatial-prepositions tables", "-", float("nan"), None, None, "skipped: data absent")
    res, secs = timeit(spatial_prepositions_agreements, folder, repeat=3)
    worst = 0.0
    for name, f in [("semantic", "semantic agreements.csv"), ("comparative", "comparative agreements.csv")]:
        _, pub = read_published_agreements(folder / f)
        worst = max(worst, max_abs_diff(agreement_table(res[name])[["expected", "observed", "kappa"]].to_numpy(),
                                        pub[["expected", "observed", "kappa"]].to_numpy()))
    # reference: the study's own process_data.py took about 9 s for both tables on this machine (not re-run here)
    return Result("seed 002 spatial-prepositions tables, raw CSVs -> both tables", "2,215 annotations",
                  secs, 9.0, None, f"published values (max |diff| {worst:.0e}); ref = original script, ~9 s",
                  ">= 10x")


CASES = [alpha_vs_krippendorff, alpha_bootstrap_case, pairwise_vs_sklearn_loop, spatial_prepositions_tables]
