"""The methods on a dask DataFrame (crowdnb.dask's executor on a local cluster of two worker processes): every number
equals the in-memory path on the same data (the independent source here) to 1e-10. The methods are written once
(crowdnb.engine); these tests check that the executors agree. Skipped when dask, distributed or pyarrow are absent."""
import warnings

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from crowdnb import agreement, crowdtruth
from crowdnb.core import simulate_crowd
from crowdnb.model_b import ModelB
import crowdnb.dask as cd

EPS = 1e-10


@pytest.fixture(scope="module")
def client():
    "A local cluster: 2 worker processes, 1 thread each (the functions pick the active Client up themselves)."
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def crowd():
    "A simulated crowd in time order (a unit's judgments scattered over partitions), plus one unit with one judgment."
    sim = simulate_crowd(n_units=160, n_workers=12, n_labels=4, workers_per_unit=5, seed=11)
    df = sim.judgments.sample(frac=1.0, random_state=1).reset_index(drop=True)
    df = pd.concat([df, pd.DataFrame({"unit": ["lone"], "worker": [df.worker[0]], "label": ["L1"]})], ignore_index=True)
    return df, sim.labels


def _ddf(df, n=3):
    return dd.from_pandas(df, npartitions=n, sort=False)


def close(a, b, eps=EPS):
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.nanmax(np.abs(a - b), initial=0.0) <= eps, np.nanmax(np.abs(a - b))


def same_crowdtruth(a, b):
    assert len(a.history) == len(b.history) and a.converged == b.converged
    close(a.history, b.history)
    assert list(a.workers.index) == list(b.workers.index) and list(a.workers.columns) == list(b.workers.columns)
    close(a.workers, b.workers)
    assert list(a.annotations.index) == list(b.annotations.index)
    close(a.annotations, b.annotations)
    u = b.units.compute().sort_index()
    assert list(u.index) == list(a.units.index)
    close(u[["uqs", "uqs_initial", "judgments"]], a.units[["uqs", "uqs_initial", "judgments"]])
    for x, y in zip(b.uas_dicts(), a.uas_dicts()):
        assert list(x) == list(y)
        close(list(x.values()), list(y.values()))
    close(b.uas.compute().sort_index(), a.uas)
    for k in ("wqs", "wwa", "wsa", "aqs"):
        close(b.trace[-1][k], a.trace[-1][k])


@pytest.mark.parametrize("kw", [dict(labels=["L0", "L1", "L2", "L3"], tol=1e-4),
                                dict(labels=["L0", "L1", "L2", "L3"], reference=True),
                                dict(single="drop", tol=1e-4)], ids=["closed", "reference", "open-drop"])
def test_crowdtruth_same_numbers(client, crowd, kw):
    df, _ = crowd
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # both paths warn about the unit with one judgment
        a = crowdtruth.run(df, **kw)
        b = crowdtruth.run(_ddf(df), **kw)
    same_crowdtruth(a, b)


def test_crowdtruth_multi_label_and_own_columns(client):
    sim = simulate_crowd(n_units=50, n_workers=8, n_labels=4, workers_per_unit=4, multi_label=True, seed=2)
    df = sim.judgments.rename(columns={"unit": "sentence", "worker": "annotator", "label": "relations"})
    kw = dict(unit="sentence", worker="annotator", label="relations", sep="|", labels=sim.labels, tol=1e-4)
    same_crowdtruth(crowdtruth.run(df, **kw), crowdtruth.run(_ddf(df, 4), **kw))


def test_crowdtruth_warnings_and_errors(client, crowd):
    df, _ = crowd
    with pytest.warns(UserWarning, match="1 unit.* with a single judgment"):
        crowdtruth.run(_ddf(df), max_iter=2, tol=1e-12)
    one = df[df.unit == "lone"]
    with pytest.raises(ValueError, match="every unit has a single judgment"):
        crowdtruth.run(_ddf(one, 1))
    twice = pd.concat([df, df.iloc[[3]]], ignore_index=True)       # a duplicate only the shuffle brings together
    with pytest.raises(ValueError, match="duplicate judgments .* e.g. unit="):
        crowdtruth.run(_ddf(twice, 2))


@pytest.mark.parametrize("kw", [dict(max_iter=30), dict(n_starts=2, init="random", seed=0, max_iter=12),
                                dict(method="smoothed", max_iter=15)], ids=["vote", "random-starts", "smoothed"])
def test_model_b_same_numbers(client, crowd, kw):
    df, _ = crowd
    kw = kw | dict(accelerate=False)             # plain EM: the same path step by step (SQUAREM: see below)
    a, b = ModelB(**kw).fit(df), ModelB(**kw).fit(_ddf(df))
    assert (a.n_iter_, a.converged_) == (b.n_iter_, b.converged_)
    assert a.runs_.n_iter.tolist() == b.runs_.n_iter.tolist()
    close(a.log_lik_, b.log_lik_, EPS * abs(a.log_lik_))
    for k in ("gamma_", "confusion_", "theta_"):
        assert getattr(a, k).index.equals(getattr(b, k).index)
        close(getattr(a, k), getattr(b, k))
    post = b.posterior_.compute().sort_index()
    assert list(post.index) == list(a.posterior_.index) and list(post.columns) == list(a.posterior_.columns)
    close(post, a.posterior_)
    assert b.labels_.compute().sort_index().tolist() == a.labels_.tolist()
    close(a.optima_.select_dtypes("number"), b.optima_.select_dtypes("number"), 1e-8)


def test_model_b_accelerated_same_optimum(crowd):
    "SQUAREM's accept test compares log-likelihoods equal to rounding near the optimum: the optimum is the same."
    df, _ = crowd
    a = ModelB(accelerate=True, tol=1e-12).fit(df)
    with dask.config.set(scheduler="threads"):                # many cheap iterations: dask's local scheduler
        b = ModelB(accelerate=True, tol=1e-12).fit(_ddf(df))
    for k in ("gamma_", "confusion_", "theta_"):
        close(getattr(a, k), getattr(b, k))
    close(b.posterior_.compute().sort_index(), a.posterior_, 1e-9)        # posteriors: steeper functions of (γ, Λ)


def test_model_b_errors(crowd):
    df, _ = crowd
    with pytest.raises(NotImplementedError, match="in-memory only"):
        ModelB(method="anneal").fit(_ddf(df))
    per_q = pd.concat([df.assign(q="a"), df.assign(q="b")], ignore_index=True)
    with pytest.raises(ValueError, match="select one dimension first"):
        ModelB(max_iter=2).fit(_ddf(per_q), dimension="q")


def test_alpha_same_numbers(client, crowd):
    df, labels = crowd
    num = df.assign(label=df.label.str[1:].astype(int) + 1)
    words, numbers = cd.judgments(_ddf(df), labels=labels).persist(), cd.judgments(_ddf(num)).persist()
    for level in ("nominal", "ordinal"):
        close(agreement.krippendorff_alpha(words, level), agreement.krippendorff_alpha(df, level, labels=labels), 1e-12)
    for level in ("interval", "ratio"):
        close(agreement.krippendorff_alpha(numbers, level), agreement.krippendorff_alpha(num, level), 1e-12)
    close(agreement.krippendorff_alpha(_ddf(df), "ordinal", labels=labels),      # the front door dispatches
          agreement.krippendorff_alpha(df, "ordinal", labels=labels), 1e-12)


def test_fleiss_same_numbers(client, crowd):
    df, _ = crowd
    close(agreement.fleiss_kappa(_ddf(df)), agreement.fleiss_kappa(df), 1e-12)
    close(agreement.fleiss_kappa(_ddf(df, 5)), agreement.fleiss_kappa(df), 1e-12)
    with pytest.raises(NotImplementedError, match="in-memory only"):
        agreement.fleiss_kappa(_ddf(df), missing="gwet")


def test_parquet_folder(client, crowd, tmp_path):
    "Judgments written as a partitioned Parquet folder in chunks, read lazily: the same scores."
    df, labels = crowd
    for i, start in enumerate(range(0, len(df), 250)):
        df.iloc[start:start + 250].to_parquet(tmp_path / f"part-{i:03d}.parquet")
    judged = dd.read_parquet(tmp_path)
    dj = cd.judgments(judged, labels=labels)
    assert list(dj.workers) == sorted(df.worker.unique()) and list(dj.labels) == labels
    close(agreement.krippendorff_alpha(dj), agreement.krippendorff_alpha(df, labels=labels), 1e-12)
    a = ModelB(accelerate=False, max_iter=20).fit(df, labels=labels)
    b = ModelB(accelerate=False, max_iter=20).fit(judged, labels=labels)
    close(a.confusion_, b.confusion_)


def test_validation_names_the_partition(crowd):
    df, labels = crowd
    bad = df.copy(); bad.loc[len(bad) - 1, "label"] = "L9"
    with pytest.raises(ValueError, match="partition 2 of the judgments: label column 'label' has labels outside"):
        cd.judgments(_ddf(bad), labels=labels)
    with pytest.raises(ValueError, match="lacks the column"):
        cd.judgments(_ddf(df), worker="rater")
    with pytest.raises(TypeError, match="takes a dask DataFrame"):
        cd.judgments(df)


def test_in_memory_tables_unaffected(crowd):
    "The dispatch leaves pandas input on the in-memory path (no dask import needed for it)."
    df, _ = crowd
    assert np.isfinite(agreement.krippendorff_alpha(df)) and np.isfinite(agreement.fleiss_kappa(df))


# ---- the front doors read a dask DataFrame themselves
def test_crowdtruth_run_entry_point(client, crowd):
    df, labels = crowd
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_crowdtruth(crowdtruth.run(df, labels=labels), crowdtruth.run(_ddf(df), labels=labels))


def test_model_b_fit_entry_point(client, crowd):
    df, _ = crowd
    a, b = ModelB(accelerate=False, max_iter=20).fit(df), ModelB(accelerate=False, max_iter=20).fit(_ddf(df))
    close(a.confusion_, b.confusion_)
    close(b.posterior_.compute().sort_index(), a.posterior_)


def test_two_analyses_on_one_cluster_keep_their_own_options(client, crowd):
    "Regression: the options were scattered key by key under their own names, so a second run read the first's."
    df, labels = crowd
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        crowdtruth.run(_ddf(df), max_iter=3)                               # open-ended first
        same_crowdtruth(crowdtruth.run(df, labels=labels), crowdtruth.run(_ddf(df), labels=labels))   # then closed


def test_dask_judgments_through_the_front_door(client, crowd):
    "as_judgments reads a dask DataFrame into DaskJudgments (and passes them through); the executor is Dask's."
    from crowdnb.core import as_judgments
    df, labels = crowd
    dj = as_judgments(_ddf(df), labels=labels)
    assert type(dj).__name__ == "DaskJudgments" and as_judgments(dj) is dj
    assert type(dj.executor()).__name__ == "DaskExecutor"
    with pytest.raises(TypeError, match="already validated"):
        as_judgments(dj, sep="|")


def test_a_lost_keeper_is_an_error_not_a_hang(client, crowd, monkeypatch):
    """Regression: a keeper gone from its worker (seen once under load) left the next step waiting forever, because
    distributed's actor handle only logs the failed call. Now the call fails at once, naming the worker."""
    import time
    df, labels = crowd
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = crowdtruth.run(_ddf(df), labels=labels, max_iter=2)
    ex = r.executor
    states = ex.hold(r.states)                  # the result's states, kept by the keepers again
    addr = states[0].addr
    key = ex.keepers[addr].key
    assert client.run(cd.holds_keeper, key, workers=[addr])[addr] is True
    client.run(lambda dask_worker: dask_worker.state.actors.pop(key), workers=[addr])   # the keeper vanishes
    assert ex.keeper_alive(addr) is False
    monkeypatch.setattr(cd, "KEEPER_POLL", 0.2)
    w, a = np.ones(len(r.workers)), np.ones(len(r.annotations))
    t0 = time.perf_counter()
    with pytest.raises(RuntimeError, match=f"keeper on worker {addr} is gone"):
        ex.step(crowdtruth.crowd_step, states, w, a, r.cfg, 0)
    assert time.perf_counter() - t0 < 30


@pytest.mark.filterwarnings("ignore:1 unit")
def test_keeper_calls_through_the_scheduler_give_the_same_numbers(client, crowd):
    """A client that may not call the workers (`direct_to_workers=False`) sends each keeper call through the
    scheduler: the same numbers as in memory. The module's client, on a LocalCluster, calls them straight."""
    df, labels = crowd
    with distributed.Client(client.scheduler.address, direct_to_workers=False) as proxied:
        r = crowdtruth.run(_ddf(df), labels=labels)
        assert r.executor.client is proxied and r.executor.direct is False
        same_crowdtruth(crowdtruth.run(df, labels=labels), r)
    r = crowdtruth.run(_ddf(df), labels=labels)
    assert r.executor.client is client and r.executor.direct is True


def test_hold_spreads_the_states_over_the_workers(client):
    "Regression: states made on one worker stayed there, and every iteration waited for that worker alone."
    workers = sorted(client.scheduler_info()["workers"])
    ex = cd.DaskExecutor(client)
    made = client.map(lambda k: k * 10, range(4), workers=[workers[0]], pure=False)   # all four on one worker
    held = ex.hold(made)
    assert sorted(h.addr for h in held) == sorted(workers * 2)
    assert [ex.call("get", {h.addr: (h.name,)})[0][h.addr] for h in held] == [0, 10, 20, 30]


def test_short_steps_run_on_the_workers_event_loop(client, monkeypatch):
    """A step runs in the worker's actor thread first; once a keeper's last step took less than KEEPER_INLINE, the
    next runs on the worker's event loop (no thread hand-off); with KEEPER_INLINE = 0, always in the thread."""
    def where(state):                                       # 1 on the worker's event loop, 0 in another thread
        import threading
        from distributed import get_worker
        return state, dict(max_loop=int(threading.get_ident() == get_worker().thread_id), steps=1)
    ex = cd.DaskExecutor(client)
    held = ex.hold(client.map(lambda k: k, range(4), pure=False))
    seen = []
    for _ in range(3):
        held, t = ex.step(where, held)
        seen.append((t["max_loop"], t["steps"]))
    assert seen == [(0, 4), (1, 4), (1, 4)]
    monkeypatch.setattr(cd, "KEEPER_INLINE", 0.0)
    assert ex.step(where, held)[1]["max_loop"] == 0


def _aggregators():
    from crowdnb.aggregation import GLAD, KOS, MACE, MMSR, MajorityVote, OneCoinDawidSkene, Wawa, ZeroBasedSkill
    return [lambda: MajorityVote(seed=0), lambda: Wawa(seed=0), lambda: ZeroBasedSkill(seed=0),
            lambda: OneCoinDawidSkene(seed=0), lambda: MACE(seed=0, n_starts=2, n_iter=20), lambda: GLAD(seed=0),
            lambda: KOS(seed=0, n_iter=10), lambda: MMSR(seed=0)]


@pytest.mark.parametrize("k", range(8))
def test_aggregators_on_the_cluster_same_numbers(client, crowd, k):
    """Every aggregation model on the cluster (its sums by the keepers, one call per worker and iteration) equals the
    in-memory fit: skills, and the posteriors or scores per unit."""
    df, _ = crowd
    df = df[df.unit != "lone"]
    est = _aggregators()[k]
    a, b = est().fit(df), est().fit(_ddf(df))
    close(a.theta_, b.theta_.reindex(a.theta_.index))
    for name in ("posterior_", "scores_"):
        if getattr(a, name, None) is not None:
            got = getattr(b, name)
            got = got.compute() if hasattr(got, "compute") else got
            close(getattr(a, name), got.reindex(getattr(a, name).index))


def test_sums_over_futures_go_through_the_keepers_once_held(client):
    """`sum` over futures on a cluster: the keepers adopt the states once (the same handles while the futures live)
    and sum them, one call per worker; before, every iteration of a sum-based method went through the scheduler."""
    ex = cd.DaskExecutor(client)
    states = client.map(lambda k: k, range(4), pure=False)
    twice = lambda st, k: dict(total=k * st)
    assert ex.sum(twice, states, 2) == dict(total=12) and ex.sum(twice, states, 3) == dict(total=18)
    held = [ex.holding[f] for f in states]
    assert ex.hold(states) == held and set(ex.took) == {h.addr for h in held}
    del states
    import gc; gc.collect()
    assert len(ex.holding) == 0                                        # the futures gone, their handles go too
