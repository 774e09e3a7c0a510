"""CONTRIBUTING.md's template for a result runs and gives the values its formulas promise."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sfltheory.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[2]


def _template() -> dict[str, object]:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1
    ns: dict[str, object] = {}
    exec(compile(blocks[0], "CONTRIBUTING.md", "exec"), ns)
    return ns


def test_the_template_evaluates_to_its_formula() -> None:
    thm = _template()["THM1"]
    # L = 2, F = 3, T = 100, sigma2 = 0.5, eta = 0.1: 2*3/(0.1*100) + 0.1*2*0.5 = 0.6 + 0.1 = 0.7
    ev = evaluate(thm, L=2, F=3, T=100, sigma2=0.5, eta=0.1)  # type: ignore[arg-type]
    assert float(ev.value) == pytest.approx(0.7, rel=1e-12) and bool(ev.applies)
    # eta = 0.6 > 1/L = 0.5 breaks the step branch
    assert not bool(evaluate(thm, L=2, F=3, T=100, sigma2=0.5, eta=0.6).applies)  # type: ignore[arg-type]
    # without eta the named default fills it: eta = 1/L = 0.5 -> 2*3/(0.5*100) + 0.5*2*0.5 = 0.12 + 0.5 = 0.62
    ev = evaluate(thm, L=2, F=3, T=100, sigma2=0.5)  # type: ignore[arg-type]
    assert float(ev.value) == pytest.approx(0.62, rel=1e-12) and "eta" in ev.derived
