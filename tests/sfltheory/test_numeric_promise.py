"""Issue 24, cause 3 at the evaluation layer: a formula that is not a real number -- built in Python without a
results file, so the load-time check of :mod:`sfltheory.userresults` never saw it -- is an ``SflTheoryError``, not
SymPy's ``KeyError: 'ComplexInfinity'`` or ``float()``'s ``TypeError``."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from sfltheory.errors import SflTheoryError
from sfltheory.numeric import call

L = sp.Symbol("L", positive=True)


@pytest.mark.parametrize(
    "expr", [1 / (L - L), sp.log(0) * L, sp.oo * L, sp.nan + L], ids=["1/(L-L)", "log0", "oo", "nan"]
)
def test_an_infinity_sympy_already_sees_is_refused(expr: sp.Expr) -> None:
    with pytest.raises(SflTheoryError, match="not a finite real number"):
        call([expr], {"L": 1.0})


def test_an_imaginary_value_is_refused_scalar_and_array() -> None:
    # sqrt(-L) = i sqrt(L) for L > 0: at L = 4 it is 2i
    for at in (4.0, np.array([1.0, 4.0])):
        with pytest.raises(SflTheoryError, match="not a real number"):
            call([sp.sqrt(-L)], {"L": at})


def test_real_values_pass_through_unchanged() -> None:
    # sqrt(L) + 1/L at L = 4: 2 + 0.25
    (v,) = call([sp.sqrt(L) + 1 / L], {"L": 4.0})
    assert v == 2.25 and isinstance(v, float)
    (a,) = call([sp.sqrt(L)], {"L": np.array([1.0, 9.0])})
    assert a.tolist() == [1.0, 3.0]
    (z,) = call([sp.sqrt(-L) ** 2], {"L": 2.0})  # (i sqrt 2)^2 = -2: SymPy simplifies it to a real -L
    assert math.isclose(z, -2.0)


def test_an_overflowing_intermediate_on_a_2d_grid_is_recomputed_at_its_flat_index() -> None:
    # sqrt(x^2 + 1) at x = 1e200 is 1e200 exactly (to 1 part in 1e400); in floats x^2 = inf, so sqrt gives inf. On a
    # (1, 2) grid (plan's shape) the inf sits at flat index 1, which axis 0 (size 1) does not have: the guard at
    # 1000 examples found an IndexError there
    from sfltheory.numeric import call_finite

    x = sp.Symbol("x", positive=True)
    (out,) = call_finite("test", [sp.sqrt(x**2 + 1)], ["term"], {"x": np.array([[1.0, 1e200]])})
    assert out.shape == (1, 2)
    assert out[0, 0] == pytest.approx(math.sqrt(2)) and out[0, 1] == pytest.approx(1e200)
