"""Distances between answers (crowdnb.distances) in the coefficient table and the bootstrap intervals: hand values,
identities with the weights and with Krippendorff's alpha of crowdnb.agreement, and the refusals."""
import warnings

import numpy as np
import pandas as pd
import pytest

from crowdnb.agreement import alpha_bootstrap, krippendorff_alpha
from crowdnb.chance import DISTANCE_COEFFICIENTS, coefficient_table
from crowdnb.distances import jaccard_distance, masi_distance

MULTI = pd.DataFrame({"unit": [1, 1, 1, 2, 2, 2, 3, 3], "worker": list("abcabcab"),
                      "label": ["x|y", "x", "x|y", "z", "y|z", "x", "y", "y"]})
ABC = pd.DataFrame({"unit": [1, 1, 2, 2, 3, 3], "worker": list("vwvwvw"), "label": list("abaabc")})
D = pd.DataFrame([[0, 0.5, 1], [0.5, 0, 0.5], [1, 0.5, 0]], index=list("abc"), columns=list("abc"))
# the same answers within each unit, three different answers across units
SAME = pd.DataFrame({"unit": np.repeat(np.arange(12), 2), "worker": list("ab") * 12,
                     "label": np.repeat(["x|y", "z", "x"] * 4, 2)})


def table(data, level, **kw):
    return coefficient_table(data, level=level, coefficients=DISTANCE_COEFFICIENTS, sep="|", **kw)


@pytest.mark.parametrize("level, alpha, pa", [
    ("masi", 32 / 95, 5 / 9),                        # by hand, nbs/20_agreement.ipynb and nbs/22_chance.ipynb
    ("jaccard", 79 / 226, 11 / 18),
    (masi_distance, 32 / 95, 5 / 9),                 # a callable: the same distances pair by pair
    (jaccard_distance, 79 / 226, 11 / 18),
])
def test_hand_values(level, alpha, pa):
    t = table(MULTI, level)
    assert list(t.index) == ["Fleiss' kappa", "Conger's kappa", "Krippendorff's alpha", "Percent agreement"]
    assert abs(t.loc["Krippendorff's alpha", "estimate"] - alpha) < 1e-14
    assert abs(t.loc["Percent agreement", "estimate"] - pa) < 1e-14
    assert set(t["weights"]) == {level if isinstance(level, str) else "custom distance"}


def test_matrix_over_single_labels_hand_values_and_identity():
    t = coefficient_table(ABC, level=D)
    assert len(t) == 6                                           # a matrix over the labels is a weights matrix
    assert abs(t.loc["Percent agreement", "estimate"] - 2 / 3) < 1e-14          # (1/2 + 1 + 1/2) / 3
    assert abs(t.loc["Brennan-Prediger", "estimate"] - 1 / 4) < 1e-14           # pe = T_w / q^2 = 5/9
    pd.testing.assert_frame_equal(t.drop(columns="weights"), coefficient_table(ABC, 1 - D).drop(columns="weights"))
    arr = coefficient_table(ABC, level=D.to_numpy())                  # an array in label order
    pd.testing.assert_frame_equal(arr, t)
    fn = coefficient_table(ABC, level=lambda a, b: D.loc[a, b])       # a callable on single labels: the labels
    pd.testing.assert_frame_equal(fn, t)


@pytest.mark.parametrize("seed", [0, 1])
def test_krippendorff_row_is_the_alpha_of_agreement(seed):
    "Gwet's formulation with weights 1 - d equals Krippendorff's alpha from the coincidence matrix (another code path)."
    rng = np.random.default_rng(seed)
    rows = [(u, w, "|".join(sorted(rng.choice(list("abcde"), rng.integers(1, 4), replace=False))))
            for u in range(60) for w in range(4) if rng.random() < 0.8]
    df = pd.DataFrame(rows, columns=["unit", "worker", "label"])
    for level in ("masi", "jaccard"):
        t = table(df, level)
        assert abs(t.loc["Krippendorff's alpha", "estimate"] - krippendorff_alpha(df, level=level, sep="|")) < 1e-12


def test_undefined_rows_default_warns_and_asking_raises():
    with pytest.warns(UserWarning, match=r"coefficients \['gwet', 'brennan_prediger'\] are left out: .*2\^L subsets"):
        t = coefficient_table(MULTI, level="masi", sep="|")
    assert list(t.index) == ["Fleiss' kappa", "Conger's kappa", "Krippendorff's alpha", "Percent agreement"]
    for asked in ("gwet", ["fleiss", "brennan_prediger"]):
        with pytest.raises(ValueError, match="not defined for a distance between sets of labels"):
            coefficient_table(MULTI, level="masi", coefficients=asked, sep="|")
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                 # asking for the defined rows: no warning
        table(MULTI, "masi")
        coefficient_table(ABC, level=D)                                # single labels: every row defined


def test_bootstrap_with_a_set_distance():
    with pytest.warns(UserWarning, match="bootstrap samples leave it undefined"):     # 3 units: some resamples agree
        t = table(MULTI, "masi", se="bootstrap", n_boot=300, seed=4)
    with pytest.warns(UserWarning, match="bootstrap samples leave it undefined"):
        pd.testing.assert_frame_equal(t, table(MULTI, "masi", se="bootstrap", n_boot=300, seed=4))   # seeded
    assert (t["ci_low"] <= t["estimate"]).all() and (t["estimate"] <= t["ci_high"]).all()
    same = table(SAME, "jaccard", se="bootstrap", n_boot=200, seed=1)
    np.testing.assert_array_equal(same[["estimate", "ci_low", "ci_high"]].to_numpy(), 1.0)     # every resample: 1
    np.testing.assert_array_equal(same["se"].to_numpy(), 0.0)


def test_alpha_bootstrap_with_identical_answers_is_a_point():
    b = alpha_bootstrap(SAME, level="masi", sep="|", n_boot=200, seed=2, progress=False)
    assert b.alpha == 1.0 and b.low == b.high == 1.0 and (b.samples == 1.0).all()
    c = alpha_bootstrap(MULTI, level=masi_distance, sep="|", n_boot=200, seed=0, progress=False)
    assert abs(c.alpha - 32 / 95) < 1e-15 and c.low <= c.alpha <= c.high


@pytest.mark.parametrize("level, msg", [
    (np.array([[0, 1, 1], [0.5, 0, 1], [1, 1, 0]]), "is not symmetric: d('a', 'b') = 1.0 but d('b', 'a') = 0.5"),
    (1 - np.eye(3) + 0.1 * np.eye(3), "is not 0 between an answer and itself: d('a', 'a') = 0.1"),
    (lambda a, b: {}[a], "the distance function failed on ('a', 'a'): KeyError"),
    (2 * D, "must lie in [0, 1] (the weights are 1 - d): d('a', 'c') = 2.0"),
    (np.zeros((2, 2)), "must be 3 x 3"),
    ("nominal", "a measurement level goes in weights="),
])
def test_bad_distances_name_the_culprit(level, msg):
    before = ABC.copy()
    with pytest.raises(ValueError) as info:
        coefficient_table(ABC, level=level)
    assert msg in str(info.value)
    pd.testing.assert_frame_equal(ABC, before)


def test_set_distance_refusals():
    with pytest.raises(ValueError, match=r"failed on \(\{'x'\}, \{'x'\}\): ZeroDivisionError"):
        coefficient_table(MULTI, level=lambda a, b: 1 / 0, sep="|")
    with pytest.raises(ValueError, match="pass weights= or level=, not both"):
        coefficient_table(MULTI, "quadratic", level="masi", sep="|")
    with pytest.raises(ValueError, match="needs single-label judgments"):
        coefficient_table(MULTI, level=np.zeros((3, 3)), sep="|")
