"""The registry of reproduced experiments: every quoted number appears verbatim in the seed file at the stated line
(the file is read here, not through the code under test's copy), and the paper's own spreads recomputed from the
quotes match what the paper says of them."""

from __future__ import annotations

import math

import pytest

from sfltheory.errors import ParameterError
from sfltheory.seedtables.core import seed_lines
from verify.reproduce import EXPERIMENTS, SCALES, get, select
from verify.reproduce.cut_layer_tables import paper_means
from verify.reproduce.verdicts import spread

QUOTES = [(e.id, e.seed, q.line, q.text) for e in EXPERIMENTS.values() for q in e.quotes]


@pytest.mark.parametrize(("ident", "seed", "line", "text"), QUOTES, ids=[f"{i}:{n}" for i, _, n, _ in QUOTES])
def test_quote_is_verbatim_at_its_line(ident: str, seed: str, line: int, text: str) -> None:
    lines = seed_lines(seed)
    if lines is None:
        pytest.skip(f"seed {seed} not at hand")
    assert text in lines[line - 1], f"{ident}: {text!r} not on line {line} of {seed}"


def test_every_experiment_is_complete() -> None:
    for e in EXPERIMENTS.values():
        assert set(e.scales) == set(SCALES), e.id
        assert e.quotes and e.claim and e.settings and e.algorithms
        lo, hi = e.lines
        assert lo <= hi and any(lo <= q.line <= hi for q in e.quotes), e.id  # the location holds a quoted number
        for s in e.scales.values():  # the substitution is stated for every scale the user runs
            assert s.substitution, (e.id, s.name)


def test_paper_spreads_from_the_quotes_match_the_paper_text() -> None:
    # cut_layer Table 3, CIFAR10 (seed 003, lines 177-184): SFL-V1 86.34 .. 85.94 -> 0.40; SFL-V2 92.30 .. 86.11 -> 6.19.
    # Table 4 (lines 189-196): SFL-V1 66.38 .. 64.51 -> 1.87; SFL-V2 69.45 .. 59.98 -> 9.47.
    # Sec. 5.2 (line 202) says 0.4% and 1.87% for SFL-V1: the same numbers, derived independently of the code.
    assert spread(paper_means("iid", "sfl_v1_analysed")) == pytest.approx(0.40, abs=1e-9)
    assert spread(paper_means("iid", "sfl_v2")) == pytest.approx(6.19, abs=1e-9)
    assert spread(paper_means("dirichlet:0.1", "sfl_v1_analysed")) == pytest.approx(1.87, abs=1e-9)
    assert spread(paper_means("dirichlet:0.1", "sfl_v2")) == pytest.approx(9.47, abs=1e-9)


def test_unknown_id_is_refused_naming_the_id() -> None:
    with pytest.raises(ParameterError, match="unknown experiment 'nope'"):
        get("nope")
    assert [e.id for e in select([])] == list(EXPERIMENTS)
    assert math.isnan(spread([1.0, math.nan]))
