"""Commands that read the catalogue: ``list``, ``which``, ``show`` (:func:`register_lookups`) and the
``vocabulary`` and ``errata`` pages (:func:`register_pages`)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .. import report
from ..algorithms import TRAITS, Algorithm, algorithm, which
from ..errors import ParameterError
from ..registry import get, paper_keys, results
from .output import print_json


@contextmanager
def flags(rename: Mapping[str, str]) -> Iterator[None]:
    """A library error raised inside names its Python parameter (``name``, ``clients``): the command line names
    the flag that gave it (``rename``: parameter -> flag)."""
    try:
        yield
    except ParameterError as e:
        if e.name not in rename:
            raise
        raise ParameterError(rename[e.name], e.rule) from None


def _algorithm(name: str) -> Algorithm:
    with flags({"name": "--algorithm"}):
        return algorithm(name)


def _paper(key: str | None) -> str | None:
    """``--paper KEY`` checked: a known paper key (the built-in ones and those of loaded result files)."""
    if key is not None and key not in paper_keys():
        raise ParameterError("--paper", f"unknown paper key '{key}'; known: {', '.join(paper_keys())}")
    return key


def _cmd_list(a: argparse.Namespace) -> int:
    _paper(a.paper)
    given = [f for f, v in (("--paper", a.paper), ("--algorithm", a.algorithm)) if v is not None]
    if a.markdown and given:  # the page is the whole catalogue: a filter would be ignored
        raise ParameterError(given[0], f"--markdown writes the whole catalogue page (docs/CATALOGUE.md); drop "
                                       f"{' and '.join(given)} or drop --markdown")  # fmt: skip
    rs = results(a.paper)
    if a.algorithm is not None:
        keep = set(_algorithm(a.algorithm).results)
        rs = [r for r in rs if r.id in keep]
    if a.markdown:
        print(report.list_markdown())
    elif a.json:
        print_json([report.result_summary(r) for r in rs])
    else:
        print(report.list_text(rs))
    return 0


def _cmd_which(a: argparse.Namespace) -> int:
    """The algorithms that match the run described, and the results that analyse each."""
    traits = {k: getattr(a, k) for k in TRAITS}
    given = [f"--{k.replace('_', '-')}" for k, v in traits.items() if v is not None]
    if a.algorithm is not None:
        if given:  # one algorithm named: a trait would be ignored, not checked against it
            raise ParameterError("--algorithm", f"--algorithm names one algorithm; drop {', '.join(given)} (to "
                                                "match by traits) or drop --algorithm")  # fmt: skip
        found = [_algorithm(a.algorithm)]
    else:
        with flags({k: f"--{k.replace('_', '-')}" for k in TRAITS}):
            found = which(**traits)
    if a.json:
        print_json([{**a_.__dict__, "results": list(a_.results)} for a_ in found])
        return 0
    if not found:
        print("no algorithm of the five papers matches; drop a condition (sfltheory which --help lists them)")
        return 0
    for alg in found:
        _print_algorithm(alg)
    return 0


def _print_algorithm(alg: Algorithm) -> None:
    """One algorithm ``which`` found: its traits, then the results that analyse it and how to check a step."""
    traits = (f"{alg.client}-order clients, {alg.server}-order server, clients {alg.clients}"
              + (", local steps" if alg.local_steps else "") + (", tau server steps" if alg.server_steps else "")
              + (", partial participation" if alg.participation == "partial" else "")
              + (", auxiliary heads" if alg.aux else ""))  # fmt: skip
    print(f"{alg.name} ({alg.paper}): {alg.title}\n  {traits}")
    if alg.note:
        print(f"  note: {alg.note}")
    ids = alg.results or (algorithm(alg.covered_by).results if alg.covered_by else ())
    if not alg.results and alg.covered_by:
        print(f"  the results of {alg.covered_by}, the closest covered variant:")
    bounds = [r for r in (get(i) for i in ids) if r.kind in ("theorem", "corollary", "proposition")]
    for r in bounds:
        tag = "" if r.explicit else "  (O-form; explicit edition: " + (r.see or "-") + ")"
        print(f"  {r.id:34s} {r.kind:11s} {report.clip(r.title, 60)}{tag}")
    steps = [r for r in bounds if r.explicit and r.step]
    if steps:
        r0 = steps[0]
        print(f"  check a step: sfltheory check-lr {r0.id} {r0.step}=VALUE ... (missing constants are listed)")


def _cmd_show(a: argparse.Namespace) -> int:
    r = get(a.id)
    if a.json:
        print_json(report.show_dict(r))
    else:
        print(report.show_text(r))
    return 0


def _cmd_vocabulary(a: argparse.Namespace) -> int:
    results()  # the catalogue (and a user's loaded files) before the vocabulary they add to
    if a.markdown:
        print(report.vocabulary_markdown())
    elif a.json:
        print_json(report.vocabulary_rows())
    else:
        for r in report.vocabulary_rows():
            papers = ", ".join(f"{k}: {v}" for k, v in r["papers"].items())  # type: ignore[attr-defined]
            print(f"{r['name']:<12} {r['domain']:<9} {r['meaning']}" + (f"  [{papers}]" if papers else ""))
    return 0


def _cmd_errata(a: argparse.Namespace) -> int:
    rs = results(_paper(a.paper))
    if a.markdown:
        print(report.errata_markdown(rs))
    elif a.json:
        print_json(report.errata(rs))
    else:
        for e in report.errata(rs):
            print(f"{e['paper']}: {e['where']} — printed {e['printed']}; expected {e['expected']}")
    return 0


def register_lookups(sub: Any) -> None:
    """Add ``list``, ``which`` and ``show`` to a subparsers object."""
    s = sub.add_parser("list", help="list every encoded result")
    s.add_argument("--paper", help="only this paper's results")
    s.add_argument("--algorithm", help="only the results that analyse this algorithm (sfltheory which lists them)")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true", help="the catalogue page")
    s.set_defaults(func=_cmd_list)

    s = sub.add_parser(
        "which",
        help="which results analyse my training: describe it (first/zeroth order, clients, steps ...)",
        description="Describe your training and get the algorithms of the five papers that match it, with the "
        "results (theorems, corollaries) that analyse each. Every option narrows the match; none lists them all.",
    )
    s.add_argument("--client", choices=["first", "zeroth"], help="order of the client-side updates")
    s.add_argument("--server", choices=["first", "zeroth"], help="order of the server-side updates")
    s.add_argument(
        "--clients",
        choices=["parallel", "sequential", "one"],
        help="clients at once (SplitFed/FedAvg), one after another (split learning), or one",
    )
    s.add_argument("--local-steps", choices=["yes", "no"], help="several client steps per round (K, E > 1)")
    s.add_argument("--server-steps", choices=["yes", "no"], help="several server steps per client step (tau)")
    s.add_argument("--participation", choices=["full", "partial"], help="all clients each round, or n of M")
    s.add_argument("--aux", choices=["yes", "no"], help="clients train through an auxiliary head")
    s.add_argument("--algorithm", help="name an algorithm directly (sfl_v1, sl, fedavg, mu_splitfed ...)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_which)

    s = sub.add_parser("show", help="statement, LaTeX, provenance and vocabulary of a result")
    s.add_argument("id")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_show)


def register_pages(sub: Any) -> None:
    """Add ``vocabulary`` and ``errata`` to a subparsers object."""
    s = sub.add_parser("vocabulary", help="the canonical parameter names and each paper's notation")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true")
    s.set_defaults(func=_cmd_vocabulary)

    s = sub.add_parser("errata", help="every discrepancy recorded in the papers")
    s.add_argument("--paper")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--markdown", action="store_true")
    s.set_defaults(func=_cmd_errata)
