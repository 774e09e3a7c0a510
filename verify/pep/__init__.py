"""Performance estimation: the worst case of the trainer's first-order algorithms over each theorem's function
class, as a semidefinite program solved directly (issue 26). :mod:`verify.pep.gram` holds the SDP,
:mod:`verify.pep.classes` the function classes, :mod:`verify.pep.methods` the algorithms, :mod:`verify.pep.worst`
one worst case, :mod:`verify.pep.interpolant` the concrete function that attains it."""

from .gram import EXTRA, GramProblem, GramSolution, require_solver
from .worst import ClassWorstCase, WorstCaseSpec, worst_case

__all__ = ["EXTRA", "ClassWorstCase", "GramProblem", "GramSolution", "WorstCaseSpec", "require_solver", "worst_case"]
