"Bad inputs of crowdnb.aggregation: a clear error, or a documented result."
import warnings

import numpy as np
import pandas as pd
import pytest

from crowdnb.aggregation import MajorityVote, Wawa, OneCoinDawidSkene, MACE, GLAD, DawidSkene, KOS, MMSR, compare

ALL = [MajorityVote, Wawa, OneCoinDawidSkene, MACE, GLAD, KOS, MMSR]


@pytest.mark.parametrize("Est", ALL)
def test_one_worker(Est):
    "One worker: the model has nothing to compare them with; their answers become the labels."
    df = pd.DataFrame({"unit": ["a", "b", "c"], "worker": "x", "label": ["p", "q", "p"]})
    if Est is KOS:       # no unit links two workers: every message is 0, every unit a tie (documented, warned)
        with pytest.warns(UserWarning, match="tie"):
            assert len(KOS(seed=0).fit(df).ties_) == 3
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # MMSR warns that no two workers met
        est = Est(seed=0).fit(df)
    assert list(est.labels_.sort_index()) == ["p", "q", "p"]


def test_one_label():
    "One label: every unit gets it; GLAD (wrong answers spread over K - 1 others) refuses, naming the way out."
    df = pd.DataFrame({"unit": ["a", "b"], "worker": ["x", "y"], "label": ["p", "p"]})
    assert (MajorityVote(seed=0).fit(df).labels_ == "p").all()
    with pytest.raises(ValueError, match="labels="):
        GLAD().fit(df)
    assert (GLAD(n_iter=3).fit(df, labels=["p", "q"]).labels_ == "p").all()


def test_identical_workers():
    df = pd.DataFrame({"unit": list("aabbcc"), "worker": list("xyxyxy"), "label": list("ppqqpp")})
    for Est in ALL:
        est = Est(seed=0).fit(df)
        assert list(est.labels_.sort_index()) == ["p", "q", "p"]
        assert np.isclose(est.theta_["x"], est.theta_["y"])


def test_unit_with_one_answer():
    df = pd.DataFrame({"unit": ["a", "a", "a", "b"], "worker": ["x", "y", "z", "x"], "label": ["p", "p", "q", "q"]})
    for Est in ALL:
        est = Est(seed=0).fit(df)
        if Est is KOS:   # KOS: a lone answer's message comes from the worker's other units, here 0 after two rounds: a tie
            assert "b" in est.ties_
        else:
            assert est.labels_["b"] == "q"


def test_n_boot_zero():
    df = pd.DataFrame({"unit": ["a", "a"], "worker": ["x", "y"], "label": ["p", "q"]})
    with pytest.raises(ValueError, match="n_boot"):
        MajorityVote(seed=0).fit(df).theta_interval(n_boot=0)


def test_gold_unknown_units():
    df = pd.DataFrame({"unit": ["a", "a"], "worker": ["x", "y"], "label": ["p", "q"]})
    with pytest.raises(ValueError, match="zz"):
        compare(df, gold=pd.Series({"a": "p", "zz": "q"}), methods=["majority"])


def test_bad_options():
    with pytest.raises(ValueError, match="ties"):
        MajorityVote(ties="first")
    with pytest.raises(ValueError, match="method"):
        MACE(method="gibbs")
    with pytest.raises(ValueError, match="methods"):
        compare(pd.DataFrame({"unit": ["a"], "worker": ["x"], "label": ["p"]}), methods=["nope"])


def test_multi_label_refused():
    df = pd.DataFrame({"unit": ["a"], "worker": ["x"], "label": ["p|q"]})
    with pytest.raises(ValueError, match="one label per judgment"):
        MACE().fit(df, sep="|")
