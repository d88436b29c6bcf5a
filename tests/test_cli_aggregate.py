"crowdnb aggregate: the files it writes equal the estimator's attributes; errors are one line phrased in flags."
import numpy as np
import pandas as pd
import pytest

from crowdnb.cli import main
from crowdnb.core import simulate_crowd
from crowdnb.aggregation import DawidSkene, KOS


@pytest.fixture
def crowd(tmp_path):
    sim = simulate_crowd(60, 8, 3, 5, seed=1)
    sim.judgments.to_csv(tmp_path / "crowd.csv", index=False)
    sim.truth.rename("label").rename_axis("unit").to_csv(tmp_path / "gold.csv")
    return sim, tmp_path


@pytest.mark.parametrize("method,Est", [("ds", lambda: DawidSkene(seed=0)), ("kos", lambda: KOS(seed=0))])
def test_aggregate_writes_tables(crowd, method, Est, capsys):
    sim, tmp = crowd
    assert main(["aggregate", str(tmp / "crowd.csv"), "--method", method, "--seed", "0", "--n-boot", "30",
                 "--gold", str(tmp / "gold.csv"), "--out", str(tmp / "o")]) == 0
    est = Est().fit(tmp / "crowd.csv")
    w = pd.read_csv(tmp / "o" / "workers.csv", index_col=0)
    np.testing.assert_allclose(w["theta"], est.theta_[w.index], atol=1e-12)
    ci = est.theta_interval(n_boot=30, seed=0)
    np.testing.assert_allclose(w[["ci_low", "ci_high"]], ci.loc[w.index, ["ci_low", "ci_high"]], atol=1e-12)
    lab = pd.read_csv(tmp / "o" / "labels.csv", index_col=0)
    assert (lab["correct"] == (lab["label"] == sim.truth[lab.index])).all()
    assert sorted(p.name for p in (tmp / "o").iterdir()) == ["labels.csv", "posterior.csv", "workers.csv"]


@pytest.mark.parametrize("args,msg", [(["--gold", "{tmp}/bad.csv"], "crowdnb: error: --gold"),
                                      (["--gold", "{tmp}/none.csv"], "crowdnb: error: --gold file"),
                                      (["--n-boot", "0"], "crowdnb: error: --n-boot")])
def test_aggregate_errors(crowd, args, msg, capsys):
    _, tmp = crowd
    pd.DataFrame({"unit": ["zz"], "label": ["L0"]}).to_csv(tmp / "bad.csv", index=False)
    status = main(["aggregate", str(tmp / "crowd.csv"), *[a.format(tmp=tmp) for a in args]])
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith(msg), err
    assert len(err.strip().splitlines()) == 1, err
