"""The command line is derived from the API: every option's default and help come from the library function it is
handed to, and the choices the command line declares are the ones the library accepts (its `OptionError.choices`)."""
import argparse

import pandas as pd
import pytest

from crowdnb import agreement, coref, crowdtruth_v1, model_b, ratings, spans, trust
from crowdnb.cli import build_parser, option_spec
from crowdnb.core import OptionError, as_judgments

DF = pd.DataFrame({"unit": [1, 1, 2, 2], "worker": ["a", "b", "a", "b"], "label": [1, 2, 2, 2]})
SPANS = pd.DataFrame({"doc": ["d", "d"], "annotator": ["x", "y"], "start": [0, 0], "end": [2, 2], "label": ["A", "A"]})
CONLL = "#begin document (d); part 000\nd 0 0 A (1)\n#end document\n"


def _subparsers():
    return next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices


def _choices(command, flag):
    return _subparsers()[command]._option_string_actions[flag].choices


# (command, flag, a call of the library with the option set to `v`)
CALLS = [
    ("kappa", "--weights", lambda v: agreement.cohen_kappa(DF, weights=v)),
    ("fleiss", "--missing-ratings", lambda v: agreement.fleiss_kappa(DF, missing=v)),
    ("trust", "--level", lambda v: trust.trust_coefficients(DF, level=v)),
    ("coref", "--malformed", lambda v: coref.read_conll(CONLL, malformed=v)),
    ("coref", "--blanc", lambda v: coref.score(coref.read_conll(CONLL), coref.read_conll(CONLL), blanc=v)),
    ("coref", "--missing-documents", lambda v: coref.score(coref.read_conll(CONLL), coref.read_conll(CONLL), missing=v)),
    ("dawid-skene", "--method", lambda v: model_b.ModelB(method=v)),
    ("crowdtruth-v1", "--subtract", lambda v: crowdtruth_v1.metrics(DF, subtract=v)),
    ("icc", "--method", lambda v: ratings.icc(DF, method=v)),
    ("spans", "--match", lambda v: spans.span_f1(SPANS, match=v)),
    ("spans", "--scheme", lambda v: spans.read_iob([], scheme=v)),
    ("alpha", "--empty", lambda v: as_judgments(DF, empty=v)),
    ("alpha", "--duplicates", lambda v: as_judgments(DF, duplicates=v)),
    ("alpha", "--format", lambda v: as_judgments(DF, format=v)),
]


@pytest.mark.parametrize("command, flag, call", CALLS, ids=[f"{c}{f}" for c, f, _ in CALLS])
def test_declared_choices_are_the_librarys(command, flag, call):
    with pytest.raises(OptionError) as e: call("no-such-choice")
    assert sorted(map(str, e.value.choices)) == sorted(_choices(command, flag))


def test_defaults_and_help_come_from_the_signature():
    subs = _subparsers()
    ds = subs["dawid-skene"]._option_string_actions
    assert ds["--max-iter"].default == model_b.ModelB().max_iter and ds["--tol"].default == model_b.ModelB().tol
    assert ds["--n-starts"].help.startswith(option_spec(model_b.ModelB, "n_starts")["help"])
    tr = subs["trust"]._option_string_actions
    assert tr["--max-workers"].default == trust.MAX_WORKERS
    assert subs["alpha"]._option_string_actions["--unit"].help.startswith("column of the unit (item) ids")


def test_no_message_parsing_left():
    import crowdnb.cli as cli
    src = open(cli.__file__).read()
    for gone in ("_flagged", "_OPTION_NAMES", "_KW", "_LEAD", "re.compile", "import re\n"):
        assert gone not in src, gone
