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


M = pd.DataFrame({"item": [1, 1, 2, 2], "coder": ["x", "y"] * 2, "tags": ["a|b", "a", "b", "b|c"]})
S = dict(unit="item", worker="coder", label="tags", sep="|")


@pytest.mark.parametrize("dist,msg", [
    (lambda a, b: 1.0, "is not 0 between an answer and itself: d({'a'}, {'a'}) = 1.0"),
    (lambda a, b: len(a) - len(b), "is negative"),
    (lambda a, b: float("nan"), "is not a finite number"),
    (lambda a, b: len(a - b), "is not symmetric"),
    (lambda a, b: {}["boom"], "the distance function failed on ({'a'}, {'a'}): KeyError"),
])
def test_bad_distances(dist, msg):
    from crowdnb.agreement import krippendorff_alpha
    with pytest.raises(ValueError, match=msg.replace("(", "\\(").replace(")", "\\)").replace("{", "\\{").replace("}", "\\}")):
        unchanged(lambda d: krippendorff_alpha(d, level=dist, **S), M)


def test_bad_distance_matrix_and_names():
    from crowdnb.agreement import krippendorff_alpha
    from crowdnb.ratings import label_agreement
    with pytest.raises(ValueError, match="needs single-label judgments"):
        krippendorff_alpha(M, level=np.zeros((3, 3)), **S)
    single = M.assign(tags=["a", "b", "b", "c"])
    with pytest.raises(ValueError, match="must be 3 x 3"):
        krippendorff_alpha(single, level=np.zeros((2, 2)), unit="item", worker="coder", label="tags")
    with pytest.raises(ValueError, match="lacks the label\\(s\\) \\['c'\\]"):
        krippendorff_alpha(single, level=pd.DataFrame(np.zeros((2, 2)), index=["a", "b"], columns=["a", "b"]),
                           unit="item", worker="coder", label="tags")
    with pytest.raises(ValueError, match="level must be one of"):
        krippendorff_alpha(M, level="masii", **S)
    with pytest.raises(ValueError, match="coefficient must be one of"):
        label_agreement(M, coefficient="kappa", **S)
    with pytest.raises(ValueError, match="at least two workers"):
        label_agreement(M[M.coder == "x"], **S)
