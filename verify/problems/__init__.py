"""The problems the trainer runs and the constants estimators describe: one abstraction, :class:`Problem`.

A problem is the oracle every algorithm sees (``client_forward``, ``server_loss``, ``sample``, ``full_gradient``
...), its sizes (:meth:`Problem.counts`) and the constants the theorems assume at any point
(:meth:`Problem.constants`, a :class:`sfltheory.constants.Constants` record): exact on a
:class:`QuadraticProblem`, measured on a :class:`ModelProblem`. :func:`build` makes one from a spec of
:mod:`verify.spec`.
"""

from __future__ import annotations

from .base import Counts, FullGradient, Point, Problem
from .build import build, default_cut, loss_for, model_for, model_problem, problem_from, quadratic_from_targets
from .interpolated import InterpolatedProblem
from .model import SPLIT, ModelProblem, default_aux, measurement_plan, per_sample, whole_model
from .quadratic import QuadraticProblem

__all__ = [
    "SPLIT",
    "Counts",
    "FullGradient",
    "InterpolatedProblem",
    "ModelProblem",
    "Point",
    "Problem",
    "QuadraticProblem",
    "build",
    "default_aux",
    "default_cut",
    "loss_for",
    "measurement_plan",
    "model_for",
    "model_problem",
    "per_sample",
    "problem_from",
    "quadratic_from_targets",
    "whole_model",
]
