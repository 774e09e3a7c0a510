r"""Trend checks (issue 14): does a claim about how convergence *changes* -- with the server steps tau, the cut,
the heterogeneity, the number of clients -- show up in what the algorithm does?

Each check runs the algorithm a claim is about on a small problem (an exact quadratic, or digits and a small MLP),
puts the measured series next to what the theory predicts, and returns a :class:`TrendCheck`: the claim with its
seed location, the verdict rule, the verdict (``agrees``, ``disagrees``, ``inconclusive``), the series, the key
numbers and an honest note on what the small setting cannot tell. :data:`CHECKS` lists them:

* ``tau_sweep`` -- MU-SplitFed: the planner's optimal tau under Theorem 4.3 against the measured best tau, at a
  fixed budget of rounds and at a fixed budget of simulated wall-clock under a straggler time model (eq. (12));
* ``cut_sweep`` -- MU-SplitFed: the measured left-hand side against d_c (one quadratic cut at different points)
  next to Theorem 4.3's dependence on d_c;
* ``cut_invariance`` -- cut_layer: SFL-V1's iterates do not depend on the cut, SFL-V2's do;
* ``sl_vs_fedavg`` -- sl_noniid: the ratio split learning / FedAvg of the average E||grad f||^2 against the
  heterogeneity eps2 (exact moments), next to the ratio of the paper's rates and of its explicit bounds;
* ``client_speedup`` -- sl_noniid: FedAvg's linear speedup in the number of clients at the printed step choice
  (exact moments), measured exponent in M against the bound's.

Zeroth-order checks are Monte Carlo over seeds (mean and standard error); first-order ones use exact moments
(:mod:`verify.pipeline.exact`). Every series is measured on the algorithms of :mod:`verify.train` as they are.

Layout: :mod:`.record` (the :class:`~.record.TrendCheck` record), one module per check holding its ``check`` and
its ``figure``, and what several checks share: :mod:`.verdicts` (the rules), :mod:`.series` (helpers on measured
series), :mod:`.runs` (theory parameters and training runs), :mod:`.plots` (figure helpers). The report's "Trends"
section is written by :mod:`verify.pipeline.report` from the records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sfltheory.errors import ParameterError

from . import client_speedup, cut_invariance, cut_sweep, sl_vs_fedavg, tau_sweep
from .record import TrendCheck
from .runs import Progress

# name -> the check (keyword arguments: its settings; returns a TrendCheck whose figure the module draws)
CHECKS: dict[str, Callable[..., TrendCheck]] = {
    m.NAME: m.check for m in (tau_sweep, cut_sweep, cut_invariance, sl_vs_fedavg, client_speedup)
}


def run_trends(names: Sequence[str] | None = None, *, progress: Progress = None, **settings: Any) -> list[TrendCheck]:
    """Run the named checks (all of :data:`CHECKS` by default) at their default settings; ``settings`` maps a check
    name to keyword arguments for it (e.g. ``tau_sweep={"seeds": 2}``)."""
    chosen = list(CHECKS) if not names else list(dict.fromkeys(names))
    for n in chosen:
        if n not in CHECKS:
            raise ParameterError("--trend", f"unknown trend check '{n}' (known: {', '.join(CHECKS)})")
    for n in settings:
        if n not in CHECKS:
            raise ParameterError("settings", f"unknown trend check '{n}'")
    return [CHECKS[n](progress=progress, **settings.get(n, {})) for n in chosen]


__all__ = ["CHECKS", "run_trends"]
