"""track() (sup/quantiles along SGD, resume after an interruption) and the zeroth-order error."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from sfltheory.errors import ParameterError
from verify.constants.track import Trajectory, track
from verify.constants.zo import zo_error
from verify.ops.objective import Objective

from .test_measure import CLIENTS, SPLIT, Quadratic, S, linreg, quad_loss, sq_loss

# the package exports the function `track`, which hides the submodule of the same name
track_mod = importlib.import_module("verify.constants.track")


def _run(out: Path | None) -> Trajectory:
    model, X, y = linreg(n=60, dim=4)
    clients = [torch.arange(0, 30), torch.arange(30, 60)]
    return track(model, sq_loss, (X, y), what=["L", "sigma2", "eps2", "F"], steps=4, every=2, lr=0.1,
                 train_batch=8, out=out, clients=clients, tol=1e-8, device="cpu")  # fmt: skip


def test_track_sup_quantiles_and_secant() -> None:
    t = _run(None)
    assert t.steps == [0, 2, 4] and len(t.points) == 3
    s = t.summary
    sig = [p.sigma2.value for p in t.points if p.sigma2 is not None]
    assert s.sigma2 is not None and s.sigma2.value == max(sig)
    assert s.variants["sigma2[q50]"].value == pytest.approx(sorted(sig)[1])
    # least squares: the Hessian X^T X/n does not move, so L is the same at every point, and a secant over a
    # step lies between the extreme eigenvalues
    Ls = [p.L.value for p in t.points if p.L is not None]
    assert max(Ls) - min(Ls) < 1e-8 * max(Ls)
    sec = [p.variants["L[secant]"].value for p in t.points[:-1]]
    assert all(0 < v <= max(Ls) * (1 + 1e-9) for v in sec)
    # F is the gap at the start, not a sup
    assert s.F == t.points[0].F
    # with B^2 = 1 the least G^2 over the trajectory is the largest mean heterogeneity seen
    assert s.G2 is not None and s.G2.value == pytest.approx(max(p.G2.value for p in t.points if p.G2))


def test_track_resumes_after_interruption(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _run(tmp_path / "whole")
    calls = {"n": 0}
    real = track_mod.measure

    def flaky(*a, **k):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt  # the user stops the run before the last checkpoint
        return real(*a, **k)

    monkeypatch.setattr(track_mod, "measure", flaky)
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path / "cut")
    monkeypatch.setattr(track_mod, "measure", real)
    resumed = _run(tmp_path / "cut")
    assert resumed.steps == [0, 2, 4]
    for key, e in whole.summary.items():
        got = resumed.summary.get(key)
        assert got is not None and got.value == pytest.approx(e.value, rel=1e-9), key
    model, X, y = linreg(n=60, dim=4)
    with pytest.raises(ParameterError) as err:  # other settings in the same directory: refused, not overwritten
        track(model, sq_loss, (X, y), what=["F"], steps=2, every=1, out=tmp_path / "cut", device="cpu")
    assert err.value.name == "out"


def _run15(out: Path | None) -> Trajectory:
    """60 SGD steps measured every 15: checkpoints 0, 15, 30, 45, 60 (the issue's example)."""
    model, X, y = linreg(n=40, dim=3)
    return track(model, sq_loss, (X, y), what=["L", "sigma2", "F"], steps=60, every=15, lr=0.05, train_batch=4,
                 out=out, tol=1e-8, device="cpu")  # fmt: skip


def test_track_summary_has_the_secant() -> None:
    # L[secant] is measured over the step after each point, so never at the last one; before issue 11 the summary
    # skipped any key missing at some point, and never held it. Now: the sup over the points that have it.
    t = _run15(None)
    assert t.steps == [0, 15, 30, 45, 60]
    sec = [p.variants["L[secant]"].value for p in t.points[:-1]]
    assert "L[secant]" not in t.points[-1].variants
    got = t.summary.variants["L[secant]"]
    assert got.value == max(sec)
    assert (
        "over 4 points of the trajectory (the 4 of 5 where it is measured)" in got.method
        and got.note == f"attained at step {t.steps[sec.index(max(sec))]}"
    )
    assert t.summary.variants["L[secant,q50]"].value == pytest.approx(float(np.quantile(sec, 0.5)))
    assert t.summary.variants["L[secant,q50]"].n == 4


def test_track_resumes_after_a_kill_between_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: state.pt and trajectory.json were two files; a run killed after the first write resumed past the
    # checkpoint the second would have recorded (steps [0, 30, 45, 60]). Now one atomic file holds both, and the
    # JSON is only a readable copy: killed right after any save, the resumed run equals an uninterrupted one.
    whole = _run15(tmp_path / "whole")
    real = track_mod.write_atomic

    def killer(kill_at: int):  # type: ignore[no-untyped-def]
        calls = {"n": 0}

        def flaky(*a, **k):  # type: ignore[no-untyped-def]
            calls["n"] += 1
            if calls["n"] == kill_at:
                raise KeyboardInterrupt  # killed after run.pt was written, before trajectory.json
            return real(*a, **k)

        return flaky

    for kill_at in (1, 2, 3):
        monkeypatch.setattr(track_mod, "write_atomic", killer(kill_at))
        out = tmp_path / f"cut{kill_at}"
        with pytest.raises(KeyboardInterrupt):
            _run15(out)
        monkeypatch.setattr(track_mod, "write_atomic", real)
        resumed = _run15(out)
        assert resumed.steps == [0, 15, 30, 45, 60]
        for key, e in whole.summary.items():
            got = resumed.summary.get(key)
            assert got is not None and got.value == pytest.approx(e.value, rel=1e-9), key
    saved = json.loads((tmp_path / "cut3" / "trajectory.json").read_text())
    assert saved["steps"] == [0, 15, 30, 45, 60] and "summary" in saved


@pytest.mark.parametrize("form", ["spsa", "forward"])
def test_zo_error_closed_form(form: str) -> None:
    # f = mean of 1/2 (x - s)^T D (x - s); at x = 0 grad f = D(0 - mean s) = D(-(0.5, 0)) = (-1, 0).
    # SPSA on a quadratic is exact in u: g = (u.a) u with ||u||^2 = d, E[u u^T] = I, so
    # E||g - a||^2 = d E[(u.a)^2] - ||a||^2 = (d - 1)||a||^2 = 1 for d = 2 (per perturbation; /P for P of them).
    # HERON's d/mu forward difference with unit u: d^2 E[(u.a)^2] - ||a||^2 = (d - 1)||a||^2 too, up to O(mu).
    obj = Objective(Quadratic(), quad_loss, S, torch.zeros(4), device="cpu")
    for P in (1, 4):
        e = zo_error(obj, 1e-5, P=P, reps=4000, form=form, seed=1)
        assert e.se is not None
        assert abs(e.value - 1.0 / P) < 4 * e.se
    with pytest.raises(ParameterError) as err:
        zo_error(obj, 0.0)
    assert err.value.name == "lam"


def test_measure_zo_variants() -> None:
    from verify.constants.measure import measure

    c = measure(Quadratic(), quad_loss, (S, torch.zeros(4)), SPLIT, what=["zo"], clients=CLIENTS, lam=1e-5,
                zo_reps=400, device="cpu")  # fmt: skip
    # one coordinate per part: d = 1, so u = +-1 and the estimate is exact: error 0
    assert c.variants["zo_mse[client]"].value == pytest.approx(0.0, abs=1e-12)
    assert c.variants["zo_mse[server]"].value == pytest.approx(0.0, abs=1e-12)
    p, _ = c.params_for("heron_sfl/lemma3")
    assert p.get("sigma_c2") == c.variants["zo_mse[client]"].value
