"""Measured against predicted (issue 14): exact moments of first-order algorithms on quadratics (``exact``);
the verification experiments, verdicts and report are to come."""
