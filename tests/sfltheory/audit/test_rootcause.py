"""Root causes: the audit's findings grouped by the one error each comes from (sfltheory.audit.rootcause), and the
errata page that lists them with their evidence (sfltheory.audit.errata)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sfltheory.audit import rootcause
from sfltheory.audit.errata import (
    catalogue_audit,
    collect_evidence,
    errata_markdown,
    evidence_records,
    with_evidence,
)
from sfltheory.audit.explain import seed_dirs
from sfltheory.audit.findings import SEVERITIES, Finding, Reevaluation
from sfltheory.audit.runner import Audit
from sfltheory.errors import ParameterError

ROOT = Path(__file__).resolve().parents[3]
MU = "000_0fb66116fc20c956.txt"  # MU-SplitFed
HERON = "001_e8dcbf2a405221d7.txt"


def units(result: str, term: str, severity: str = "bound invalid") -> Finding:
    return Finding(
        result=result,
        check="units",
        printed="",
        found=f"term '{term}' adds quantities of different dimension: 1/tau + 2*eta*eta_g/M: 1, param**2/loss",
        severity=severity,  # type: ignore[arg-type]
        seed=f"{MU}: somewhere",
    )


def test_three_findings_of_one_cause_become_one_root_cause() -> None:
    # one term printed in Theorem 4.3, reprinted in its appendix edition and substituted into Corollary 4.4's proof
    # (whose parent is Theorem 4.3): one cause. The most severe is the cause, the other two its consequences, in the
    # order given; a term of another name, and a term of HERON-SFL's lemma, are causes of their own.
    fs = [
        units("mu_splitfed/thm4.3@appendix", "ZO bias server", "unstated condition"),
        units("mu_splitfed/thm4.3", "ZO bias server"),
        units("mu_splitfed/cor4.4@proof", "ZO bias server", "unstated condition"),
        units("mu_splitfed/thm4.3", "ZO bias client"),
        units("heron_sfl/lemma5", "ZO bias server"),
    ]
    causes = rootcause.group(fs)
    assert len(causes) == 3
    zo = next(rc for rc in causes if len(rc.members) == 3)
    assert zo.cause.finding is fs[1] and zo.severity == "bound invalid"
    assert [m.finding for m in zo.consequences] == [fs[0], fs[2]]
    # each named as `audit --explain` numbers a result's findings of one check: thm4.3 has two units findings here
    assert zo.key == "mu_splitfed/thm4.3:units:1"
    assert [m.name for m in zo.consequences] == ["mu_splitfed/thm4.3@appendix:units", "mu_splitfed/cor4.4@proof:units"]
    assert zo.loses == rootcause.LOSSES["bound invalid"]
    apart = [rc for rc in causes if rc is not zo]
    assert sorted(rc.cause.finding.result for rc in apart) == ["heron_sfl/lemma5", "mu_splitfed/thm4.3"]
    assert all(not rc.consequences for rc in apart)
    # papers in the catalogue's order: MU-SplitFed's causes before HERON-SFL's
    assert [rc.paper for rc in causes] == ["mu_splitfed", "mu_splitfed", "heron_sfl"]


def test_a_proof_condition_groups_across_the_corollary_that_applies_it() -> None:
    # the failing hypothesis is named by the reevaluation that fails, on the theorem or, at the corollary's choices,
    # on its parent: both are the same implicit condition of App. D.1.3
    name = "D.1.3 drop server ||sum grad f_lambda||^2: eta_g eta_s tau L<=1/2"

    def together(result: str, on: str, hypothesis: str) -> Finding:
        ev = Reevaluation(result=on, params={"T": 1.0}, value=1.0, hypothesis=hypothesis, holds=False)
        return Finding(result=result, check="together", printed="", found="fails", severity="unstated condition",
                       seed=f"{MU}: x", witness={"T": 1.0}, reevaluations=(ev,))  # fmt: skip

    other = "D.1.3 drop client ||sum grad f_lambda||^2: eta_g eta_c L<=1"
    fs = [
        together("mu_splitfed/thm4.3", "mu_splitfed/thm4.3", name),
        together("mu_splitfed/cor4.4", "mu_splitfed/thm4.3", name),
        together("mu_splitfed/cor4.4", "mu_splitfed/thm4.3", other),
    ]
    causes = rootcause.group(fs)
    assert [len(rc.members) for rc in causes] == [2, 1]
    assert causes[0].results == ("mu_splitfed/thm4.3", "mu_splitfed/cor4.4")
    # a finding with a witness gives its re-check command as evidence
    assert causes[0].evidence[0].startswith("`sfltheory bound mu_splitfed/thm4.3 T=1` → 1")


def test_normalised_conditions_and_explain_names() -> None:
    # the proof's choice and the statement's condition on the same step are one formula
    assert rootcause.normalised("C.1.4 eta = 1/sqrt(d tau T)") == rootcause.normalised("eta<=1/sqrt(d tau T)")
    assert rootcause.normalised("(b_15) gradient coefficient <= 2") == "gradientcoefficient~2"
    assert rootcause.normalised("choice eta_c") == "eta_c"
    fs = [units("a/x", "t"), units("a/y", "t"), units("a/x", "u")]
    assert rootcause.explain_names(fs) == ["a/x:units:1", "a/y:units", "a/x:units:2"]


@pytest.fixture(scope="module")
def evidenced() -> Audit:
    return with_evidence(catalogue_audit(), evidence_records())


@pytest.fixture(scope="module")
def causes(evidenced: Audit) -> tuple[rootcause.RootCause, ...]:
    return rootcause.group(evidenced.findings)


def test_every_finding_is_in_exactly_one_root_cause(causes: tuple[rootcause.RootCause, ...], evidenced: Audit) -> None:
    fs = evidenced.findings
    members = [id(m.finding) for rc in causes for m in rc.members]
    assert sorted(members) == sorted(id(f) for f in fs)
    assert len({rc.key for rc in causes}) == len(causes)
    for rc in causes:
        worst = min(SEVERITIES.index(m.finding.severity) for m in rc.members)
        assert rc.severity == SEVERITIES[worst]
    # fewer causes than findings: grouping does something on the real catalogue
    assert len(causes) < len(fs)
    # every hand-written statement belongs to a cause the audit makes (none goes stale)
    assert set(rootcause.STATEMENTS) <= {rc.key for rc in causes}


def _seed(name: str) -> list[str] | None:
    path = next((d / name for d in seed_dirs() if (d / name).is_file()), None)
    return path.read_text(encoding="utf-8").splitlines() if path else None


def test_zo_bias_server_is_one_cause_as_the_seed_prints_it(causes: tuple[rootcause.RootCause, ...]) -> None:
    rc = next(rc for rc in causes if rc.key == "mu_splitfed/thm4.3:units")
    assert set(rc.results) == {
        "mu_splitfed/thm4.3",
        "mu_splitfed/thm4.3@appendix",
        "mu_splitfed/thm4.3@proof",
        "mu_splitfed/cor4.4@proof",
    }
    assert rc.severity == "bound invalid"
    assert all("'ZO bias server'" in m.finding.found for m in rc.members)
    lines = _seed(MU)
    if lines is None:
        pytest.skip("the seed text is not in this checkout")
    # the seed prints the same factor in Theorem 4.3 (10), Theorem D.1 (32) and the proof's (33): one error, reprinted
    factor = r"(1/\tau+8\eta^{2}\tau L^{2}+2\eta_{g}\eta/M)"
    for n in (176, 670, 786):
        assert factor in lines[n - 1], n
    assert "(10)" in lines[176 - 1] and "(32)" in lines[671 - 1] and "(33)" in lines[787 - 1]


def test_hand_written_statements_cite_seed_lines_that_say_so() -> None:
    mu, heron = _seed(MU), _seed(HERON)
    if mu is None or heron is None:
        pytest.skip("the seed text is not in this checkout")
    # eq. (7): x_c^{t+1} = x_c^t - eta_g sum_m w_m (x_{c,m}^{t+1} - x_{c,m}^t), the sign the statement quotes
    assert r"=x^{t}_{c}-\eta_{g}\sum_{m}w_{m}(x^{t+1}_{c,m}-x^{t}_{c,m})" in mu[115 - 1] and "(7)" in mu[115 - 1]
    # Lemma 5's eta_c^2 L^4 mu^2 d^3 at (51), and the same term in Phi_c' (59)
    for n in (516, 563):
        assert r"\eta_{c}^{2}L^{4}\mu^{2}d^{3}" in heron[n - 1], n
    assert "(59)" in heron[563 - 1]


def test_d13_condition_groups_theorem_and_corollary(causes: tuple[rootcause.RootCause, ...]) -> None:
    rc = next(rc for rc in causes if rc.key == "mu_splitfed/thm4.3:together:1")
    assert "eta_g eta_s tau L<=1/2" in rc.title
    assert {"mu_splitfed/thm4.3", "mu_splitfed/thm4.3@appendix", "mu_splitfed/cor4.4", "mu_splitfed/cor4.4@proof"} <= (
        set(rc.results)
    )


@pytest.fixture(scope="module")
def page() -> str:
    return errata_markdown()


def test_page_holds_every_finding_with_its_witness_and_explain_command(page: str, evidenced: Audit) -> None:
    a = evidenced
    for f in a.findings:
        for r in f.reevaluations:
            assert f"`{r.command()}`" in page, r.command()
    for rc in rootcause.group(a.findings):
        assert f"(`{rc.key}`)" in page
        for m in rc.consequences:
            assert f"`{rootcause.explain_command(m)}`" in page
    # the summary's root-cause column adds up to the count the page states
    n = len(rootcause.group(a.findings))
    assert f"{n} root causes over {len(a.findings)} findings." in page
    assert (ROOT / "docs" / "ERRATA.md").read_text() == page, "run `python -m sfltheory.mainjob --docs docs`"


def test_committed_evidence_shows_with_its_replay_command(page: str) -> None:
    recs = evidence_records()
    if not recs:
        pytest.skip("no docs/evidence/counterexamples.json")
    for rec in recs:
        assert rec["problem_file"].startswith("docs/evidence/")
        assert (ROOT / rec["problem_file"]).is_file()  # the replay command runs from the checkout's root
        if rec.get("kind") == "update_rule":
            replay = str(rec["command"]).replace(f"--problem {Path(rec['problem_file']).name}",
                                                 f"--problem {rec['problem_file']}")  # fmt: skip
            assert replay in page
    # the printed aggregation (7) ascends: one cause over Theorem 4.3, its editions and Corollary 4.4
    assert re.search(r"^#### \d+\. the update as printed \(aggregation=printed\) — bound invalid$", page, re.M)


def test_evidence_from_a_file_of_our_own(tmp_path: Path) -> None:
    # a worst-case record (verify --worst-case) on Theorem 4.1: a falsified finding, with its replay command naming
    # the problem file under docs/evidence
    rec = {"result": "mu_splitfed/thm4.1", "counterexample": True, "worst_ratio": 3.5, "at_T": 7, "step": 0.25,
           "instances": 4, "problem_file": "p.json"}  # fmt: skip
    f = tmp_path / "counterexamples.json"
    f.write_text(json.dumps({"format": "sfltheory.counterexamples/1", "results": [rec]}))
    recs = evidence_records(f)
    assert recs[0]["problem_file"] == "docs/evidence/p.json"
    text = errata_markdown(catalogue_audit(), recs)
    assert "sfltheory verify mu_splitfed/thm4.1 --problem docs/evidence/p.json --T 7" in text
    assert "3.5x the bound at T = 7" in text
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ParameterError, match="evidence"):
        evidence_records(tmp_path / "bad.json")
    assert evidence_records(tmp_path / "missing.json") == []


def test_audit_output_names_each_finding_in_one_root_cause() -> None:
    from sfltheory.audit import report

    a = catalogue_audit()
    d = report.to_dict(a)
    names = [n for rc in d["root_causes"] for n in rc["findings"]]
    assert sorted(names) == sorted(rootcause.explain_names(a.findings))  # each finding once
    text = report.text(a)
    assert f"{len(d['root_causes'])} root causes of {len(a.findings)} findings" in text
    assert "  mu_splitfed/thm4.3:units  [bound invalid] units: the term 'ZO bias server' (4 finding(s))" in text


def test_collect_keeps_counterexamples_and_their_problem_files(tmp_path: Path) -> None:
    src = tmp_path / "run"
    src.mkdir()
    (src / "q.json").write_text('{"kind": "quadratic"}')
    recs = [
        {"result": "mu_splitfed/thm4.1", "counterexample": True, "problem_file": "q.json", "worst_ratio": 2.0},
        {"result": "mu_splitfed/thm4.1", "counterexample": False},  # a search that found nothing: not evidence
    ]
    (src / "counterexamples.json").write_text(json.dumps({"format": "sfltheory.counterexamples/1", "results": recs}))
    out = collect_evidence([src], tmp_path / "evidence" / "counterexamples.json")
    doc = json.loads(out.read_text())
    assert doc["results"] == [recs[0]]
    assert (out.parent / "q.json").read_text() == '{"kind": "quadratic"}'
    with pytest.raises(ParameterError, match="sources"):
        collect_evidence([tmp_path / "nowhere"], tmp_path / "e2" / "counterexamples.json")
    assert not (tmp_path / "e2").exists()  # nothing written before the error
