"""The straggler time model against hand calculations and closed-form order statistics."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import sfltheory as st
from sfltheory.plan import Block, TimeModel, cuts_from_blocks, expected_max, parse_distribution, plan


def model(**kw: object) -> TimeModel:
    args: dict = {"server_step": 0.01, "client_time": (1.0, 1.0, 5.0), "bandwidth": 1e6, "batch": 32}
    args.update(kw)
    return TimeModel(**args)


def test_round_time_hand_calculation() -> None:
    # client share f = 0.25, activation 1000 values: upload 32 * 1000 * 4 B = 128,000 B at 1e6 B/s = 0.128 s;
    # slowest client 5 * 0.25 + 0.128 = 1.378 s; one server step 0.01 * 0.75 = 0.0075 s
    tm = model()
    assert tm.straggler(0.25, 1000) == pytest.approx(1.378)
    assert tm.server(0.25) == pytest.approx(0.0075)
    assert tm.round_time(100, 0.25, 1000) == pytest.approx(1.378)  # 100 steps = 0.75 s, hidden by the straggler
    assert tm.round_time(300, 0.25, 1000) == pytest.approx(2.25)  # 300 steps = 2.25 s > 1.378 s
    assert model(overlap=False).round_time(100, 0.25, 1000) == pytest.approx(1.378 + 0.75)
    # eq. (12): tau = t_straggler / t_server = 1.378 / 0.0075 = 183.73
    assert tm.eq12_tau(0.25, 1000) == pytest.approx(1.378 / 0.0075)


def test_per_client_bandwidth_picks_the_slowest_path() -> None:
    # client 1: 1*0.5 + 128000/1e5 = 1.78 s; client 3: 5*0.5 + 128000/1e7 = 2.5128 s -> 2.5128
    tm = model(bandwidth=(1e5, 1e6, 1e7))
    assert tm.straggler(0.5, 1000) == pytest.approx(2.5128)
    # with client 1's link at 1e4 B/s: 0.5 + 12.8 = 13.3 s dominates
    assert model(bandwidth=(1e4, 1e6, 1e7)).straggler(0.5, 1000) == pytest.approx(13.3)


def test_expected_max_closed_forms() -> None:
    # E[max of n Exp(1)] = H_n: H_3 = 1 + 1/2 + 1/3 = 11/6; E[max of n U(0,1)] = n/(n+1)
    assert expected_max(stats.expon(), 3) == pytest.approx(11 / 6, rel=1e-9)
    assert expected_max(stats.expon(loc=1.0), 3) == pytest.approx(1 + 11 / 6, rel=1e-9)
    assert expected_max(stats.uniform(), 4) == pytest.approx(4 / 5, rel=1e-9)
    # against a Monte Carlo estimate for a lognormal (independent method)
    rng = np.random.default_rng(0)
    mc = np.exp(rng.normal(0.0, 0.5, size=(200_000, 10))).max(axis=1).mean()
    assert expected_max(stats.lognorm(s=0.5), 10) == pytest.approx(mc, rel=5e-3)


def test_distribution_model_uses_the_expected_maximum() -> None:
    # 3 clients with Exp(1) times on the whole model, f = 0.5, free links: 0.5 * 11/6
    tm = TimeModel(0.01, client_dist=stats.expon(), n_clients=3)
    assert tm.straggler(0.5, 100) == pytest.approx(0.5 * 11 / 6, rel=1e-9)


def test_parse_distribution() -> None:
    d = parse_distribution("expon:loc=1,scale=2")
    assert d.mean() == pytest.approx(3.0)
    for bad, match in (("nosuch:a=1", "not a continuous"), ("expon:scale", "key=value"), ("norm:loc=0", "negative")):
        with pytest.raises(st.ParameterError, match=match):
            parse_distribution(bad)


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"server_step": 0.0}, "server_step"),
        ({"client_time": ()}, "client_time"),
        ({"client_time": (1.0, -1.0)}, "client_time[1]"),
        ({"bandwidth": (1.0,)}, "bandwidth"),
        ({"bandwidth": -5.0}, "bandwidth"),
        ({"batch": 0}, "batch"),
    ],
)
def test_bad_time_model(kw: dict, name: str) -> None:
    with pytest.raises(st.ParameterError) as e:
        model(**kw)
    assert e.value.name == name


def test_plan_minimises_wall_clock_and_reports_eq12() -> None:
    # Thm 4.1 at fixed eta = 1e-4 (sigma_s^2 = 0): B(tau, T) = 4e4/(tau T) + 8e-4 tau (L = d_c = 1, F = 1,
    # sigma_c^2 = 1); eps = 1 -> rounds T(tau) = ceil(4e4 / (tau (1 - 8e-4 tau))).
    # One cut with f = d_c/d = 1/2 (no FLOPs given), free links: straggler 5 * 0.5 = 2.5 s,
    # server step 0.01 * 0.5 = 0.005 s -> eq. (12) tau = 500; round time = max(2.5, 0.005 tau).
    cuts = cuts_from_blocks("toy", [Block("a", 1, 10), Block("b", 1)])
    tm = TimeModel(0.01, client_time=(1.0, 1.0, 5.0))
    params = {"F": 1.0, "L": 1.0, "sigma_c2": 1.0, "sigma_s2": 0.0, "lam": 1e-12, "eta": 1e-4}
    p = plan("mu_splitfed/thm4.1", params, cuts=cuts, eps=1.0, time_model=tm, grid=np.arange(1, 1001))
    taus = np.arange(1, 1001, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        T = np.where(1 - 8e-4 * taus > 0, np.ceil(4e4 / (taus * (1 - 8e-4 * taus)) - 1e-9), np.inf)
    # the step condition eta <= 1/(64 (tau + 2)) holds for tau <= 154 (see test_plan); beyond it, infeasible
    T[taus > 154] = np.inf
    time = T * np.maximum(2.5, 0.005 * taus)
    c = p.cuts[0]
    assert c.eq12_tau == pytest.approx(500.0)
    assert c.best is not None and c.best.value == taus[np.argmin(time)]
    assert c.best.time == pytest.approx(time.min())
    assert c.best_rounds is not None and c.best_rounds.value == taus[np.argmin(T)]


def test_the_balance_tau_is_the_papers_eq12() -> None:
    # the planner's balance tau (TimeModel.eq12_tau) is MU-SplitFed's eq. (12) as the paper's package encodes it
    # (mu_splitfed/eq12 derives tau = t_straggler / t_server): one formula, two readers that must agree
    import sfltheory as st

    tm = TimeModel(0.01, client_time=(1.0, 1.0, 5.0))
    for f, act in ((0.25, 1000.0), (0.5, 2.0), (0.9, 10.0)):
        strag, srv = float(tm.straggler(f, act)), float(tm.server(f))
        ev = st.evaluate("mu_splitfed/eq12", T0=1000, t_straggler=strag, t_server=srv)
        assert float(tm.eq12_tau(f, act)) == pytest.approx(ev.params["tau"], rel=1e-12)
