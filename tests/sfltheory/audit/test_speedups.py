"""The audit's shortcuts (issue 28, speed) against the slow ways they replace, on inputs the catalogue does not
make: group testing against a point-by-point loop, exponent arithmetic against SymPy's ``powsimp``, and the
numeric inequality test against ``simplify``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import sympy as sp

from sfltheory.audit.corollary import differs
from sfltheory.audit.sampling import raising
from sfltheory.audit.units import power
from sfltheory.errors import SflTheoryError


class Calls:
    """A check that raises where any point of the batch is bad (as the catalogue's evaluations do)."""

    def __init__(self, bad: np.ndarray) -> None:
        self.bad, self.n = bad, 0

    def __call__(self, values: dict[str, Any]) -> None:
        self.n += 1
        if self.bad[values["i"]].any():
            raise SflTheoryError("a point outside its domain")


@pytest.mark.parametrize("share", [0.001, 0.05, 0.5, 0.95, 1.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_group_testing_finds_exactly_the_failing_points(share: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 700
    bad = rng.random(n) < share
    bad[rng.integers(n)] = True  # raising() is called where the whole batch fails: at least one point is bad
    check = Calls(bad)
    got = raising(check, {"i": np.arange(n)}, n)
    # the reference: each point on its own
    assert np.array_equal(got, bad)
    if bad.sum() <= 2:  # sparse failures: far fewer calls than the n of the loop it replaces
        assert check.n < 60


def test_power_is_powsimp() -> None:
    loss, param, time = sp.symbols("loss param time", positive=True)
    for d in (loss, loss**2 / param, loss * time ** sp.Rational(-1, 2), sp.Integer(1), param**3 * time):
        for e in (sp.Integer(2), sp.Rational(1, 2), sp.Integer(-1), sp.Float(0.25)):
            assert sp.simplify(power(d, e) - sp.powsimp(d**e, force=True)) == 0


def test_differs() -> None:
    x, y = sp.symbols("x y", positive=True)
    assert not differs(x * (y + 1), x * y + x)  # an identity: left to simplify
    assert not differs(sp.log(x * y), sp.log(x) + sp.log(y))
    assert differs(x * (y + 1), x * y)  # differs by x > 0 at every positive point
    assert not differs(1 / (x - x), x)  # not a finite number: not certain
