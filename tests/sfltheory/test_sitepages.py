"""The documentation site's generated pages: the catalogue (a page per paper and per result), the BibTeX entries,
and the pages ``docs/sitegen.py`` derives from the committed docs and the package's modules."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from sfltheory import sitepages
from sfltheory.citations import CITATIONS, bibtex
from sfltheory.registry import REFERENCES, editions, get, results

ROOT = Path(__file__).resolve().parents[2]
ERRATA = (ROOT / "docs" / "ERRATA.md").read_text()


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    inputs = sitepages.SiteInputs(
        findings=sitepages.findings_by_result(ERRATA),
        figures={"mu_splitfed/thm4.3": ("terms_mu_splitfed",)},
        captions={"terms_mu_splitfed": "the terms against T"},
    )
    return sitepages.pages(inputs)


def test_every_result_and_paper_has_a_page(pages: dict[str, str]) -> None:
    rs = results()
    assert len(rs) == 105  # the catalogue's size (docs/CATALOGUE.md lists 105 ids)
    for r in rs:
        page = pages[f"{sitepages.page_path(r.id)}.md"]
        assert page.startswith(f"# `{r.id}`")
        assert r.provenance.label in page
    for key in REFERENCES:
        assert f"catalogue/{key}/index.md" in pages
    # one page per result, the paper pages and the catalogue's index: nothing else, no two ids on one page
    assert len(pages) == len(rs) + len(REFERENCES) + 1


def test_slug_keeps_editions_apart() -> None:
    ids = [r.id for r in results()]
    assert len({sitepages.page_path(i) for i in ids}) == len(ids)
    assert sitepages.slug("mu_splitfed/thm4.3@appendix") == "thm4.3-appendix"


def test_tables_keep_their_columns(pages: dict[str, str]) -> None:
    # LaTeX with norms (\|x\|) and absolute values must not split a Markdown table row: every row of a table has
    # as many unescaped pipes as its header
    def cells(row: str) -> int:
        return len(re.findall(r"(?<!\\)\|", row))

    checked = 0
    for text in pages.values():
        header = None
        for line in text.splitlines():
            if not line.startswith("|"):
                header = None
                continue
            if header is None:
                header = cells(line)
            assert cells(line) == header, line
            checked += 1
    assert checked > 1000


def test_cell_math_renders_the_same_symbols() -> None:
    assert sitepages.cell_math(r"\|\nabla f(x)\|^2\le|D_m|") == r"\Vert \nabla f(x)\Vert ^2\le\vert D_m\vert "


def test_result_page_sections(pages: dict[str, str]) -> None:
    r = get("mu_splitfed/thm4.3")
    page = pages["catalogue/mu_splitfed/thm4.3.md"]
    for section in ("Statement as printed", "Terms", "Hypotheses", "Defaults", "Assumptions", "Vocabulary"):
        assert f"## {section}" in page
    # the three editions side by side, each linked to its page
    assert [e.id for e in editions(r)] == [
        "mu_splitfed/thm4.3",
        "mu_splitfed/thm4.3@appendix",
        "mu_splitfed/thm4.3@proof",
    ]
    assert "[`mu_splitfed/thm4.3@appendix`](thm4.3-appendix.md)" in page
    # every hypothesis is listed with its source: 3 in the statement, 2 in the proof, 4 implicit (sfltheory show)
    rows = [ln for ln in page.split("## Hypotheses")[1].split("##")[0].splitlines() if ln.startswith("| ")]
    assert [ln.split("|")[1].strip() for ln in rows[1:]] == ["statement"] * 3 + ["proof"] * 2 + ["implicit"] * 4
    assert "sfltheory verify mu_splitfed/thm4.3" in page and "sfltheory check-lr mu_splitfed/thm4.3" in page
    assert "```{figure} ../../gallery/terms_mu_splitfed.png" in page
    # the recorded discrepancy of Theorem 4.3's second branch (the missing 1/eta_g)
    assert r"\eta_c\le\frac{MP}{12\eta_g Ld_c}" in page


def test_audit_findings_come_from_the_errata_page(pages: dict[str, str]) -> None:
    found = sitepages.findings_by_result(ERRATA)
    # the errata page's summary table gives each paper's total: the rows read back must add up to them
    totals = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| `(\w+)` \|.*\| (\d+) \|$", ERRATA, re.M)}
    for key, total in totals.items():
        assert sum(len(v) for rid, v in found.items() if rid.startswith(key + "/")) == total, key
    # seed links (outside the site) become their text
    assert not any("../shared/seeds" in row for rows in found.values() for row in rows)
    assert "The audit finds nothing on this result." in pages["catalogue/cut_layer/prop1.md"]
    # the generic checks find nothing on cut_layer: its rows are the counterexamples of the committed evidence
    evidence = ROOT / "docs" / "evidence" / "counterexamples.json"
    records = json.loads(evidence.read_text())["results"] if evidence.is_file() else []
    assert totals["cut_layer"] == sum(
        r["result"].startswith("cut_layer/") and bool(r["counterexample"]) for r in records
    )


def test_figures_named_by_their_scripts() -> None:
    found = sitepages.figures_by_result({"a": 'st.get("mu_splitfed/thm4.1")', "b": "x = 'sl_noniid/thm1'; y = 2"})
    assert found == {"mu_splitfed/thm4.1": ("a",), "sl_noniid/thm1": ("b",)}


def test_bibtex_agrees_with_the_reference() -> None:
    assert set(CITATIONS) == set(REFERENCES)
    for key, c in CITATIONS.items():
        ref = REFERENCES[key]
        assert c.title in ref, key
        for author in c.authors:
            assert author in ref, (key, author)
        text = bibtex(key)
        assert text is not None and text.count("{") == text.count("}")
        assert text.startswith(f"@{c.entry}{{{c.key},") and text.endswith("}")
    assert bibtex("not_a_paper") is None
    assert "author = {Justin Dachille and Chao Huang and Xin Liu}" in (bibtex("cut_layer") or "")


def test_paper_page_lists_its_results(pages: dict[str, str]) -> None:
    page = pages["catalogue/sfl_aux/index.md"]
    assert "```bibtex" in page and "doi = {10.20944/preprints202409.0335.v1}" in page
    for r in results("sfl_aux"):
        assert f"[`{r.id}`]({sitepages.slug(r.id)}.md)" in page


def test_sitegen_documents_every_module() -> None:
    pytest.importorskip("torch")
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import sitegen
    finally:
        sys.path.remove(str(ROOT / "docs"))
    from tests.test_api_docs import modules

    api = "\n".join(sitegen.api_pages().values())
    documented = set(re.findall(r"^\.\. automodule:: (\S+)$", api, re.M))
    assert documented == {m.__name__ for m in modules()}
    ref = sitegen.reference_pages()
    assert "../shared/seeds" not in ref["reference/errata.md"]
    assert "[`cut_layer/prop1`](../catalogue/cut_layer/prop1.md)" in ref["reference/algorithms.md"]
    assert ":math:`" not in ref["reference/algorithms.md"]


def test_terms_figure_of_theorem_4_3_by_hand(tmp_path: Path) -> None:
    from sfltheory import termsfigure

    c = termsfigure.curves("mu_splitfed/thm4.3")
    assert not isinstance(c, str)
    # the largest step of Theorem 4.3 at L = 1, tau = 2, d_s = 990,000, M = 10, d_c = 10,000:
    # min(1/(120 L (tau + 2 d_s)), M/(12 tau L d_c)) = min(1/237,600,240, 10/240,000) = 4.2087e-9,
    # independent of T; the initialisation term 4F/(T eta_g eta tau) at T = 10: 9.2/(20 * 4.2087e-9) = 1.0930e8
    eta = 1 / (120 * (2 + 2 * 990_000))
    assert c.T[0] == 10
    assert c.terms["initialisation"][0] == pytest.approx(4 * 2.3 / (10 * 1 * eta * 2), rel=1e-12)
    assert c.total[0] == pytest.approx(sum(v[0] for v in c.terms.values()), rel=1e-12)
    assert termsfigure.draw(c, tmp_path / "t.png").stat().st_size > 10_000
    # a cost model and a per-round inequality have no such figure, and say why
    assert "does not depend on the number of rounds" in str(termsfigure.curves("mu_splitfed/eq12"))
    assert "drift_round" in str(termsfigure.curves("heron_sfl/thm2@round"))


def test_explain_names_match_the_audit(pages: dict[str, str]) -> None:
    # the names a result page gives for `audit --explain` are those the command accepts, in the audit's order
    from sfltheory.audit.runner import audit

    rid = "mu_splitfed/cor4.2"
    names = sitepages.explain_names(rid, sitepages.findings_by_result(ERRATA)[rid])
    found = audit([rid]).findings
    assert len(names) == len(found)
    for name, f in zip(names, found, strict=True):
        check = name.split(":")[1]
        assert check == f.check
        same = [g for g in found if g.check == check]
        assert (name.count(":") == 2) == (len(same) > 1)
        n = int(name.split(":")[2]) if name.count(":") == 2 else 1
        assert same[n - 1] is f  # the N-th finding of that check is the one on this row
    assert "sfltheory audit --explain mu_splitfed/cor4.2:units:7" in pages["catalogue/mu_splitfed/cor4.2.md"]
