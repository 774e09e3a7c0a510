"""The planner against closed forms: optimal tau, joint step size, rounds to accuracy, paper rules.

MU-SplitFed Theorem 4.1 (seed 000, eq. (8)) with sigma_s^2 = 0 and a negligible smoothing radius is
  B(eta, tau) = 4F/(eta tau T) + 8 eta tau L d_c sigma_c^2  (+ terms of order lambda^2),
so at fixed eta the optimal tau is sqrt(a/b) with a = 4F/(eta T), b = 8 eta L d_c sigma_c^2, and at fixed
tau the optimal eta is sqrt(4F/(tau T) / (8 tau L d_c sigma_c^2)) with the minimum 2 sqrt(a' b').
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import sfltheory as st
from sfltheory.plan import Block, cuts_from_blocks, load_blocks, plan, rounds_to, solve
from sfltheory.plan.compare import compare

T41 = "mu_splitfed/thm4.1"
TINY_LAM = 1e-12  # ZO terms ~ L^2 lam^2 d^3 ~ 1e-24: far below the tolerances used here


def base(**kw: float) -> dict[str, float]:
    p = {"F": 1.0, "T": 1.0, "L": 1.0, "d_c": 1.0, "d_s": 1.0, "sigma_c2": 2e4, "sigma_s2": 0.0, "lam": TINY_LAM}
    p.update(kw)
    return p


def test_optimal_tau_at_fixed_step_is_sqrt_a_over_b() -> None:
    # a = 4F/(eta T) = 4/(1e-4) = 4e4; b = 8 eta L d_c sigma_c^2 = 8 * 1e-4 * 2e4 = 16
    # tau* = sqrt(a/b) = sqrt(2500) = 50; B(50) = 4e4/50 + 16*50 = 800 + 800 = 1600
    p = plan(T41, base(eta=1e-4))
    b = p.best.best  # type: ignore[union-attr]
    assert p.step_mode == "given"
    assert b.value == 50
    assert b.bound == pytest.approx(1600.0, rel=1e-9)
    assert b.limited_by == ""


def test_optimal_tau_stops_at_the_binding_step_branch() -> None:
    # sigma_c^2 = 1: tau* = sqrt(4e4 / 8e-4) = 7071, but eta = 1e-4 <= 1/(64 L (tau + 2 d_s)) needs
    # tau + 2 <= 156.25, i.e. tau <= 154 (tau = 155: 1/(64*157) = 9.95e-5 < 1e-4)
    p = plan(T41, base(eta=1e-4, sigma_c2=1.0))
    b = p.best.best  # type: ignore[union-attr]
    assert b.value == 154
    assert "eta<=1/(64L(tau+2d_s))" in b.limited_by and "above 154" in b.limited_by
    feas = p.curves["feasible"][0]
    assert feas[:154].all() and not feas[154:].any()


def test_joint_step_matches_the_closed_form() -> None:
    # tau = 1, T = 1e6, sigma_c^2 = 1: eta* = sqrt(4F/(tau T) / (8 tau L d_c sigma_c^2)) = sqrt(4e-6/8)
    # = 7.0711e-4 (inside the largest feasible step min(1/(64*3), 1/16) = 5.21e-3);
    # B* = 2 sqrt(4e-6 * 8) = 2 * 5.6569e-3 = 0.0113137
    g = solve(T41, base(T=1e6, sigma_c2=1.0, tau=1.0), step="joint")
    assert g.step == pytest.approx(math.sqrt(4e-6 / 8), rel=1e-6)
    assert g.bound == pytest.approx(2 * math.sqrt(4e-6 * 8), rel=1e-9)
    assert g.max_step == pytest.approx(1 / 192, rel=1e-12)


def test_joint_step_is_capped_by_the_largest_feasible_step() -> None:
    # with T = 1 the unconstrained eta* = sqrt(4/8) = 0.707 exceeds 1/192: the joint step is 1/192
    g = solve(T41, base(T=1.0, sigma_c2=1.0, tau=1.0), step="joint")
    assert g.step == pytest.approx(1 / 192, rel=1e-9)


def test_max_mode_uses_the_binding_branch() -> None:
    # tau = 4, d_s = 1, d_c = 1: branches 1/(64(4+2)) = 2.604e-3 and 1/(16*4*1) = 1.5625e-2
    g = solve(T41, base(tau=4.0), step="max")
    assert g.step == pytest.approx(1 / 384)
    assert g.binding == "eta<=1/(64L(tau+2d_s))"


def test_grid_equals_scalar_evaluation_point_by_point() -> None:
    # the vectorised plan against the scalar path, one call per (cut, tau)
    blocks = [Block("a", 30, 8), Block("b", 200, 4), Block("c", 770, None)]
    cuts = cuts_from_blocks("toy", blocks)
    params = {"F": 2.0, "T": 500.0, "L": 3.0, "sigma_c2": 1.0, "sigma_s2": 0.5, "lam": 1e-4}
    p = plan(T41, params, cuts=cuts, grid=np.arange(1, 21))
    for i, c in enumerate(cuts.cuts):
        for j, tau in enumerate(range(1, 21)):
            q = {**params, "d_c": c.d_c, "d_s": c.d_s, "tau": tau}
            eta = st.max_step(T41, q).max_step
            assert p.curves["bound"][i, j] == pytest.approx(st.evaluate(T41, {**q, "eta": eta}).value, rel=1e-12)


def test_rounds_to_eps_cor42_hand_calculation() -> None:
    # Cor 4.2 at d = 1e4, tau = 4 (so d_c = sqrt(d/tau) = 50, d_s = 9950), L = F = sigma^2 = 1:
    # (9) = (4*100 + 48*100 + 9*100)/sqrt(4T) + 8/sqrt(T) = 3058/sqrt(T) <= 0.5 needs T >= 37,405,456;
    # but eta = 1/sqrt(d tau T) must satisfy eta <= 1/(64 L (tau + 2 d_s)) = 1/1,273,856:
    # sqrt(4e4 T) >= 1,273,856 -> T >= 1,273,856^2 / 4e4 = 40,567,727.6 -> T = 40,567,728
    p = {"L": 1.0, "F": 1.0, "d": 1e4, "tau": 4.0, "sigma_c2": 1.0, "sigma_s2": 1.0}
    r = rounds_to("mu_splitfed/cor4.2", 0.5, p)
    assert r.T == 40_567_728 and r.reached
    # looser eps: the rate binds: 3058/sqrt(T) <= 0.1 -> T >= 935,136,400 (>= the step's 40.6M)
    assert rounds_to("mu_splitfed/cor4.2", 0.1, p).T == 935_136_400


def test_rounds_unreachable_names_the_floor() -> None:
    # Thm 4.1 at a fixed eta has the T-free floor 8 eta tau L d_c sigma_c^2 = 16*tau at eta = 1e-4
    r = rounds_to(T41, 10.0, {**{k: v for k, v in base(eta=1e-4).items() if k != "T"}, "tau": 1.0})
    assert not r.reached and math.isinf(r.T)
    assert "floor" in r.reason and r.floor == pytest.approx(16.0, rel=1e-6)


def test_rounds_refuses_a_given_T() -> None:
    with pytest.raises(st.ParameterError, match="leave it out"):
        rounds_to(T41, 1.0, base(eta=1e-4, tau=1.0))


def test_plan_with_eps_minimises_rounds() -> None:
    # at fixed eta = 1e-4, tau = 50: B = 4e4/(50 T) + 800 <= 1000 needs 800/T <= 200 -> T >= 4;
    # the optimum is the tau minimising rounds subject to the floor 16 tau < eps
    params = {k: v for k, v in base(eta=1e-4).items() if k != "T"}
    p = plan(T41, params, eps=1000.0, grid=np.array([50.0]))
    assert p.best.best.rounds == 4  # type: ignore[union-attr]


def test_paper_rule_is_reported_next_to_the_optimum() -> None:
    # d = 1e4, d_c = 50: Cor 4.2's tau = d/d_c^2 = 4 exactly; the proof's tau = (d/d_c)^2 = 40,000 (off the grid)
    p = plan(
        T41, {"L": 1.0, "F": 1.0, "T": 1000.0, "d": 1e4, "d_c": 50.0, "sigma_c2": 1.0, "sigma_s2": 1.0, "lam": 1e-6}
    )
    c = p.cuts[0]
    assert c.rules[0].exact == pytest.approx(4.0) and c.rules[0].point is not None and c.rules[0].point.value == 4
    assert c.rules[1].exact == pytest.approx(40_000.0) and c.rules[1].point is None
    assert "outside the grid" in c.rules[1].why_not


ALEXNET_BLOCKS = [23_296, 307_392, 663_936, 884_992, 590_080, 37_752_832, 16_781_312, 40_970]  # sums to 57,044,810


def test_rule_no_cut_can_give() -> None:
    # AlexNet (10 classes): sqrt(d) = sqrt(57,044,810) = 7,552.8 < 23,296 (the first block): for every
    # tau >= 1 the rule d_c = sqrt(d/tau) asks for fewer client parameters than any cut has
    cuts = cuts_from_blocks("alexnet", [Block(f"b{i}", n) for i, n in enumerate(ALEXNET_BLOCKS, 1)])
    assert cuts.d == 57_044_810
    p = plan(T41, {"L": 1.0, "F": 1.0, "T": 1000.0, "sigma_c2": 1.0, "sigma_s2": 1.0, "lam": 1e-9}, cuts=cuts)
    assert all(c.rules[0].point is None for c in p.cuts)
    assert any("no cut can follow it" in n for n in p.notes)
    assert p.cuts[0].rules[0].exact == pytest.approx(57_044_810 / 23_296**2)


def test_best_cut_and_rule_cut() -> None:
    # d = 10,000: cut after 'a' (d_c = 100) gives the rule tau = 1e4/1e4 = 1, after 'b' (d_c = 25) tau = 16
    cuts = cuts_from_blocks("toy", [Block("b", 25), Block("a", 75), Block("rest", 9_900)])
    p = plan(T41, {"L": 1.0, "F": 1.0, "T": 1000.0, "sigma_c2": 1.0, "sigma_s2": 1.0, "lam": 1e-6}, cuts=cuts)
    assert [c.rules[0].point.value for c in p.cuts] == [16, 1]  # type: ignore[union-attr]
    rb = p.rule_best()
    assert rb is not None and rb[0].cut.name == "b"  # type: ignore[union-attr]
    best = p.best
    assert best is not None and best.best is not None
    assert best.best.bound == min(c.best.bound for c in p.cuts if c.best)  # type: ignore[union-attr]


def test_cut_independent_result_says_so() -> None:
    cuts = cuts_from_blocks("toy", [Block("a", 10), Block("b", 10)])
    params = {"F": 1.0, "L": 1.0, "M": 10.0, "T": 100.0, "eps2": 1.0, "sigma2": 1.0, "sum_alpha2": 0.1}
    p = plan("cut_layer/prop1", params, cuts=cuts, over="K", grid=np.arange(1, 11))
    assert any("does not depend on the split" in n for n in p.notes)


def test_infeasible_plan_says_why() -> None:
    # eta = 0.1 with L = 1, d_s = 1: 0.1 <= 1/(64 (tau + 2)) fails for every tau >= 1
    p = plan(T41, base(eta=0.1))
    assert not p.feasible and p.best is None
    assert p.reason.startswith("infeasible, because") and "eta<=1/(64L(tau+2d_s))" in p.reason


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"over": "sigma_c2"}, "over"),  # a parameter of Thm 4.1, but not an integer
        ({"over": "M"}, "over"),  # not a parameter of Thm 4.1
        ({"grid": [0, 1]}, "tau"),
        ({"grid": [1.5]}, "tau"),
        ({"step": "fast"}, "step"),
        ({"eps": -1.0}, "eps"),
    ],
)
def test_bad_plan_input(kwargs: dict, name: str) -> None:
    params = {k: v for k, v in base().items() if not (kwargs.get("eps") and k == "T")}
    with pytest.raises(st.ParameterError) as e:
        plan(T41, params, **kwargs)  # type: ignore[arg-type]
    assert e.value.name == name


def test_eps_with_T_and_time_without_eps_are_refused() -> None:
    from sfltheory.plan import TimeModel

    with pytest.raises(st.ParameterError, match="leave T out"):
        plan(T41, base(), eps=1.0)
    with pytest.raises(st.ParameterError, match="give eps"):
        plan(T41, base(), time_model=TimeModel(1.0, client_time=(1.0,)))


def test_step_given_and_max_conflict() -> None:
    with pytest.raises(st.ParameterError, match="leave the step sizes out"):
        solve(T41, base(eta=1e-3, tau=1.0), step="max")


def test_cut_table_clash_with_split_parameters() -> None:
    cuts = cuts_from_blocks("toy", [Block("a", 10), Block("b", 10)])
    with pytest.raises(st.ParameterError) as e:
        plan(T41, base(), cuts=cuts)
    assert e.value.name == "d_c"


# ---------------------------------------------------------------------------------------------------
def test_compare_tau_one_against_tau_eight() -> None:
    # at fixed eta: the initialisation term 4F/(eta tau T) shrinks 8x; with sigma_c^2 = 0 and sigma_s2 = 0
    # B = 4/(1e-4 * tau * 1) -> 40,000 at tau = 1 and 5,000 at tau = 8
    rows = compare([f"{T41}:tau=1", f"{T41}:tau=8"], base(eta=1e-4, sigma_c2=0.0))
    assert [r.bound for r in rows] == [pytest.approx(4e4), pytest.approx(5e3)]
    assert rows[0].overrides == {"tau": 1.0}


def test_compare_unknown_id_and_bad_override() -> None:
    with pytest.raises(st.UnknownResultError):
        compare(["mu_splitfed/thm9"], {})
    with pytest.raises(st.ParameterError):
        compare([f"{T41}:tau"], {})


# ---------------------------------------------------------------------------------------------------
def test_cuts_from_blocks_hand_counts() -> None:
    t = cuts_from_blocks("m", [Block("a", 15, 3, 24.0), Block("b", 0, 3, 3.0), Block("c", 8, 2, 12.0)])
    # cut after a: d_c = 15, d_s = 8; after b: the same split (b has no parameters) -> still a cut with its
    # own activation; FLOPs fraction after a = 24 / 39
    assert [(c.name, c.d_c, c.d_s) for c in t.cuts] == [("a", 15, 8), ("b", 15, 8)]
    assert t.cuts[0].client_fraction == pytest.approx(24 / 39)
    assert t.d == 23


def test_load_blocks_json_and_csv(tmp_path) -> None:  # type: ignore[no-untyped-def]
    j = tmp_path / "net.json"
    j.write_text(
        json.dumps(
            {"model": "net", "blocks": [{"name": "x", "params": 10, "activation": 4}, {"name": "y", "params": 5}]}
        )
    )
    t = load_blocks(j)
    assert t.model == "net" and [(c.name, c.d_c, c.d_s, c.activation) for c in t.cuts] == [("x", 10, 5, 4)]
    c = tmp_path / "net.csv"
    c.write_text("name,params,activation\nx,10,4\ny,5,\n")
    assert load_blocks(c).cuts == t.cuts


@pytest.mark.parametrize(
    ("text", "suffix", "match"),
    [
        ("{not json", ".json", "not valid JSON"),
        ('[{"name": "x", "params": -1}, {"name": "y", "params": 1}]', ".json", "must be an integer >= 0"),
        ('[{"name": "x", "params": 1.5}]', ".json", "must be an integer"),
        ('[{"name": "x"}]', ".json", "missing"),
        ('[{"name": "x", "params": 3}]', ".json", "fewer than two blocks"),
        ("name,size\nx,1\n", ".csv", "header"),
        ("x", ".txt", "must end in"),
    ],
)
def test_load_blocks_bad_files(tmp_path, text: str, suffix: str, match: str) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / f"m{suffix}"
    f.write_text(text)
    with pytest.raises(st.ParameterError, match=match):
        load_blocks(f)


def test_compare_split_learning_with_fedavg_sec43() -> None:
    # sl_noniid Sec. 4.3 displays (i) FL and (ii) SL at eta_tilde = 1/sqrt(R) (unit constants):
    # F/sqrt(R) + (K G^2 + sigma^2)/(K R) + sigma^2/(N K sqrt(R)) for FL, sigma^2/(K sqrt(R)) for SL.
    # F = G^2 = K = sigma^2 = 1, N = M = 4, R = T = 100: FL 0.1 + 0.02 + 0.025 = 0.145; SL 0.1 + 0.02 + 0.1 = 0.22.
    # Rounds to eps = 0.2 (x = 1/sqrt(T)): SL 2x + 2x^2 <= 0.2 -> x <= (-1 + sqrt(1.4))/2 = 0.091608 -> T = 120;
    # FL 1.25x + 2x^2 <= 0.2 -> x <= (-1.25 + sqrt(3.1625))/4 = 0.1320855 -> T >= 57.32 -> 58.
    params = {"F": 1.0, "G2": 1.0, "K": 1.0, "sigma2": 1.0, "M": 4.0, "T": 100.0, "L": 1.0, "B2": 1.0}
    fl, sl = compare(["sl_noniid/sec4.3.fl", "sl_noniid/sec4.3.sl"], params, eps=0.2)
    assert fl.bound == pytest.approx(0.145) and sl.bound == pytest.approx(0.22)
    assert (fl.rounds, sl.rounds) == (58, 120)


def test_rounds_refuses_a_bound_that_grows_with_T() -> None:
    from sfltheory.result import Provenance, Result, Term
    from sfltheory.vocabulary import symbols

    F, T, L, eta = symbols("F T L eta")
    grows = Result(
        paper="mu_splitfed", label="synthetic", kind="theorem", title="grows", provenance=Provenance(seed="synthetic", label="S"), lhs="x",
        terms=(Term(name="init", expr=F / T, meaning="F/T"), Term(name="drift", expr=eta * L * T, meaning="eta L T")),
    )  # fmt: skip
    with pytest.raises(st.ParameterError, match="does not decrease in T"):
        rounds_to(grows, 1.0, {"F": 1.0, "L": 1.0, "eta": 1e-3})
