"""Operators shared by the estimators and the trainer: the objective (mean loss, gradient, Hessian-vector
products in chunks), functional split forward/backward, parameter-tree arithmetic and the zeroth-order
estimators of the seeds."""
