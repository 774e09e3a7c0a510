"""sl_noniid Theorem 2 as printed -- a bound on ||grad f(xbar^R)||^2 at the averaged model -- is false for non-convex
functions, and a concrete L-smooth function shows it, replayed by the trainer.

At one client FedAvg's assumptions are L-smoothness and f(x^0) - f* <= F (bounded dissimilarity holds with B = 1,
G = 0 for any f), so the worst case is exact. Theorem 2 (seed 002, eq. (51)) with N = 1, K = 2, eta_g = 1, sigma = 0,
G = 0 and its largest step eta_l = 1/(2KL sqrt(2B^2 + 1)) = 1/(4 sqrt 3) = 0.14434 (L = 1, B^2 = 1) bounds the
averaged model's squared gradient by

    4F/(K eta_g eta_l R) = 4 * 4 sqrt(3) / (2 * 14) = 0.98974   at R = 14, F = 1,

while the worst case over the class, computed by the SDP and attained by the interpolant, is 1.0139: the proof's
"fact" E||grad f(xbar)||^2 <= (1/R) sum_r E||grad f(x^r)||^2 (Jensen) needs a convex ||grad f||^2, which a
non-convex f does not have. The average of the norms, which the proof does bound (the @proof edition), stays
below the bound (0.29 here)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

import sfltheory as st
from verify.app import main as sfltheory
from verify.pep import WorstCaseSpec, worst_case
from verify.pep.__main__ import main
from verify.pep.replay import refutation_record, refute
from verify.pipeline.worstcase import save_worst_cases

pytest.importorskip("clarabel")

ETA = 1 / (4 * math.sqrt(3))
SPEC = WorstCaseSpec(algorithm="fedavg", R=14, M=1, params={"K": 2, "eta_l": ETA, "eta_g": 1.0}, L=1.0, F=1.0,
                     lhs="at_average", heterogeneity="dissimilarity", B2=1.0, G2=0.0)  # fmt: skip


def test_the_printed_bound_is_the_hand_value() -> None:
    ev = st.evaluate("sl_noniid/thm2", {"L": 1.0, "F": 1.0, "B2": 1.0, "G2": 0.0, "sigma2": 0.0, "M": 1.0, "K": 2.0,
                                        "eta_g": 1.0, "eta_l": ETA, "T": 14.0})  # fmt: skip
    assert float(ev.value) == pytest.approx(16 * math.sqrt(3) / 28, rel=1e-12)
    assert all(bool(h.holds) for h in ev.hypotheses if h.source == "statement")  # the statement claims it here


def test_a_function_refutes_it_and_the_trainer_replays_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bound = 16 * math.sqrt(3) / 28
    ref = refute(SPEC, bound)
    assert ref is not None
    assert ref.measured > bound * 1.02 and ref.F <= 1.0  # 1.0139 > 0.98974 on a function with f(x0) - f* = 1
    assert ref.measured == pytest.approx(ref.value, rel=1e-5)
    f = tmp_path / "refutation.json"
    f.write_text(json.dumps(refutation_record(ref, result="sl_noniid/thm2", T=14, step=ETA)))
    assert main([str(f)]) == 0
    out = capsys.readouterr().out
    assert "bound invalid" in out and "sl_noniid/thm2 at T = 14" in out


def test_the_proofs_average_is_not_refuted() -> None:
    avg = dataclasses.replace(SPEC, lhs="avg")
    assert worst_case(avg).value < 0.5 * (16 * math.sqrt(3) / 28)
    assert refute(avg, 16 * math.sqrt(3) / 28) is None


@pytest.mark.parametrize("content", ["not json", json.dumps({"format": "other"}), json.dumps([1, 2])])
def test_a_bad_file_is_one_line(tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "x.json"
    f.write_text(content)
    assert main([str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "FILE" in err and "Traceback" not in err


def test_the_audit_reports_it_with_its_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ref = refute(SPEC, 16 * math.sqrt(3) / 28)
    assert ref is not None
    save_worst_cases([], tmp_path, [refutation_record(ref, result="sl_noniid/thm2", T=14, step=ETA)])
    assert sfltheory(["audit", "sl_noniid/thm2", "--counterexamples", str(tmp_path), "--json"]) in (0, 1)
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["check"] == "falsified"]
    assert len(found) == 1 and found[0]["severity"] == "bound invalid"
    assert "python -m verify.pep" in found[0]["found"] and "refutation_sl_noniid_thm2_T14.json" in found[0]["found"]
