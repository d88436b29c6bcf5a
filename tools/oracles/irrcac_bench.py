"""Time irrcac's raw-data coefficients inside the oracle environment (helper of benchmarks/bench_chance.py).

    .oracles/irrcac/bin/python tools/oracles/irrcac_bench.py MATRIX.npy WEIGHTS [WEIGHTS ...]

MATRIX.npy is a units x raters float matrix, NaN = missing. For each weights name, the script builds
`irrCAC.raw.CAC` and computes Gwet's AC, Fleiss' kappa, Conger's kappa, Krippendorff's alpha and
Brennan-Prediger, timing the whole within this process (not the interpreter start), and prints one JSON
object: {weights: {"seconds": s, method: {estimate, se, ci_low, ci_high, p_value}}}.
"""
import json, sys, time, warnings

METHODS = ["gwet", "fleiss", "conger", "krippendorff", "bp"]


def main(path, *weights):
    import numpy as np, pandas as pd
    from irrCAC.raw import CAC
    warnings.simplefilter("ignore")
    m = np.load(path)
    df = pd.DataFrame(m, columns=[f"R{g}" for g in range(m.shape[1])])
    out = {}
    for w in weights:
        t0 = time.perf_counter()
        cac = CAC(df.copy(), weights=w, digits=15)
        res = {meth: getattr(cac, meth)()["est"] for meth in METHODS}
        secs = time.perf_counter() - t0
        out[w] = {"seconds": secs}
        for meth, e in res.items():
            out[w][meth] = dict(estimate=float(e["coefficient_value"]), se=float(e["se"]),
                                ci_low=float(e["confidence_interval"][0]), ci_high=float(e["confidence_interval"][1]),
                                p_value=float(e["p_value"]))
    print(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
