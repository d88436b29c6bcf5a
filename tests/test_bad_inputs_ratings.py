"""Bad input to crowdnb.ratings (icc, set distances, label_agreement): each case asserts the exception type, that the
message names the culprit, and that the caller's DataFrame is unchanged."""
import numpy as np
import pandas as pd
import pytest

from crowdnb.agreement import UndefinedAgreement
from crowdnb.ratings import icc

R = pd.DataFrame({"item": np.repeat(["a", "b", "c"], 2), "coder": ["x", "y"] * 3, "score": [1, 2, 3, 3, 5, 4]})
O = dict(unit="item", worker="coder", label="score")


def unchanged(call, df=R):
    before = df.copy()
    out = call(df)
    pd.testing.assert_frame_equal(df, before)
    return out


def test_icc_text_ratings():
    with pytest.raises(TypeError, match="icc needs numeric ratings; the label column holds 'bad'"):
        unchanged(lambda d: icc(d.assign(score=["bad", "1", "2", "3", "4", "5"]), **O))


def test_icc_one_rater_one_unit():
    with pytest.raises(ValueError, match="at least two workers .* \\('x'\\)"):
        icc(R[R.coder == "x"], **O)
    with pytest.raises(ValueError, match="at least two units; .* \\('a'\\)"):
        icc(R[R.item == "a"], **O)


def test_icc_zero_variance():
    with pytest.raises(UndefinedAgreement, match="every rating is 2.0 \\(no variance\\)"):
        icc(R.assign(score=2), **O)


def test_icc_multi_label_and_duplicates():
    with pytest.raises(ValueError, match="one rating per judgment"):
        icc(R.assign(score=["1|2", "2", "3", "3", "5", "4"]), sep="|", **O)
    with pytest.raises(ValueError, match="duplicate judgments"):
        icc(pd.concat([R, R]), **O)


def test_icc_options():
    with pytest.raises(ValueError, match="method must be one of"):
        icc(R, method="ml", **O)
    with pytest.raises(ValueError, match="ci must be in \\(0, 1\\); got 0"):
        icc(R, ci=0, **O)
    with pytest.raises(ValueError, match="method='anova' needs every worker to rate every unit; 1 of 6"):
        icc(R.iloc[1:], method="anova", **O)
