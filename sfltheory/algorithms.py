"""Which results analyse my training? The seeds' algorithms described by what a user knows about their run.

Each :class:`Algorithm` is one algorithm of the five papers (the trainer's ``verify.train`` implements each under
the same name; a test keeps the two lists in sync) with the traits a user can read off their own training:

* ``client`` / ``server``: ``"first"`` (back-propagated gradients) or ``"zeroth"`` (function values only) order
  on each side of the cut;
* ``clients``: ``"parallel"`` (every client at once, SplitFed / FedAvg style), ``"sequential"`` (one after the
  other, split-learning style) or ``"one"`` (a single client);
* ``local_steps``: several client steps per round (K or E > 1) are part of the algorithm;
* ``server_steps``: several server steps per client step (MU-SplitFed's unbalanced tau);
* ``participation``: ``"full"``, or ``"partial"`` (n of M clients a round) where the algorithm samples clients;
* ``aux``: clients train through an auxiliary head (no gradient comes back from the server).

:func:`which` filters by any of these; ``sfltheory which`` is its command line. This module is plain data: it
imports no torch (the algorithms themselves are ``verify.train``'s).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import ParameterError


@dataclass(frozen=True, kw_only=True)
class Algorithm:
    """One algorithm of the seeds, its traits and the results that analyse it."""

    name: str
    paper: str
    title: str
    client: str
    server: str
    clients: str
    local_steps: bool
    server_steps: bool
    participation: str
    aux: bool
    results: tuple[str, ...]
    note: str = ""
    covered_by: str = ""  # the closest variant whose results apply, where none analyses this one as printed


ALGORITHMS: tuple[Algorithm, ...] = (
    Algorithm(name="mu_split", paper="mu_splitfed", title="MU-Split: zeroth-order split learning, tau server steps",
              client="zeroth", server="zeroth", clients="one", local_steps=False, server_steps=True,
              participation="full", aux=False,
              results=("mu_splitfed/thm4.1", "mu_splitfed/thm4.1@proof", "mu_splitfed/cor4.2",
                       "mu_splitfed/cor4.2@proof", "mu_splitfed/eq24", "mu_splitfed/lemmaB.1",
                       "mu_splitfed/lemmaB.1.bias", "mu_splitfed/lemmaC.2", "mu_splitfed/lemmaC.3",
                       "mu_splitfed/lemmaC.4", "mu_splitfed/fn3")),
    Algorithm(name="mu_splitfed", paper="mu_splitfed", title="MU-SplitFed: zeroth-order SFL, tau server steps",
              client="zeroth", server="zeroth", clients="parallel", local_steps=False, server_steps=True,
              participation="full", aux=False,
              results=("mu_splitfed/thm4.3", "mu_splitfed/thm4.3@appendix", "mu_splitfed/thm4.3@proof",
                       "mu_splitfed/cor4.4", "mu_splitfed/cor4.4@proof", "mu_splitfed/eq12", "mu_splitfed/lemmaD.2",
                       "mu_splitfed/lemmaD.3")),
    Algorithm(name="sl", paper="sl_noniid", title="Split learning (sequential clients) with a global step",
              client="first", server="first", clients="sequential", local_steps=True, server_steps=False,
              participation="partial", aux=False,
              results=("sl_noniid/thm1", "sl_noniid/thm1@proof", "sl_noniid/lem4", "sl_noniid/cor1",
                       "sl_noniid/cor1@explicit", "sl_noniid/cor2", "sl_noniid/cor2@explicit", "sl_noniid/cor3",
                       "sl_noniid/cor3@explicit", "sl_noniid/thm3", "sl_noniid/eq43", "sl_noniid/eq67",
                       "sl_noniid/eq69", "sl_noniid/sec4.2.eta_g1", "sl_noniid/sec4.2.eta_g1@explicit",
                       "sl_noniid/sec4.2.eta_gN", "sl_noniid/sec4.2.eta_gN@explicit")),
    Algorithm(name="fedavg", paper="sl_noniid", title="FedAvg with a global step (no split: the comparison)",
              client="first", server="first", clients="parallel", local_steps=True, server_steps=False,
              participation="partial", aux=False,
              results=("sl_noniid/thm2", "sl_noniid/sec4.3.speedup", "sl_noniid/sec4.3.speedup@explicit"),
              note="the whole model trains on each client; sl_noniid compares it with split learning"),
    Algorithm(name="heron_sfl", paper="heron_sfl", title="HERON-SFL: zeroth-order clients with auxiliary heads",
              client="zeroth", server="first", clients="parallel", local_steps=True, server_steps=False,
              participation="full", aux=True,
              results=("heron_sfl/thm1", "heron_sfl/thm1@proof", "heron_sfl/thm1@round", "heron_sfl/thm1@sum",
                       "heron_sfl/lemma3", "heron_sfl/lemma4", "heron_sfl/eq45", "heron_sfl/thm2",
                       "heron_sfl/thm2@round", "heron_sfl/thm2@sum", "heron_sfl/thm2@proof", "heron_sfl/thm2@floor",
                       "heron_sfl/lemma5", "heron_sfl/table1_comm", "heron_sfl/table1_flops",
                       "heron_sfl/table1_memory", "heron_sfl/lemma2", "heron_sfl/remark2")),
    Algorithm(name="sfl_v1", paper="cut_layer", title="SFL-V1 as printed (per-client server copies)",
              client="first", server="first", clients="parallel", local_steps=True, server_steps=False,
              participation="full", aux=False, results=(),
              note="no result analyses it as printed: cut_layer/prop1 analyses sfl_v1_analysed (K split-SGD steps "
              "on both sides, then averaging), the closest covered variant", covered_by="sfl_v1_analysed"),
    Algorithm(name="sfl_v1_analysed", paper="cut_layer", title="SFL-V1 as analysed (K local steps, then averaging)",
              client="first", server="first", clients="parallel", local_steps=True, server_steps=False,
              participation="full", aux=False,
              results=("cut_layer/prop1", "cut_layer/prop1@proof", "cut_layer/lem1", "cut_layer/lem2",
                       "cut_layer/tau_def")),
    Algorithm(name="sfl_v2", paper="cut_layer", title="SFL-V2 (one shared server model, clients in sequence)",
              client="first", server="first", clients="sequential", local_steps=True, server_steps=False,
              participation="full", aux=False, results=("cut_layer/sfl_v2",),
              note="the paper gives no convergence result for SFL-V2 (cut_layer/sfl_v2 records that)"),
    Algorithm(name="sfl_aux", paper="sfl_aux", title="SplitFed with auxiliary networks, partial participation",
              client="first", server="first", clients="parallel", local_steps=True, server_steps=False,
              participation="partial", aux=True,
              results=("sfl_aux/thm1", "sfl_aux/cor1", "sfl_aux/thm2", "sfl_aux/thm2@proof", "sfl_aux/cor2",
                       "sfl_aux/thm3", "sfl_aux/thm3@appendix", "sfl_aux/cor3", "sfl_aux/cor3@appendix",
                       "sfl_aux/thm4", "sfl_aux/thm4@appendix", "sfl_aux/cor4", "sfl_aux/eqA11", "sfl_aux/eqA44",
                       "sfl_aux/eqA57")),
)  # fmt: skip

TRAITS: dict[str, tuple[str, ...]] = {
    "client": ("first", "zeroth"),
    "server": ("first", "zeroth"),
    "clients": ("parallel", "sequential", "one"),
    "local_steps": ("yes", "no"),
    "server_steps": ("yes", "no"),
    "participation": ("full", "partial"),
    "aux": ("yes", "no"),
}


def algorithm(name: str) -> Algorithm:
    """The algorithm called ``name``, or a one-line error naming ``name`` and listing the known ones (the command
    line renames it to ``--algorithm``)."""
    for a in ALGORITHMS:
        if a.name == name:
            return a
    raise ParameterError("name", f"unknown algorithm '{name}'; known: {', '.join(a.name for a in ALGORITHMS)}")


def which(**traits: str | None) -> list[Algorithm]:
    """The algorithms with every given trait (see the module docstring; ``None`` leaves a trait free). A
    partial-participation algorithm also covers full participation (n = M). An error names the keyword (``clients``);
    the command line renames it to its flag (``--clients``)."""
    for k, v in traits.items():
        if k not in TRAITS:
            raise ParameterError(k, f"not a trait; known: {', '.join(TRAITS)}")
        if v is not None and v not in TRAITS[k]:
            raise ParameterError(k, f"must be one of {', '.join(TRAITS[k])} (got {v!r})")
    out = []
    for a in ALGORITHMS:
        ok = True
        for k, v in traits.items():
            if v is None:
                continue
            have = getattr(a, k)
            if isinstance(have, bool):
                ok &= have == (v == "yes")
            elif k == "participation":
                ok &= have == v or (v == "full" and have == "partial")
            else:
                ok &= have == v
        if ok:
            out.append(a)
    return out


def results_of(names: Sequence[str]) -> list[str]:
    """The result ids that analyse any of the algorithms ``names``, in catalogue order of the algorithms."""
    out: dict[str, None] = {}
    for n in names:
        try:
            found = algorithm(n)
        except ParameterError as e:
            raise ParameterError("names", e.rule) from None
        out.update(dict.fromkeys(found.results))
    return list(out)


__all__ = ["ALGORITHMS", "TRAITS", "Algorithm", "algorithm", "results_of", "which"]
