"""BibTeX entries of the five seed papers, for the documentation site's paper pages.

Each entry carries what the paper's full reference (:data:`sfltheory.registry.REFERENCES`, which ``sfltheory show``
prints) says: the same authors, title, venue and identifier. Where the seed prints no venue, year or identifier, the
reference says where they come from, and the entry's ``note`` repeats it. A test keeps every entry's authors and
title equal to those of the reference.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Citation:
    """One BibTeX entry: its type, key and fields, in the order they are written."""

    entry: str  # "article", "inproceedings", "misc", ...
    key: str
    authors: tuple[str, ...]
    title: str
    fields: tuple[tuple[str, str], ...] = ()

    def bibtex(self) -> str:
        """The entry as BibTeX text (authors joined by ``and``; the title's capitals kept with braces)."""
        rows = [("author", " and ".join(self.authors)), ("title", "{" + self.title + "}"), *self.fields]
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in rows)
        return f"@{self.entry}{{{self.key},\n{body}\n}}"


CITATIONS: dict[str, Citation] = {
    "mu_splitfed": Citation(
        entry="inproceedings",
        key="liang2025mu_splitfed",
        authors=("Dandan Liang", "Jianing Zhang", "Evan Chen", "Zhe Li", "Rui Li", "Haibo Yang"),
        title="Towards Straggler-Resilient Split Federated Learning: An Unbalanced Update Approach",
        fields=(
            ("booktitle", "Advances in Neural Information Processing Systems (NeurIPS 2025, poster)"),
            ("year", "2025"),
            ("eprint", "2510.21155"),
            ("archivePrefix", "arXiv"),
        ),
    ),
    "heron_sfl": Citation(
        entry="misc",
        key="kou2026heron_sfl",
        authors=("Zhoubin Kou", "Zihan Chen", "Jing Yang", "Cong Shen"),
        title="Lean Clients, Full Accuracy: Hybrid Zeroth- and First-Order Split Federated Learning",
        fields=(
            ("year", "2026"),
            ("eprint", "2601.09076"),
            ("archivePrefix", "arXiv"),
            ("note", "arXiv:2601.09076v1, 14 January 2026; the seed prints no venue, year or arXiv id"),
        ),
    ),
    "sl_noniid": Citation(
        entry="misc",
        key="anonymous2023sl_noniid",
        authors=("Anonymous authors",),
        title="Convergence Analysis of Split Learning on Non-IID Data",
        fields=(
            ("year", "2023"),
            ("howpublished", "Submitted to ICLR 2023, under double-blind review, OpenReview SNONkz5zEUF"),
            ("note", "the seed prints no venue or year; revised as arXiv:2302.01633 by Yipeng Li and Xinchen Lyu"),
        ),
    ),
    "cut_layer": Citation(
        entry="misc",
        key="dachille2024cut_layer",
        authors=("Justin Dachille", "Chao Huang", "Xin Liu"),
        title="The Impact of Cut Layer Selection in Split Federated Learning",
        fields=(("year", "2024"), ("eprint", "2412.15536"), ("archivePrefix", "arXiv")),
    ),
    "sfl_aux": Citation(
        entry="misc",
        key="talebi2024sfl_aux",
        authors=("Amirreza Talebi",),
        title=(
            "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker Participation and "
            "Auxiliary Networks"
        ),
        fields=(
            ("howpublished", "Preprints.org"),
            ("year", "2024"),
            ("doi", "10.20944/preprints202409.0335.v1"),
            ("note", "4 September 2024; not peer-reviewed"),
        ),
    ),
}


def bibtex(paper: str) -> str | None:
    """The BibTeX entry of a seed paper, or None for a paper that has none (a user's)."""
    c = CITATIONS.get(paper)
    return c.bibtex() if c is not None else None
