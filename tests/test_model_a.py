"""Model A (seed 001): property tests of Tables 2–8, the estimator and section 7; real-data smoke test."""
import itertools
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from conftest import shared
from crowdnb.core import Judgments, as_judgments, design_matrix, simulate_crowd
from crowdnb.model_a import (ModelA, T_STATES, A_TYPES, alphas, agreement_given_truth, values_given_agreement,
                             pattern_probability, joint_values_truth, truth_given_agreement, p_truth, triplets,
                             estimate_omega, joint_truth, joint_agreement, agreement_probability, rho_range,
                             cox_binary, model_tables, symbolic_posterior, sample, log_likelihood, fit_theta,
                             correctness, posterior_states, value_posterior, distinct_optima)

thetas = st.lists(st.floats(0.01, 0.99), min_size=3, max_size=3)
omegas = st.integers(2, 6).flatmap(lambda M: st.lists(st.floats(0.02, 1.0), min_size=M, max_size=M)).map(
    lambda w: np.asarray(w) / np.sum(w))

@settings(max_examples=60, deadline=None)
@given(thetas, omegas)
def test_tables_are_distributions(theta, omega):
    R = agreement_given_truth(alphas(omega))
    np.testing.assert_allclose(R.sum(-1), 1, atol=1e-12)
    assert (R >= -1e-12).all()
    B = values_given_agreement(omega)
    live = B.sum((1, 2, 3)) > 0
    np.testing.assert_allclose(B.sum((1, 2, 3))[live], 1, atol=1e-12)
    J = joint_values_truth(theta, omega)
    np.testing.assert_allclose(J.sum(), 1, atol=1e-12)
    np.testing.assert_allclose(J.sum(0), pattern_probability(theta, omega), atol=1e-14)
    post = truth_given_agreement(theta, alphas(omega))
    np.testing.assert_allclose(np.nansum(post, 0)[live], 1, atol=1e-12)

@settings(max_examples=40, deadline=None)
@given(thetas, omegas, omegas)
def test_table8_free_of_beta(theta, om1, om2):
    "P(T|V) from the full joint is the same for any β (any ω in Table 5) when the α's are held fixed."
    M = min(len(om1), len(om2))
    om1, om2 = om1[:M] / om1[:M].sum(), om2[:M] / om2[:M].sum()
    if M < 2: return
    a = alphas(om1)
    r1 = joint_values_truth(theta, om1, a) / pattern_probability(theta, om1, a)
    r2 = joint_values_truth(theta, om2, a) / pattern_probability(theta, om2, a)
    np.testing.assert_allclose(r1, r2, atol=1e-10)

def test_table4_against_hand_values():
    # ω = (0.5, 0.5), M = 2: two wrong evaluators must agree
    np.testing.assert_allclose(alphas([0.5, 0.5]), [1, 1, 1, 1, 0, 0, 0])
    # uniform ω over 3 values: wrong evaluators pick one of the 2 other values at random
    np.testing.assert_allclose(alphas([1 / 3] * 3), [0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25])
    # uniform over 4: α1 = 1/3, α4 = 1/9, α5 = P(i = j) P(k differs) = (1/3)(2/3) = 2/9
    np.testing.assert_allclose(alphas([0.25] * 4), [1 / 3] * 3 + [1 / 9] + [2 / 9] * 3)

def test_degenerate_patterns():
    # M = 2: 'all three differ' impossible; M = 3: never from III
    t2 = model_tables([0.6, 0.7, 0.8], [0.4, 0.6])
    assert "Ψψφ" not in set(t2["Table 7"]["class"])
    t3 = model_tables([0.6, 0.7, 0.8], [0.2, 0.3, 0.5])
    assert t3["Table 8"].loc[("III", "Ψψφ"), "P(T|V,Θ)"] == pytest.approx(0, abs=1e-15)
    assert t3["Table 7"].loc["123", "P(V|Θ)"] > 0

def test_symbolic_table8_matches_numbers():
    th, al = np.array([0.3, 0.6, 0.9]), alphas([0.1, 0.2, 0.7])
    pt = dict(zip(T_STATES, p_truth(th)))
    env = {f"α{m + 1}": al[m] for m in range(7)}
    val = lambda t: (1.0 if t.split("·")[0] == "1" else eval(t.split("·")[0], {}, env)) * pt[t.split("·")[1]]
    post = truth_given_agreement(th, al)
    for r in symbolic_posterior().itertuples():
        assert val(r.numerator) / sum(map(val, r.denominator)) == pytest.approx(
            post[T_STATES.index(r.T), ["ψψψ", "ψψΨ", "ψΨψ", "Ψψψ", "Ψψφ"].index(r.V)])

def _loop_data(n=3000, seed=0, M=4):
    theta = np.array([0.55, 0.9, 0.7, 0.8, 0.6, 0.95, 0.75, 0.65])
    om = np.arange(1, M + 1) / np.arange(1, M + 1).sum()
    X, hidden = sample(theta, om, n, seed=seed)
    return theta, om, X, hidden

def test_loglik_equals_per_item_sum():
    theta, om, X, _ = _loop_data(600)
    # per item, from the Table 7 tensor of its own triplet (independent of the pattern counting)
    rows, cols = np.nonzero(X >= 0)
    cols = cols.reshape(-1, 3)
    vals = X[rows, cols.ravel()].reshape(-1, 3) - 1
    direct = sum(np.log(pattern_probability(theta[c], om)[tuple(v)]) for c, v in zip(cols, vals))
    assert log_likelihood(X, theta, omega=om) == pytest.approx(direct, rel=1e-12)

def test_inputs_equivalent_and_not_mutated():
    theta, om, X, _ = _loop_data(300)
    X0 = X.copy()
    ll = log_likelihood(X, theta, omega=om)
    r, c = np.nonzero(X >= 0)
    long = pd.DataFrame({"unit": r, "worker": c, "label": X[r, c]})
    long0 = long.copy()
    assert log_likelihood(long, theta, omega=om) == pytest.approx(ll)          # a table is a long table
    assert log_likelihood(as_judgments(long), theta, omega=om) == pytest.approx(ll)
    assert log_likelihood(Judgments.from_matrix(X, missing=-1), theta, omega=om) == pytest.approx(ll)
    Xf = np.where(X >= 0, X, np.nan).astype(float)
    assert log_likelihood(Xf, theta, omega=om, missing=np.nan) == pytest.approx(ll)
    np.testing.assert_array_equal(X, X0); pd.testing.assert_frame_equal(long, long0)

def test_pattern_count_inputs():
    counts = {"111": 5, "112": 3, "213": 2}
    arr = np.zeros((3, 3, 3), int); arr[0, 0, 0], arr[0, 0, 1], arr[1, 0, 2] = 5, 3, 2
    om = [0.2, 0.3, 0.5]
    a = log_likelihood(counts, [0.6, 0.7, 0.8], omega=om)
    assert log_likelihood(arr, [0.6, 0.7, 0.8], omega=om) == pytest.approx(a)
    assert log_likelihood(pd.Series(counts), [0.6, 0.7, 0.8], omega=om) == pytest.approx(a)
    P = pattern_probability([0.6, 0.7, 0.8], om)
    assert a == pytest.approx(5 * np.log(P[0, 0, 0]) + 3 * np.log(P[0, 0, 1]) + 2 * np.log(P[1, 0, 2]))

def test_bad_input_messages():
    with pytest.raises(ValueError, match="exactly 3 annotations"): fit_theta(np.array([[1, 2, -1, -1], [1, 1, 1, -1]]))
    with pytest.raises(ValueError, match="method must be"): fit_theta({"111": 3, "112": 1}, method="mle")
    with pytest.raises(ValueError, match="optimizer must be"): fit_theta({"111": 3, "112": 1}, optimizer="sa")
    with pytest.raises(ValueError, match="non-negative integers"): triplets({"111": 2.5})
    with pytest.raises(ValueError, match="summing to 1"): ModelA(omega=[0.3, 0.3])
    with pytest.raises(ValueError, match=r"lie in \[0, 1\]"): log_likelihood({"111": 1, "112": 1}, [0.3, 1.3, 0.5])
    with pytest.raises(TypeError, match="non-integer"): triplets(np.array([[1.5, 1, 1]]))
    with pytest.raises(ValueError, match="not among the declared values"): triplets(np.array([[1, 2, 3]]), labels=[1, 2])

def test_fit_recovers_and_is_deterministic():
    theta, om, X, hidden = _loop_data(16_000, seed=5)
    J = Judgments.from_matrix(X, missing=-1)
    a, b = ModelA(n_starts=4, seed=11).fit(J), ModelA(n_starts=4, seed=11).fit(J)
    pd.testing.assert_frame_equal(a.optima_, b.optima_)
    np.testing.assert_allclose(a.theta_.to_numpy(), theta, atol=0.05)
    oa = a.optima_
    # MAP objective = log L + Beta(2, 1) log density
    assert oa["log posterior"].iloc[0] == pytest.approx(oa["log L"].iloc[0] + np.sum(np.log(2 * a.theta_.to_numpy())))
    # ML with annealing reaches an optimum at least as good as the MAP point's likelihood
    c = ModelA(method="ml", optimizer="annealing", n_starts=1, max_iter=30, seed=1).fit(J)
    assert c.optima_["log L"].iloc[0] >= oa["log L"].iloc[0] - 1e-6

def test_per_annotator_omega_flavour():
    theta, om, X, _ = _loop_data(8000, seed=2)
    m = ModelA(per_annotator_omega=True, n_starts=3, seed=0).fit(Judgments.from_matrix(X, missing=-1))
    assert m.omega_.shape == (8, 4) and list(m.omega_.index) == list(range(8))
    np.testing.assert_allclose(m.theta_.to_numpy(), theta, atol=0.06)

def test_posterior_states_vs_truth():
    theta, om, X, hidden = _loop_data(5000, seed=9)
    post = posterior_states(X, theta, omega=om)
    np.testing.assert_allclose(post.sum(axis=1), 1)
    # Bayes-optimal: the MAP state is right more often than any fixed state
    hit = (np.asarray(T_STATES)[post.to_numpy().argmax(1)] == hidden["T"].to_numpy()).mean()
    assert hit > (hidden["T"] == "CCC").mean()
    lab = correctness(X, theta, omega=om)
    assert set(np.unique(lab.to_numpy())) <= {"", "C", "I"}

def _binary_loop(n=2000, seed=0):
    "Binary loop-design data (8 workers, 3 per unit) as a units x workers DataFrame of labels, None where missing."
    theta = np.array([0.85, 0.7, 0.9, 0.75, 0.8, 0.65, 0.95, 0.7])
    X, _ = sample(theta, [0.35, 0.65], n, labels=["no", "yes"], seed=seed, missing=None)
    return theta, pd.DataFrame(X, index=[f"s{i:04d}" for i in range(n)], columns=[f"ann{j}" for j in range(8)])

def test_four_ways_give_identical_fits(tmp_path):
    "Judgments, a long table with other column names, a CSV path and Judgments.from_matrix: the same fit."
    theta, wide = _binary_loop()
    long = wide.stack().dropna().rename("label").rename_axis(["unit", "worker"]).reset_index()
    renamed = long.rename(columns={"unit": "sentence", "worker": "curator", "label": "answer"})
    path = tmp_path / "judgments.csv"; renamed.to_csv(path, index=False)
    fits = [ModelA(n_starts=10, seed=3).fit(as_judgments(long)),
            ModelA(n_starts=10, seed=3).fit(renamed, unit="sentence", worker="curator", label="answer"),
            ModelA(n_starts=10, seed=3).fit(path, unit="sentence", worker="curator", label="answer"),
            ModelA(n_starts=10, seed=3).fit(Judgments.from_matrix(wide))]
    for f in fits[1:]:
        pd.testing.assert_series_equal(f.theta_, fits[0].theta_, check_exact=False, rtol=0, atol=1e-12)
        pd.testing.assert_frame_equal(f.posterior_, fits[0].posterior_, check_exact=False, rtol=0, atol=1e-12)
        pd.testing.assert_series_equal(f.labels_, fits[0].labels_)
    assert list(fits[0].theta_.index) == [f"ann{j}" for j in range(8)] and fits[0].theta_.index.name == "worker"
    assert list(fits[0].posterior_.columns) == ["no", "yes"] and fits[0].posterior_.index.name == "unit"
    np.testing.assert_allclose(fits[0].theta_.to_numpy(), theta, atol=0.08)     # ~750 binary triplets per worker

def test_value_posterior_matches_bruteforce_over_states():
    "P(value | V) by summing P(T | V) over states by hand, for every pattern of M = 3 (shared ω)."
    th, om = np.array([0.6, 0.3, 0.7]), np.array([0.2, 0.3, 0.5])
    counts = {"".join(map(str, p)): 1 for p in itertools.product([1, 2, 3], repeat=3)}
    vp = value_posterior(counts, th, omega=om)
    ps = posterior_states(counts, th, omega=om)
    for pat in counts:
        v = [int(ch) - 1 for ch in pat]
        want = np.zeros(3)
        for s in T_STATES[:7]:
            want[v[s.index("C")]] += ps.loc[pat, s]
        rest = [x for x in range(3) if x not in v]
        w = np.array([om[x] / (1 - om[x]) ** 3 if x in rest else 0.0 for x in range(3)])
        if w.sum() > 0: want += ps.loc[pat, "III"] * w / w.sum()
        np.testing.assert_allclose(vp.loc[pat].to_numpy(), want, atol=1e-12)

def test_distinct_optima_is_shared_with_model_b():
    from crowdnb import model_b
    assert model_b.distinct_optima is distinct_optima

@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.05, 0.95), min_size=6, max_size=6))
def test_rho_zero_is_product_and_range_enforced(th):
    tx, ty = np.array(th[:3]), np.array(th[3:])
    ax, ay = alphas([0.2, 0.3, 0.5]), alphas([0.1, 0.9])
    np.testing.assert_allclose(joint_agreement([tx, ty], [ax, ay], np.eye(2)),
                               np.multiply.outer(agreement_probability(tx, ax), agreement_probability(ty, ay)), atol=1e-14)
    lo, hi = rho_range(tx, ty)
    assert lo < 0 < hi
    J = joint_truth([tx, ty], [[1, hi * 0.999], [hi * 0.999, 1]])
    assert J.min() >= -1e-12 and J.sum() == pytest.approx(1)
    with pytest.raises(ValueError, match="negative joint probabilities"):
        joint_truth([tx, ty], [[1, hi * 1.01 + 1e-9], [hi * 1.01 + 1e-9, 1]])

def test_cox_second_moments():
    p = np.array([0.2, 0.5, 0.7, 0.9])
    rho = np.eye(4); rho[0, 2] = rho[2, 0] = 0.15; rho[1, 3] = rho[3, 1] = -0.1
    C = cox_binary(p, rho)
    y = np.array(list(itertools.product([0, 1], repeat=4)))
    u = (y - p) / np.sqrt(p * (1 - p))
    w = C.ravel()
    np.testing.assert_allclose((w[:, None, None] * u[:, :, None] * u[:, None, :]).sum(0), rho, atol=1e-12)

@pytest.mark.shared
def test_real_data_loop_design_fit():
    path = shared("rzhetsky2009", "f85.csv")
    A = np.loadtxt(path, delimiter=",", dtype=int)[:, :8]
    A[A < 0] = -1                                   # -1 missing; the 43 entries -1000 are treated as missing too
    m = ModelA(n_starts=5, seed=0, incomplete="drop").fit(Judgments.from_matrix(A, missing=-1))
    assert np.all((m.theta_ > 0.3) & (m.theta_ <= 1))
    assert m.optima_["visits"].sum() == 5 and len(m.labels_) == 1661

def test_string_labels_and_none_missing():
    X = pd.DataFrame([["pos", "neg", None, "pos"], ["pos", "pos", "pos", None], [None, "neg", "neg", "neg"]],
                     columns=list("ABCD"))
    t = triplets(Judgments.from_matrix(X))
    assert list(t.values) == ["neg", "pos"] and t.count.sum() == 3
    lab = correctness(Judgments.from_matrix(X), [0.8, 0.7, 0.9, 0.6], omega=[0.4, 0.6])
    assert list(lab.columns) == list("ABCD") and (lab.loc[0, "C"] == "")
