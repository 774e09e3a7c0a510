"""The planner on real torch models (cut tables from verify.models)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from sfltheory.plan import plan
from verify.models import model_cuts

PARAMS = {"L": 1.0, "F": 2.3, "T": 1000.0, "M": 10.0, "eta_g": 1.0, "sigma_c2": 1.0, "sigma_s2": 1.0, "eps2": 0.5}


@pytest.fixture(scope="module")
def resnet18():  # type: ignore[no-untyped-def]
    return model_cuts("resnet18")


def test_resnet18_rule_at_the_stem(resnet18) -> None:  # type: ignore[no-untyped-def]
    # ResNet-18 (CIFAR) d = 11,173,962; the stem holds 3*3*3*64 + 2*64 = 1,856 parameters:
    # Cor 4.4's tau = d/d_c^2 = 11,173,962 / 3,444,736 = 3.2438 -> tau = 3; every later cut has
    # d_c >= 75,840 > sqrt(d) = 3,342.7, so the rule asks for tau < 1 there
    p = plan("mu_splitfed/thm4.3", {**PARAMS, "lam": 1e-10}, cuts=resnet18)
    stem = p.cuts[0]
    assert stem.cut is not None and stem.cut.d_c == 1_856
    assert stem.rules[0].exact == pytest.approx(11_173_962 / 1_856**2)
    assert stem.rules[0].point is not None and stem.rules[0].point.value == 3
    assert all(c.rules[0].point is None and "< 1" in c.rules[0].why_not for c in p.cuts[1:])
    rb = p.rule_best()
    assert rb is not None and rb[0] is stem


def test_resnet18_best_cut_is_the_minimum_of_the_curves(resnet18) -> None:  # type: ignore[no-untyped-def]
    p = plan("mu_splitfed/thm4.3", {**PARAMS, "lam": 1e-10}, cuts=resnet18, grid=np.arange(1, 201))
    obj = p.curves["objective"]
    i, j = np.unravel_index(np.argmin(obj), obj.shape)
    best = p.best
    assert best is not None and best.best is not None
    assert best is p.cuts[i] and best.best.value == j + 1 and best.best.bound == obj[i, j]


def test_q_smash_comes_from_the_cut(resnet18) -> None:  # type: ignore[no-untyped-def]
    # heron_sfl Table I, SFL communication per local update 2 b q + 2 |theta_c|; at b = 32:
    # stem: 2*32*65,536 + 2*1,856 = 4,194,304 + 3,712 = 4,198,016 (q = 64*32*32 values per sample);
    # after layer2.0: 2*32*32,768 + 2*379,968 = 2,097,152 + 759,936 = 2,857,088 (q = 128*16*16)
    p = plan("heron_sfl/table1_comm_sfl", {}, cuts=resnet18, over="batch", grid=[32])
    bounds = {c.cut.name: c.best.bound for c in p.cuts}  # type: ignore[union-attr]
    assert bounds["stem"] == 4_198_016
    assert bounds["layer2.0"] == 2_857_088


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["cuts", "--model", "nosuch"], "unknown model 'nosuch'"),
        (["cuts", "--model", "resnet18", "--input-shape", "3,x"], "--input-shape"),
        (["cuts", "--model", "resnet18", "--input-shape", "3,0,32"], "--input-shape"),
        (["cuts", "--model", "alexnet", "--input-shape", "3,8,8"], "does not fit alexnet"),
        (["cuts", "--model", "no_such_module:f"], "--model"),
        (["plan", "mu_splitfed/thm4.3", "--model", "resnet18", "L=-1"], "parameter 'L'"),
        (["plan", "mu_splitfed/thm4.3", "--model", "resnet18", "d_c=5"], "leave d, d_c, d_s out"),
    ],
)
def test_model_bad_input_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    from verify.app import main

    rc = main(argv)
    _, err = capsys.readouterr()
    assert rc == 2 and err.count("\n") == 1 and needle in err, err


def test_nearest_cut_to_the_rule_at_the_optimum(resnet18) -> None:  # type: ignore[no-untyped-def]
    # at tau = 1000 Cor 4.4's rule asks for d_c = sqrt(11,173,962/1000) = 105.7; the nearest cut (in ratio)
    # is the stem (1,856 parameters, 17.6x that)
    p = plan("mu_splitfed/thm4.3", {**PARAMS, "lam": 1e-10}, cuts=resnet18)
    assert p.best is not None and p.best.best is not None and p.best.best.value == 1000
    assert any("asks for d_c = 105.7; the nearest cut is 'stem' (d_c = 1,856, 17.6x that)" in n for n in p.notes)
    assert str(p).startswith("plan for mu_splitfed/thm4.3")
