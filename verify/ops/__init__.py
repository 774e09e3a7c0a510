"""Operators shared by the estimators and the trainer: the objective (mean loss, gradient; ``objective``),
Hessian-vector products in chunks (``hvp``), functional split forward/backward (``splitgrad``), parameter-tree
arithmetic (``tree``) and the zeroth-order estimator of the seeds (``zo``)."""
