"""Property-based tests of the core data model (hypothesis)."""
import os
import numpy as np, pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from crowdnb.core import Judgments, as_judgments, simulate_crowd, design_matrix, loop_design

matrices = st.integers(1, 8).flatmap(lambda n: st.integers(1, 6).flatmap(lambda m: st.lists(
    st.lists(st.integers(-1, 3), min_size=m, max_size=m), min_size=n, max_size=n)))

@settings(max_examples=60, deadline=None)
@given(matrices)
def test_matrix_round_trip(rows):
    "from_matrix then label_matrix gives back the labels where present and -1 elsewhere."
    m = np.array(rows)
    if (m == -1).all(): return
    j = Judgments.from_matrix(m, missing=-1)
    lm = j.label_matrix()
    back = np.full(m.shape, -1)
    back[np.ix_(np.asarray(j.units), np.asarray(j.workers))] = np.where(lm >= 0, np.asarray(j.labels)[lm], -1)
    assert (back == m).all()
    assert j.incidence().sum() == (m != -1).sum() == j.n_judgments

@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_arrays_invariant_to_row_order(seed, multi):
    "Shuffling the input rows changes no array (codes are sorted ids, not order of appearance)."
    sim = simulate_crowd(n_units=15, n_workers=6, workers_per_unit=3, n_labels=3, multi_label=multi, seed=seed)
    a = as_judgments(sim.judgments, sep="|")
    b = as_judgments(sim.judgments.sample(frac=1, random_state=seed), sep="|")
    order_a = np.lexsort((a.worker_code, a.unit_code)); order_b = np.lexsort((b.worker_code, b.unit_code))
    assert (a.work_vectors()[order_a] != b.work_vectors()[order_b]).nnz == 0
    assert (a.unit_vectors() != b.unit_vectors()).nnz == 0
    assert (a.incidence() != b.incidence()).nnz == 0

@settings(max_examples=25, deadline=None)
@given(st.integers(2, 12), st.integers(2, 5), st.integers(1, 200), st.integers(0, 99))
def test_design_balance(n_annot, size, n_items, seed):
    "Every item gets group_size annotators; group sizes differ by at most one item."
    if size > n_annot: return
    g, mask = design_matrix(n_items, loop_design(n_annot, size), seed=seed)
    assert (mask.sum(axis=1) == size).all()
    counts = np.bincount(g, minlength=n_annot)
    assert counts.max() - counts.min() <= 1

def test_input_not_mutated():
    df = pd.DataFrame({"unit": [1, 1, 2], "worker": ["a", "b", "a"], "label": ["x|y", None, "y"]})
    before = df.copy(deep=True)
    as_judgments(df, sep="|", empty="label", duplicates="count")
    pd.testing.assert_frame_equal(df, before)

def test_pair_judged_twice_and_named_time_column():
    "A (unit, worker) pair judged in two dimensions has no single label-matrix cell; a named time column must exist."
    import pytest
    df = pd.DataFrame({"unit": [1, 1, 2, 2], "worker": ["a", "a", "a", "b"], "dim": ["x", "y", "x", "x"], "label": [0, 1, 1, 1]})
    j = as_judgments(df, dimension="dim")
    assert j.repeated_pairs().tolist() == [0, 1]
    with pytest.raises(ValueError, match="select one dimension first"):
        j.label_matrix()
    assert as_judgments(df[df.dim == "x"], dimension="dim").label_matrix().tolist() == [[0, -1], [1, 1]]   # labels 0, 1 -> codes 0, 1
    with pytest.raises(ValueError, match="lacks the column"):
        as_judgments(df, dimension="dim", submitted="time")

answers = st.lists(st.sampled_from(["a", " b", "c ", "a|b", "b| c", "", "  ", None, "|a"]), min_size=1, max_size=30)

@settings(max_examples=60, deadline=None)
@given(answers, st.booleans(), st.sampled_from(["drop", "label"]))
def test_distinct_answer_path_matches_row_by_row(col, use_sep, empty):
    "as_judgments parses each distinct answer once; the same answers given as Python lists take the row-by-row path: same labels, same codes."
    import pytest
    sep = "|" if use_sep else None
    df = pd.DataFrame({"unit": np.arange(len(col)) // 3, "worker": [f" w{k % 3}" for k in range(len(col))], "label": col})
    split = lambda v: [] if v is None else ([p.strip() for p in v.split("|") if p.strip()] if sep else ([v.strip()] if v.strip() else []))
    as_lists = df.assign(label=[split(v) for v in col])
    try: a = as_judgments(df, sep=sep, empty=empty)
    except ValueError as e:
        with pytest.raises(ValueError, match="every answer is empty"): as_judgments(as_lists, empty=empty)
        return
    b = as_judgments(as_lists, empty=empty)
    assert list(a.labels) == list(b.labels) and list(a.frame["labels"]) == list(b.frame["labels"])
    assert set(a.workers) <= {"w0", "w1", "w2"}                # ids stripped per distinct id
    cached = a.label_codes()
    a._cache.clear()                                           # recomputed from the tuples
    for x, y, z in zip(cached, a.label_codes(), b.label_codes()): assert (x == y).all() and (y == z).all()
    assert a.multi_label == b.multi_label == any(len(t) > 1 for t in b.frame["labels"])

def test_closed_set_and_blank_ids_name_rows():
    "Checks on the distinct answers and ids still name every offending row (positions and CSV lines)."
    import pytest
    df = pd.DataFrame({"unit": ["u1", "u2", " ", "u1"], "worker": ["a", "b", "c", "d"], "label": ["x", "z", "x", "z"]})
    with pytest.raises(ValueError, match=r"unit column 'unit' has missing ids at row 2"):
        as_judgments(df, labels=["x"])
    with pytest.raises(ValueError, match=r"outside the declared set \('z'\) at rows 1, 3"):
        as_judgments(df.assign(unit=["u1", "u2", "u3", "u1"]), labels=["x"])

def test_progress_off_without_a_terminal_or_a_live_kernel(monkeypatch):
    "ipykernel merely imported (a test session that ran notebooks) is no live Jupyter: no bar without a terminal."
    import io, sys
    import ipykernel  # noqa: F401
    from crowdnb.core import show_progress
    monkeypatch.delenv("CROWDNB_PROGRESS", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert show_progress(None) is False
    assert show_progress(True) is True


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_thread_pool_in_a_forked_child():
    "A child forked after the pool ran gets a pool of its own (the parent's threads do not exist there: no hang)."
    from crowdnb.core import thread_pool
    assert thread_pool(2).submit(lambda: 1).result() == 1      # the parent's pool has started its threads
    pid = os.fork()
    if pid == 0:                                               # the child: exit 0 only if its pool works
        code = 1
        try: code = 0 if thread_pool(2).submit(lambda: 7).result(timeout=20) == 7 else 1
        finally: os._exit(code)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
