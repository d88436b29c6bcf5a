"""One front door: every user-facing method gives identical results whether the same judgments arrive as a
`Judgments`, as a long DataFrame with the caller's own column names, as a CSV path, or (single-label data)
through `Judgments.from_matrix`; and a DataFrame whose named columns are missing is an error that lists the
missing and the available columns, never a table read another way."""
import numpy as np
import pandas as pd
import pytest

from crowdnb.core import Judgments, as_judgments, simulate_crowd
from crowdnb import agreement, chance, crowdtruth, crowdtruth_v1, trust
from crowdnb.model_b import ModelB

SIM = simulate_crowd(n_units=40, n_workers=7, n_labels=3, workers_per_unit=4, spammer_fraction=0.3, seed=11)
RENAMED = dict(unit="sentence_id", worker="worker_id", label="relation")


def _ways(tmp_path):
    "The same judgments four ways: (name, data, input options)."
    df = SIM.judgments.rename(columns={"unit": RENAMED["unit"], "worker": RENAMED["worker"], "label": RENAMED["label"]})
    path = tmp_path / "judgments.csv"
    df.to_csv(path, index=False)
    wide = SIM.judgments.pivot(index="unit", columns="worker", values="label")
    return [("Judgments", as_judgments(SIM.judgments, labels=SIM.labels), {}),
            ("long DataFrame", df, dict(RENAMED, labels=SIM.labels)),
            ("CSV path", path, dict(RENAMED, labels=SIM.labels)),
            ("from_matrix", Judgments.from_matrix(wide, labels=SIM.labels), {})]


def _same(a, b):
    "Equal results: floats to 1e-12, frames and series by value and index, results by their tables."
    if isinstance(a, (pd.DataFrame, pd.Series)):
        pd.testing.assert_index_equal(a.index, b.index)
        if isinstance(a, pd.DataFrame): pd.testing.assert_index_equal(a.columns, b.columns)
        num = a.select_dtypes("number").columns if isinstance(a, pd.DataFrame) else None
        if isinstance(a, pd.Series):
            if pd.api.types.is_numeric_dtype(a): np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), atol=1e-12, rtol=0)
            else: assert a.tolist() == b.tolist()
        else:
            np.testing.assert_allclose(a[num].to_numpy(float), b[num].to_numpy(float), atol=1e-12, rtol=0)
            rest = [c for c in a.columns if c not in num]
            assert a[rest].astype(str).equals(b[rest].astype(str))
    else:
        assert a == pytest.approx(b, abs=1e-12)


METHODS = {
    "krippendorff_alpha": lambda d, kw: agreement.krippendorff_alpha(d, **kw),
    "alpha_bootstrap": lambda d, kw: agreement.alpha_bootstrap(d, n_boot=50, seed=1, **kw).samples.mean(),
    "fleiss_kappa": lambda d, kw: agreement.fleiss_kappa(d, **kw),
    "fleiss_kappa gwet": lambda d, kw: agreement.fleiss_kappa(d, missing="gwet", **kw),
    "cohen_kappa": lambda d, kw: agreement.cohen_kappa(d, workers=("w0", "w1"), **kw),
    "pairwise_agreement": lambda d, kw: agreement.pairwise_agreement(d, **kw).pairs,
    "unit_value_counts": lambda d, kw: agreement.unit_value_counts(d, **kw),
    "coefficient_table": lambda d, kw: chance.coefficient_table(d, **kw),
    "gwet_ac": lambda d, kw: chance.gwet_ac(d, **kw).estimate,
    "trust_coefficients": lambda d, kw: trust.trust_coefficients(d, **kw),
    "crowdtruth.run workers": lambda d, kw: crowdtruth.run(d, **kw).workers,
    "crowdtruth.run units": lambda d, kw: crowdtruth.run(d, **kw).units.drop(columns=["uas", "uas_initial"], errors="ignore"),
    "crowdtruth_v1.metrics": lambda d, kw: crowdtruth_v1.metrics(d, **kw).workers,
    "ModelB theta_": lambda d, kw: ModelB(seed=0).fit(d, **kw).theta_,
    "ModelB posterior_": lambda d, kw: ModelB(seed=0).fit(d, **kw).posterior_,
    "ModelB labels_": lambda d, kw: ModelB(seed=0).fit_predict(d, **kw),
}


@pytest.mark.parametrize("method", list(METHODS))
def test_four_ways_identical(method, tmp_path):
    fn = METHODS[method]
    ways = _ways(tmp_path)
    first = fn(ways[0][1], ways[0][2])
    for name, data, kw in ways[1:]:
        try: _same(first, fn(data, kw))
        except AssertionError as e: raise AssertionError(f"{method}: {name} differs from Judgments: {e}") from None


@pytest.mark.parametrize("method", list(METHODS))
def test_long_table_never_read_another_way(method):
    "The table of the user report (sentence_id, worker_id, relation) without column options: an error listing both."
    df = SIM.judgments.rename(columns={"unit": RENAMED["unit"], "worker": RENAMED["worker"], "label": RENAMED["label"]})
    before = df.copy(deep=True)
    with pytest.raises(ValueError) as e: METHODS[method](df, {})
    msg = str(e.value)
    assert "unit='unit'" in msg and "['sentence_id', 'worker_id', 'relation']" in msg, msg
    pd.testing.assert_frame_equal(df, before)


@pytest.mark.parametrize("method", list(METHODS))
def test_arrays_are_refused(method):
    "A bare matrix is not judgments: the error points to the wide door."
    with pytest.raises(TypeError, match="from_matrix"):
        METHODS[method](np.zeros((3, 4)), {})
