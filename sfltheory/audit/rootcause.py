"""The audit's findings grouped by root cause: one place in a paper, and every finding it causes.

Many findings are one error seen several times: a term printed in a theorem is reprinted in its appendix and proof
editions and substituted into its corollaries, so the units check flags it on each; an implicit proof condition
fails on the theorem and on every corollary that applies it. :func:`group` puts such findings together, from the
findings and the encodings alone (no seed text is read):

* a result's *family* is its theorem: a corollary belongs to the theorem it follows from
  (:func:`sfltheory.audit.lineage.parent`), every other result to its own label (so its editions share it);
* a finding's *subject* is what it is about, read from its check and its structured data: a term by name, a
  hypothesis by its formula (the reevaluation that fails names it), an edition pair, a corollary, the validity of
  a denominator, a printed update rule; choices that set a dimensional quantity to a plain number ("the
  corollary's choices fix a unit") are one subject per family;
* two findings share a root cause when they share a family and a subject, or when they are about one hypothesis
  used at one place of the seed (the same formula and the same ``where``) in two families.

Each :class:`RootCause` names its most telling finding (the most severe, with a witness, on the main text, first
in the audit's order) as the cause; the others are its consequences. Its severity is the most severe of its
findings (:data:`sfltheory.audit.findings.SEVERITIES`), and :data:`LOSSES` says in one sentence what a reader loses
at each. A few causes carry a hand-written statement with seed line numbers (:data:`STATEMENTS`), each checked
against the seed text; a test keeps every key there in use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..registry import paper_keys, results
from ..result import Hypothesis, Result
from .findings import CHECK_TITLES, SEVERITIES, Finding, Severity
from .lineage import parent

# what a reader loses, one sentence per severity (the definitions of sfltheory.audit.findings)
LOSSES: dict[str, str] = {
    "bound invalid": "the printed bound can be below the true value (or is not a bound at all there): a reader who "
    "relies on it can be wrong.",
    "constant off": "the bound's form survives but a constant or factor differs from what its derivation gives: "
    "numbers computed from it are off by that factor.",
    "unstated condition": "the result needs a condition it does not state: where that condition fails, the bound "
    "is not proved (a reader must add the condition before using it).",
    "cosmetic": "nothing in the bound: two printings differ in a way that changes no conclusion; a reader only "
    "needs to know which one to quote.",
}
assert tuple(LOSSES) == SEVERITIES

EVIDENCE_DIR = "docs/evidence"  # where the committed counterexamples live (relative to the checkout)

TERM = re.compile(r"^term '([^']+)'")
UNITS_CONDITION = re.compile(r"^condition (.+?)(?:: the left side| adds quantities)")
UPDATE_RULE = re.compile(r"^the update as printed \(([^=)]+)=([^)]+)\)")
NORMALISATION = "the corollary's choices fix a unit"
LOCATION_PREFIX = re.compile(r"^(?:choice\s+|[A-Z]?\.?\d+(?:\.\d+)*\s+|\([a-z]_?\{?\d+\}?\)\s+)")


@dataclass(frozen=True, kw_only=True)
class Member:
    """One finding of a root cause and the name ``sfltheory audit --explain`` knows it by."""

    finding: Finding
    name: str  # RESULT:CHECK[:N], numbered as the audit orders a result's findings of one check


@dataclass(frozen=True, kw_only=True)
class Statement:
    """A hand-written statement of a cause in the paper's own terms, with where the seed prints it (lines)."""

    cause: str
    seed: str


@dataclass(frozen=True, kw_only=True)
class RootCause:
    """One error in a paper and every finding it causes.

    ``key``: the ``--explain`` name of the cause's finding (unique, stable for a given audit); ``title``: what it is
    about in a few words; ``statement``: one sentence stating the cause where the paper prints it; ``seed``: the seed
    file and location; ``severity``: the most severe of its findings, and ``loses`` what a reader loses there;
    ``evidence``: lines a reader re-checks it by (re-check commands with the values they print, or the instance and
    the ``--explain`` command); ``cause`` and ``consequences``: its findings, the most telling one first."""

    key: str
    paper: str
    title: str
    statement: str
    seed: str
    seed_file: str
    severity: Severity
    loses: str
    evidence: tuple[str, ...]
    cause: Member
    consequences: tuple[Member, ...]
    results: tuple[str, ...]

    @property
    def members(self) -> tuple[Member, ...]:
        """The cause's finding, then its consequences."""
        return (self.cause, *self.consequences)


# A family whose terms another result prints first, read in the seed: Theorem 2's proof (59)-(61) of HERON-SFL
# reprints Lemma 5's (51) terms (001, lines 516 and 563), so a term wrong in both is one cause, at the lemma.
FEEDS: dict[str, str] = {"heron_sfl/thm2": "heron_sfl/lemma5"}

# Causes stated by hand, each read in the seed at the lines given (000 = MU-SplitFed).
STATEMENTS: dict[str, Statement] = {
    "mu_splitfed/thm4.3:units": Statement(
        cause="Theorem 4.3 multiplies the server's smoothing bias tau L^2 lambda^2 d_s^3 by (1/tau + 8 eta^2 tau L^2 "
        "+ 2 eta_g eta / M), whose last summand has the dimension of a step (param^2/loss) where the other two are "
        "numbers; Theorem D.1 (32), the proof's display (33) and Corollary 4.4's proof, which substitutes eta and "
        "eta_g into it, reprint the same factor.",
        seed="000_0fb66116fc20c956.txt: Theorem 4.3 (10), line 176; Theorem D.1 (32), lines 670-671; proof of D.1, "
        "lines 777, 783 and (33), lines 786-787",
    ),
    "heron_sfl/lemma5:units:1": Statement(
        cause="Lemma 5 (51) bounds the client's descent with the term eta_c^2 L^4 mu^2 d^3, of dimension "
        "loss^2/param^2 where the lemma's left-hand side is a loss; (52) and Phi_c' (59) carry it into Theorem 2's "
        "per-round (60) and summed (61) inequalities, where it again differs from the left-hand side's dimension.",
        seed="001_e8dcbf2a405221d7.txt: Lemma 5 (51), line 516; (52), line 524; (59), line 563",
    ),
    "mu_splitfed/thm4.3:together:1": Statement(
        cause="App. D.1.3 drops the server's ||sum grad f_lambda||^2 term after 'Putting together', which needs "
        "eta_g eta_s tau L <= 1/2; Theorem 4.3's step-size conditions do not imply it, and Corollary 4.4's choices "
        "eta_g = sqrt(tau M), eta = 1/(tau L sqrt(dT)) satisfy it only for T >= 4 M tau / d.",
        seed="000_0fb66116fc20c956.txt: App. D.1.3, first '<=' after 'Putting together'; Theorem 4.3 (10), line 176",
    ),
    "mu_splitfed/thm4.3:falsified": Statement(
        cause="MU-SplitFed's aggregation (7) prints x^{t+1} = x^t - eta_g sum_m w_m (x^{t+1}_m - x^t_m), subtracting "
        "the clients' own progress, where the proofs of Theorem 4.3 and Corollary 4.4 analyse the update that adds "
        "it: on a quadratic in the assumption class the printed update ascends where the analysed one descends.",
        seed="000_0fb66116fc20c956.txt: eq. (7), Sec. 3, line 115 (Algorithm 1, line 88, updates 'according to (7)')",
    ),
}


def explain_names(findings: Sequence[Finding]) -> list[str]:
    """The ``sfltheory audit --explain`` name of each finding, in the order given (the audit's order): ``RESULT:CHECK``,
    with ``:N`` when the result has several findings of that check (N counts them in that order)."""
    total: dict[tuple[str, str], int] = {}
    for f in findings:
        total[(f.result, f.check)] = total.get((f.result, f.check), 0) + 1
    seen: dict[tuple[str, str], int] = {}
    out = []
    for f in findings:
        k = (f.result, f.check)
        seen[k] = seen.get(k, 0) + 1
        out.append(f"{f.result}:{f.check}" + (f":{seen[k]}" if total[k] > 1 else ""))
    return out


def explain_command(m: Member) -> str:
    """The command that prints a member in full; a counterexample needs the evidence folder that holds it."""
    extra = f" --counterexamples {EVIDENCE_DIR}" if m.finding.check == "falsified" else ""
    return f"sfltheory audit --explain {m.name}{extra}"


def normalised(condition: str) -> str:
    """A condition's formula without the location its name starts with, its relation or its spaces:
    ``C.1.4 eta = 1/sqrt(d tau T)`` and ``eta<=1/sqrt(d tau T)`` both give ``eta~1/sqrt(dtauT)``."""
    s = LOCATION_PREFIX.sub("", condition.strip())
    s = re.sub(r"<=|>=|==|=|<|>", "~", s)
    return re.sub(r"\s+", "", s)


def _hypothesis(r: Result | None, name: str) -> Hypothesis | None:
    return next((h for h in r.hypotheses if h.name == name), None) if r is not None else None


def links(f: Finding, family: str, by_id: Mapping[str, Result]) -> tuple[tuple[str, ...], ...]:
    """The keys through which ``f`` joins other findings of one cause (see the module docstring): the first is its
    subject within its family; a hypothesis adds its formula at its place in the seed."""
    p = f.paper
    if f.check == "units":
        m = TERM.match(f.found)
        if m and NORMALISATION in f.found:
            return ((p, family, "normalisation"),)
        if m:
            fed = FEEDS.get(family)
            return ((p, family, "term", m.group(1)), *(((p, fed, "term", m.group(1)),) if fed else ()))
        c = UNITS_CONDITION.match(f.found)
        if c:
            h = _hypothesis(by_id.get(f.result), c.group(1))
            return _condition_links(p, family, c.group(1), h)
    if f.check == "together":
        failing = next((r for r in f.reevaluations if r.hypothesis and r.holds is False), None)
        if failing is not None and failing.hypothesis is not None:
            h = _hypothesis(by_id.get(failing.result), failing.hypothesis)
            return _condition_links(p, family, failing.hypothesis, h)
    if f.check == "validity":  # a denominator that vanishes and the condition that it stays positive: one cause
        return ((p, family, "validity"),)
    if f.check == "editions":
        pair = tuple(sorted(r.result for r in f.reevaluations)) or (f.result,)
        return ((p, family, "editions", *pair),)
    if f.check == "falsified":
        u = UPDATE_RULE.match(f.found)
        if u:
            return ((p, family, "update rule", u.group(1), u.group(2)),)
    # corollary, rates, printed, substitutions, other counterexamples: one cause per result and finding text
    return ((p, family, f.check, f.result, f.found),)


def _condition_links(p: str, family: str, name: str, h: Hypothesis | None) -> tuple[tuple[str, ...], ...]:
    form = normalised(name)
    out: list[tuple[str, ...]] = [(p, family, "condition", form)]
    if h is not None and h.where:
        out.append((p, "where", form, h.where))  # one hypothesis at one place of the seed, in another family
    if h is not None and h.kind == "choice":  # a choice that fixes a unit: with the terms it makes inconsistent
        out.append((p, family, "normalisation"))
    return tuple(out)


def family_of(r: Result | None, result_id: str, catalogue: Sequence[Result]) -> str:
    """The theorem a result belongs to: a corollary's parent theorem, else its own label (``paper/label``)."""
    if r is None:
        return result_id.split("@", 1)[0]
    p = parent(r, catalogue)
    root = p if p is not None else r
    return f"{root.paper}/{root.label}"


def _rank(f: Finding, by_id: Mapping[str, Result], position: int) -> tuple[int, int, int, int]:
    r = by_id.get(f.result)
    main = 0 if r is not None and r.edition == "" else 1
    return (SEVERITIES.index(f.severity), 0 if f.reevaluations else 1, main, position)


NORMALISING = ("", "", "normalisation")


def _title(f: Finding, key: tuple[str, ...]) -> str:
    kind = key[2] if len(key) > 2 else f.check
    if kind == "term":
        return f"units: the term '{key[3]}'"
    if kind == "normalisation":
        return "units: choices that set a dimensional quantity to a plain number"
    if kind == "condition":
        failing = next((r.hypothesis for r in f.reevaluations if r.hypothesis and r.holds is False), None)
        m = UNITS_CONDITION.match(f.found)
        name = failing or (m.group(1) if m else key[3])
        return f"the condition {name}"
    if kind == "validity":
        return "a denominator that the stated conditions let reach zero"
    if kind == "editions":
        return "editions disagree: " + " vs ".join(key[3:])
    if kind == "update rule":
        return f"the update as printed ({key[3]}={key[4]})"
    return f"{CHECK_TITLES[f.check]}: {f.result}"


def _evidence(m: Member, told: bool) -> tuple[str, ...]:
    f = m.finding
    if f.reevaluations:
        out = []
        for r in f.reevaluations:
            fails = f" (its condition {r.hypothesis} fails there)" if r.hypothesis and r.holds is False else ""
            out.append(f"`{r.command()}` → {r.value:.6g}{fails}")
        return tuple(out)
    if f.check == "falsified" and "replay: " in f.found:
        return (f"replay: `{f.found.rsplit('replay: ', 1)[1]}`", f"`{explain_command(m)}`")
    # a generated statement already is the instance: it is not repeated
    instance = f"instance: {f.found}" if told else "instance: the computation the cause states"
    return (instance, f"`{explain_command(m)}`")


def _where_printed(r: Result | None, f: Finding) -> str:
    if r is None:
        return f.result
    p = r.provenance
    return f"{p.label}{' ' + p.equation if p.equation else ''}"


def group(findings: Sequence[Finding], catalogue: Sequence[Result] | None = None) -> tuple[RootCause, ...]:
    """The root causes of ``findings`` (in the audit's order), each finding in exactly one.

    Ordered by paper (:func:`sfltheory.registry.paper_keys`), then by severity (most severe first), then by where the
    cause's first finding stands in the audit."""
    cat = list(catalogue) if catalogue is not None else results()
    by_id = {r.id: r for r in cat}
    names = explain_names(findings)
    families: dict[str, str] = {}
    parent_of = list(range(len(findings)))

    def root(i: int) -> int:
        while parent_of[i] != i:
            parent_of[i] = parent_of[parent_of[i]]
            i = parent_of[i]
        return i

    first_key: dict[tuple[str, ...], int] = {}
    primary: list[tuple[str, ...]] = []
    normalising: set[int] = set()  # findings joined through a family's unit-fixing choices
    for i, f in enumerate(findings):
        if f.result not in families:
            families[f.result] = family_of(by_id.get(f.result), f.result, cat)
        keys = links(f, families[f.result], by_id)
        primary.append(keys[0])
        if any(k[2:3] == ("normalisation",) for k in keys):
            normalising.add(i)
        for k in keys:
            j = first_key.setdefault(k, i)
            parent_of[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(findings)):
        groups.setdefault(root(i), []).append(i)
    order = {k: n for n, k in enumerate(paper_keys())}
    out = []
    for idx in groups.values():
        head = min(idx, key=lambda i: _rank(findings[i], by_id, i))
        members = [Member(finding=findings[i], name=names[i]) for i in idx]
        cause = members[idx.index(head)]
        f = cause.finding
        severity = min((m.finding.severity for m in members), key=SEVERITIES.index)
        told = STATEMENTS.get(cause.name)
        r = by_id.get(f.result)
        out.append(
            (
                (order.get(f.paper, len(order)), SEVERITIES.index(severity), min(idx)),
                RootCause(
                    key=cause.name,
                    paper=f.paper,
                    title=_title(f, NORMALISING if normalising.intersection(idx) else primary[head]),
                    statement=told.cause if told else f"{_where_printed(r, f)}: {f.found}",
                    seed=told.seed if told else f.seed,
                    seed_file=f.seed.split(":", 1)[0],
                    severity=severity,
                    loses=LOSSES[severity],
                    evidence=_evidence(cause, told is not None),
                    cause=cause,
                    consequences=tuple(m for m in members if m is not cause),
                    results=tuple(dict.fromkeys(m.finding.result for m in members)),
                ),
            )
        )
    out.sort(key=lambda t: t[0])
    return tuple(rc for _, rc in out)
