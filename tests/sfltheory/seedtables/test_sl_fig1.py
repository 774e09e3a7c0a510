"""SL non-IID Fig. 1 (seed 002, line 19) redrawn from Table 5's update rules: one round of FL and SL against closed
forms worked out by hand, and the two qualitative statements of line 21 on the figure's own clients."""

from __future__ import annotations

import numpy as np
import pytest

from sfltheory import figs

FIG = figs.load("seed_sl_fig1")


def test_one_round_closed_forms_on_identity_hessians() -> None:
    # f_i = 1/2 ||x - b||^2 (H = I), step eta: one step maps x - b to (1 - eta)(x - b). FL averages two identical
    # clients after K = 2 steps: x^1 - b = (1 - eta)^2 (x^0 - b); SL chains the two clients: (1 - eta)^4 (x^0 - b).
    # eta = 0.3, x^0 - b = (-3, 2.5): FL 0.49 * (-3, 2.5) = (-1.47, 1.225); SL 0.2401 * (-3, 2.5) = (-0.7203, 0.60025)
    c = (np.zeros(2), np.eye(2))
    fl, _ = FIG.fl_round(np.array([-3.0, 2.5]), (c, c))
    sl, _ = FIG.sl_round(np.array([-3.0, 2.5]), (c, c))
    assert fl == pytest.approx([-1.47, 1.225], abs=1e-12)
    assert sl == pytest.approx([-0.7203, 0.60025], abs=1e-12)


def test_non_iid_fl_average_and_sl_chain_by_hand() -> None:
    # 1-D, H = 1, b_1 = 1, b_2 = -1, eta = 0.3, K = 2, x^0 = 0: client 1 ends at 1 + 0.49 (0 - 1) = 0.51,
    # client 2 at -1 + 0.49 (0 + 1) = -0.51, FL's average 0; SL: client 2 starts at 0.51 and ends at
    # -1 + 0.49 (0.51 + 1) = -0.2601
    c1, c2 = (np.array([1.0]), np.eye(1)), (np.array([-1.0]), np.eye(1))
    fl, paths = FIG.fl_round(np.zeros(1), (c1, c2))
    assert [p[-1][0] for p in paths] == pytest.approx([0.51, -0.51])
    assert fl[0] == pytest.approx(0.0)
    sl, _ = FIG.sl_round(np.zeros(1), (c1, c2))
    assert sl[0] == pytest.approx(-0.2601)
    assert FIG.sl_round(np.zeros(1), (c1, c2), order=(1, 0))[0][0] == pytest.approx(0.2601)  # the order's mirror


def test_optimum_solves_the_mean_gradient() -> None:
    star = FIG.optimum(FIG.NON_IID)
    grad = sum(h @ (star - b) for b, h in FIG.NON_IID)
    assert np.linalg.norm(grad) < 1e-12
    # (H_1 + H_2)^{-1}(H_1 b_1 + H_2 b_2) with diag(1, .3), diag(.3, 1): ((1.5 - .45)/1.3, (-.3 + 1)/1.3)
    assert star == pytest.approx([1.05 / 1.3, 0.7 / 1.3])


def test_line_21_statements_hold_on_the_figure_clients() -> None:
    # IID: SL nearer x* than FL after one round (it makes N K = 4 sequential steps, FL K = 2 averaged)
    d_fl = FIG.distances(FIG.IID, 1, "fl")[1]
    d_sl = FIG.distances(FIG.IID, 1, "sl")[1]
    assert d_sl < d_fl
    # non-IID: SL in a fixed order settles away from x* (its fixed point is biased towards the last client), farther
    # than FL's, while on IID data both go to x*
    assert FIG.distances(FIG.NON_IID, 60, "sl")[-1] > FIG.distances(FIG.NON_IID, 60, "fl")[-1] > 1e-3
    assert FIG.distances(FIG.IID, 60, "sl")[-1] < 1e-6
