"""The audit: every result machine-checked against itself, its parents and its units, with witnesses.

Generic checks, each its own module, driven by the encoded results (never by a list of known findings):
:mod:`.corollary`, :mod:`.together`, :mod:`.editions`, :mod:`.units`, :mod:`.validity`, :mod:`.rates`,
:mod:`.printed`, :mod:`.substitutions`. :func:`audit` runs them; :mod:`.report` renders the outcome;
:mod:`.errata` writes ``docs/ERRATA.md`` from the findings and the discrepancies recorded by reading.
"""

from .findings import CHECKS, SEVERITIES, Finding, Reevaluation, Skip
from .runner import Audit, audit

__all__ = ["CHECKS", "SEVERITIES", "Audit", "Finding", "Reevaluation", "Skip", "audit"]
