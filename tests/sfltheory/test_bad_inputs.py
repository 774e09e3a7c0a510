"""Issue 15, "the promise, for every input": each cause found, fixed at its root.

Bad input prints one line naming the parameter and the rule it broke and exits 2 (Python: an SflTheoryError
subclass); never a traceback, never inf or NaN reported as a bound or a step size, never a silent clamp, drop or
override.
"""

from __future__ import annotations

import json
import math
import os
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

import sfltheory as st
from sfltheory.errors import NumericRangeError, ParameterError, SflTheoryError, UnknownResultError
from sfltheory.plan import plan
from sfltheory.plan.compare import compare
from sfltheory.plan.cuts import load_blocks
from sfltheory.plan.timemodel import TimeModel
from verify.app import main

THM41 = dict(L=1.0, F=1.0, T=10.0, tau=2.0, d_c=1.0, d_s=1.0, eta=1e-3, sigma_c2=1.0, sigma_s2=1.0, lam=0.1)
THM43 = ["L=1", "F=2.3", "eta_g=1", "sigma_c2=1", "sigma_s2=1", "eps2=0.5", "lam=1e-10"]


def argv(params: dict[str, float], **over: float | str) -> list[str]:
    return [f"{k}={v}" for k, v in {**params, **over}.items()]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run the CLI, assert exit 2 with one stderr line and no output; return that line."""
    rc, out, err = run(capsys, *args)
    assert rc == 2, (rc, out, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sfltheory: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def model(tmp_path: Path) -> str:
    p = tmp_path / "m.json"
    blocks = [
        {"name": "a", "params": 100, "activation": 10, "flops": 5},
        {"name": "b", "params": 900, "activation": 5, "flops": 5},
    ]
    p.write_text(json.dumps({"model": "m", "blocks": blocks}))
    return str(p)


# ---- 1. finite but extreme inputs: exact where the true value is a float, refused where it is not -------------
def test_cause1_intermediate_overflow_gives_the_exact_finite_bound(capsys: pytest.CaptureFixture[str]) -> None:
    # L^2 overflows and lambda^2 underflows in floats (inf * 0 = NaN); the true terms are modest numbers
    p = {**THM41, "L": 1e200, "eta": 1e-200, "lam": 1e-200}
    ev = st.evaluate("mu_splitfed/thm4.1", p)
    assert all(math.isfinite(v) for v in ev.terms.values())
    assert math.isfinite(ev.value)
    # independent exact computation of the statement's five terms in rationals
    L, F, T, tau, dc, ds, eta = (Fraction(x) for x in (1e200, 1, 10, 2, 1, 1, 1e-200))
    s2, lam = Fraction(1), Fraction(1e-200)
    exact = (
        4 * F / (eta * tau * T)
        + 16 * L * ds * eta * s2 * (L * eta * tau + 1)
        + 8 * L * dc * eta * s2 * tau
        + 4 * L**2 * ds**3 * lam**2 * (L**2 * eta**2 * tau**2 + Fraction(1, 4))
        + L**2 * dc**3 * lam**2
    )
    assert ev.value == pytest.approx(float(exact), rel=1e-12)
    assert st.bound_value("mu_splitfed/thm4.1", p) == pytest.approx(float(exact), rel=1e-12)
    rc, out, _ = run(capsys, "bound", "mu_splitfed/thm4.1", *argv(p), "--json")
    assert rc == 0 and json.loads(out)["value"] == pytest.approx(float(exact), rel=1e-12)


def test_cause1_a_bound_beyond_the_float_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    p = {**THM41, "eta": 1e-300, "F": 1e10}
    # 4F/(eta tau T) = 4e10 / 2e-299 = 2e309: no float holds it
    assert mpmath.mpf(4) * mpmath.mpf(1e10) / (mpmath.mpf(1e-300) * 2 * 10) > np.finfo(float).max
    with pytest.raises(NumericRangeError, match=r"term 'initialisation': is 2\.0e\+309, outside the floating-point"):
        st.evaluate("mu_splitfed/thm4.1", p)
    with pytest.raises(NumericRangeError, match=r"the bound: is 2\.0e\+309"):
        st.bound_value("mu_splitfed/thm4.1", p)
    line = refused(capsys, "bound", "mu_splitfed/thm4.1", *argv(p))
    assert "result 'mu_splitfed/thm4.1': term 'initialisation': is 2.0e+309" in line
    refused(capsys, "bound", "mu_splitfed/thm4.1", *argv(p), "--json")


def test_cause1_a_sweep_is_repaired_element_by_element() -> None:
    p = {**THM41, "L": np.array([1.0, 1e200]), "eta": np.array([1e-3, 1e-200]), "lam": np.array([0.1, 1e-200])}
    v = st.bound_value("mu_splitfed/thm4.1", p)
    assert np.all(np.isfinite(v))
    assert v[0] == pytest.approx(st.bound_value("mu_splitfed/thm4.1", THM41))


# ---- 2. the largest step: no inf, no "reduce eta to <= 0" --------------------------------------------------------
def test_cause2_a_step_limit_that_underflows_in_floats_is_computed_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    # 1/(16 L tau d_c) with L tau d_c = 2e310 (overflows): the true limit 3.125e-312 is a (subnormal) float
    sc = st.max_step("mu_splitfed/thm4.1", L=1e300, tau=2, d_c=1e10, d_s=1, eta=1e-3)
    want = float(1 / (16 * Fraction(1e300) * 2 * Fraction(1e10)))
    assert sc.max_step == pytest.approx(want, rel=1e-9) and sc.max_step > 0
    assert sc.binding == "eta<=1/(16L tau d_c)"
    _, out, _ = run(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1e300", "tau=2", "d_c=1e10", "d_s=1", "eta=0.001")
    assert "reduce eta to <= 3.125e-312" in out and "<= 0\n" not in out and "inf" not in out


def test_cause2_a_step_limit_beyond_the_float_range_is_unbounded_not_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # issue 24, over-refusal: 1/(64 L (tau + 2 d_s)) at L = 1e-320, tau = 2, d_s = 1 is 1/(2.56e-318) = 3.9e317, beyond
    # the float range: the condition does not bound eta at all (slack unbounded), so the step is admissible
    sc = st.max_step("mu_splitfed/thm4.1", L=1e-320, tau=2, d_c=100, d_s=1, eta=1e-3)
    b = next(b for b in sc.branches if b.name == "eta<=1/(64L(tau+2d_s))")
    assert b.beyond and b.bound == math.inf and sc.max_step == math.inf
    rc = main(["check-lr", "mu_splitfed/thm4.1", "L=1e-320", "tau=2", "d_c=100", "d_s=1", "eta=0.001"])
    out, err = capsys.readouterr()
    assert rc == 0 and err == "" and "unbounded (> 1.8e308)" in out and " inf" not in out


def test_cause2_a_limit_below_the_smallest_float_is_refused_not_zero() -> None:
    # sfl_aux's mu_L <= 1/(l L K 2^(1.15 l + 1.85)): at l = 1e100 the limit is about 10^(-3.46e99)
    with pytest.raises(NumericRangeError, match=r"is about 10\^\(-3\.46184e\+99\), outside the floating-point"):
        st.max_step("sfl_aux/thm1", F=1, K=2, L=1, T=2, eps2=1, eta_l=1e-3, l=1e100, sigma2=1)
    # at l = 300 it is a float: 2^(-0.15) (2^(-1.15))^300 / (4 K L l), computed as such (no float overflow to 0)
    sc = st.max_step("sfl_aux/thm1", F=1, K=2, L=1, T=2, eps2=1, eta_l=1e-3, l=300, sigma2=1)
    b = next(b for b in sc.branches if b.name == "mu_L<=1/(lLK2^(1.15l+1.85))")
    want = mpmath.mpf(2) ** (-mpmath.mpf("1.15") * 300 - mpmath.mpf("1.85")) / (300 * 2)
    assert b.bound == pytest.approx(float(want), rel=1e-9)
    assert all(br.bound > 0 for br in sc.branches)  # the bisected branch reaches below 2^-200 too


def test_cause1_wrapped_expressions_are_recomputed_too() -> None:
    # heron_sfl wraps 1/delta in an identity (_Float64); L^2 lam^2 (d_aux + d_c + 3)^3 / delta at lam = d_c = 1e308
    with pytest.raises(NumericRangeError, match=r"term 'smoothing floor': is 1\.0e\+1540"):
        st.evaluate(
            "heron_sfl/thm2@floor",
            Delta_drift=1,
            G_s2=1,
            L=1,
            M=2,
            T=2,
            d_aux=1,
            d_c=1e308,
            delta=1,
            kappa=1,
            lam=1e308,
        )


# ---- 3. malformed --constants files ------------------------------------------------------------------------------
F = "sfltheory.constants/1"


@pytest.mark.parametrize(
    ("content", "expect"),
    [
        (b"[1, 2]", "parameter 'constants': not a sfltheory.constants/1 record: a JSON object is needed (got list)"),
        (b"\xff\xfe\x00", "is not UTF-8 text"),
        (json.dumps({"format": F, "constants": {"L": {"value": "abc"}}}).encode(), "parameter 'L': 'value' must be"),
        (
            json.dumps({"format": F, "constants": {"L": {"se": 1}}}).encode(),
            "parameter 'L': an estimate needs a 'value'",
        ),
        (
            json.dumps({"format": F, "constants": {"L": "1"}}).encode(),
            "parameter 'L': an estimate must be a JSON object",
        ),
        (json.dumps({"format": F, "constants": "x"}).encode(), "'meta' and 'constants' must be JSON objects"),
        (
            json.dumps({"format": F, "constants": {"L": {"value": math.nan}}}).encode(),
            "parameter 'L': an estimate must be",
        ),
        (json.dumps({"format": F, "constants": {"L": {"value": 1, "se": "x"}}}).encode(), "parameter 'L': 'se'"),
    ],
)
def test_cause3_malformed_constants_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, expect: str
) -> None:
    p = tmp_path / "c.json"
    p.write_bytes(content)
    assert expect in refused(capsys, "bound", "mu_splitfed/thm4.1", "--constants", str(p), *argv(THM41))


def test_cause3_a_directory_as_constants(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    d = tmp_path / "c.json"
    d.mkdir()
    assert "is a directory" in refused(capsys, "bound", "mu_splitfed/thm4.1", "--constants", str(d), *argv(THM41))


def test_cause3_notes_do_not_precede_the_error_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"format": F, "constants": {"L": {"value": 1.0}, "F": {"value": 2.0}}}))
    # tau missing: the one error line alone, whatever notes the constants produced
    line = refused(capsys, "bound", "mu_splitfed/thm4.1", "--constants", str(p), "T=10")
    assert "missing" in line


# ---- 4. sweeps of different lengths; a sweep inside compare -------------------------------------------------------
def test_cause4_mismatched_sweeps(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, "bound", "mu_splitfed/thm4.1", *argv(THM41, tau="1,2,3", d_c="1,2"))
    assert line == (
        "sfltheory: error: parameter 'tau': sweeps must have the same number of values to be evaluated together "
        "(tau has 3, d_c has 2)"
    )
    with pytest.raises(ParameterError, match="sweeps must have the same number"):
        st.evaluate("mu_splitfed/thm4.1", {**THM41, "tau": np.array([1.0, 2, 3]), "d_c": np.array([1.0, 2])})
    refused(capsys, "check-lr", "mu_splitfed/thm4.1", "L=1", "tau=1,2,3", "d_c=1,2", "d_s=1", "eta=0.001")


def test_cause4_a_sweep_inside_compare(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, "compare", "mu_splitfed/thm4.1", *argv(THM41, d_c="1,2"))
    assert "parameter 'd_c': compare takes one value per parameter, not a sweep" in line


# ---- 5. --plot to an unwritable place, under a file, onto a directory ---------------------------------------------
def test_cause5_plot_paths(capsys: pytest.CaptureFixture[str], tmp_path: Path, model: str) -> None:
    f = tmp_path / "afile"
    f.write_text("x")
    d = tmp_path / "d.png"
    d.mkdir()
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    cases = [(f"{f}/x.png", "is a file, not a directory"), (str(d), "is a directory: give a file name")]
    if os.geteuid() != 0:  # root writes anywhere
        cases.append((f"{ro}/x.png", "permission denied"))
    for path, why in cases:
        plan_args = ["plan", "mu_splitfed/thm4.3", "--model", model, *THM43, "M=2", "T=100", "--plot", path]
        assert why in refused(capsys, *plan_args)
        assert why in refused(capsys, "cuts", "--model", model, "--plot", path)


def test_cause5_a_failing_write_is_one_line(capsys: pytest.CaptureFixture[str], model: str) -> None:
    if not Path("/proc/self").is_dir():
        pytest.skip("no /proc")
    line = refused(capsys, "cuts", "--model", model, "--plot", "/proc/x.png")
    assert "parameter '--plot': cannot write /proc/x.png" in line


# ---- 6. the time model --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("extra", "expect"),
    [
        (["M=2,3", "--client-dist", "expon:loc=1,scale=2"], "parameter 'M': with --client-dist, one integer"),
        (["M=nan", "--client-dist", "expon:loc=1,scale=2"], "parameter 'M'"),
        (["M=inf", "--client-dist", "expon:loc=1,scale=2"], "parameter 'M'"),
        (["M=2", "--server-step", "1e-320", "--client-time", "1,1"], "parameter 'server_step': 9.99989e-321 s"),
        (["M=2", "--client-time", "1e308,1"], "parameter 'client_time': the time to eps"),
        (["M=2", "--client-time", "1,1", "--bandwidth", "1e-320"], "parameter 'bandwidth': the upload time overflows"),
    ],
)
def test_cause6_time_model(capsys: pytest.CaptureFixture[str], model: str, extra: list[str], expect: str) -> None:
    args = ["plan", "mu_splitfed/thm4.3", "--model", model, *THM43, "--eps", "30", *extra]
    if "--server-step" not in extra:
        args += ["--server-step", "1"]
    assert expect in refused(capsys, *args)


def test_cause6_a_server_step_that_underflows_at_a_cut(capsys: pytest.CaptureFixture[str], model: str) -> None:
    # found by tests/test_promise_property.py: 5e-324 s x a server share of 0.5 is 0 in floats
    args = ["plan", "mu_splitfed/thm4.3", "--model", model, *THM43, "M=2", "--eps", "30", "--grid", "1:8"]
    line = refused(capsys, *args, "--server-step", "5e-324", "--client-dist", "expon:loc=1,scale=2")
    assert "parameter 'server_step': 4.94066e-324 s is too small: the server's time at a cut underflows to 0" in line


def test_cause6_a_server_without_work_has_no_eq12_tau(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    p = tmp_path / "m.json"
    p.write_text('[{"name":"a","params":100,"activation":10,"flops":5},{"name":"b","params":900,"flops":0}]')
    args = ["plan", "mu_splitfed/thm4.3", "--model", str(p), *THM43, "M=2", "--eps", "30", "--grid", "1:8"]
    rc, out, err = run(capsys, *args, "--server-step", "1", "--client-time", "1,1")
    assert rc == 0 and "Traceback" not in err
    assert "the server does no work (t_server = 0)" in out


def test_cause6_no_runtime_warning_from_a_tiny_bandwidth() -> None:
    tm = TimeModel(1.0, client_time=(1.0, 1.0), bandwidth=1e-320)
    with pytest.raises(ParameterError, match="bandwidth"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tm.straggler(np.array([0.5]), np.array([10.0]))


# ---- 7. block lists ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "text", "expect"),
    [
        ("n.csv", "name,params,activation,flops\na,100,10,-5\nb,900,5,5\n", "block 1.flops': must be a finite number"),
        ("t.json", '[{"name":"a","params":true},{"name":"b","params":9}]', "block 1.params': must be an integer"),
        ("d.csv", "name,params\na,100\na,900\n", "block 2.name': 'a' is also the name of block 1"),
        ("f.json", '[{"name":"a","params":1,"flops":"x"},{"name":"b","params":9,"flops":1}]', "block 1.flops'"),
    ],
)
def test_cause7_block_lists(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, expect: str
) -> None:
    p = tmp_path / name
    p.write_text(text)
    assert expect in refused(capsys, "cuts", "--model", str(p))
    with pytest.raises(ParameterError, match="block"):
        load_blocks(p)


def test_cause7_large_counts_are_exact(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name, text in [
        ("big.csv", "name,params\na,1e30\nb,900\n"),
        ("big.json", '[{"name":"a","params":1e30},{"name":"b","params":900}]'),
    ]:
        p = tmp_path / name
        p.write_text(text)
        assert load_blocks(p).cuts[0].d_c == 10**30
        rc, out, _ = run(capsys, "cuts", "--model", str(p))
        assert rc == 0 and "1,000,000,000,000,000,000,000,000,000,000" in out and "19884624838656" not in out


# ---- 8. Python: raw exceptions and silent acceptances --------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "exc", "expect"),
    [
        (lambda: st.evaluate("mu_splitfed/thm4.1", {**THM41, "T": 10**400}), ParameterError, "parameter 'T': must be"),
        (lambda: st.evaluate("mu_splitfed/thm4.1", [1, 2]), ParameterError, "parameter 'params': must be a mapping"),
        (lambda: st.evaluate("mu_splitfed/thm4.1", {**THM41, "L": None}), ParameterError, "parameter 'L': must be a"),
        (lambda: st.evaluate(42), UnknownResultError, "a result id must be a string"),
        (lambda: st.evaluate(None), UnknownResultError, "a result id must be a string"),
        (lambda: st.get(42), UnknownResultError, "a result id must be a string"),
        (lambda: st.max_step(None), UnknownResultError, "a result id must be a string"),
        (lambda: st.evaluate("mu_splitfed/thm4.1", {**THM41, "L": np.array([])}), ParameterError, "must not be empty"),
        (lambda: st.evaluate("mu_splitfed/thm4.1", {**THM41, "L": np.array([1 + 1j])}), ParameterError, "complex"),
        (lambda: st.evaluate("mu_splitfed/thm4.1", {**THM41, "L": True}), ParameterError, "not a boolean"),
        (lambda: st.evaluate("mu_splitfed/thm4.1", THM41, L=2), ParameterError, "parameter 'L': given twice"),
        (lambda: st.bound_value("mu_splitfed/thm4.1", THM41, L=2), ParameterError, "parameter 'L': given twice"),
        (lambda: st.max_step("mu_splitfed/thm4.1", THM41, L=2), ParameterError, "parameter 'L': given twice"),
        (
            lambda: plan("mu_splitfed/thm4.3", {"L": 1, "F": 1, "T": 10, "M": 2}, cuts="resnet18"),  # type: ignore[arg-type]
            ParameterError,
            "parameter 'cuts': must be a CutTable",
        ),
        (lambda: plan("mu_splitfed/thm4.3", [1]), ParameterError, "parameter 'params': must be a mapping"),  # type: ignore[arg-type]
    ],
)
def test_cause8_python(call: object, exc: type[SflTheoryError], expect: str) -> None:
    with pytest.raises(exc, match=expect.replace("(", r"\(")):
        call()  # type: ignore[operator]


# ---- 9. overrides that were silently dropped -------------------------------------------------------------------
def test_cause9_compare_global_and_entry_tau(capsys: pytest.CaptureFixture[str]) -> None:
    p = {k: v for k, v in THM41.items() if k != "tau"}
    line = refused(capsys, "compare", "mu_splitfed/thm4.1:tau=1", "mu_splitfed/thm4.1:tau=8", *argv(p, tau=2))
    assert "parameter 'tau': given for every entry (tau=2) and in entry 'mu_splitfed/thm4.1:tau=1'" in line
    with pytest.raises(ParameterError, match="given for every entry"):
        compare(["mu_splitfed/thm4.1:tau=1"], {**THM41})


def test_cause9_plan_m_and_client_times_must_agree(capsys: pytest.CaptureFixture[str], model: str) -> None:
    args = ["plan", "mu_splitfed/thm4.3", "--model", model, *THM43, "M=10", "--eps", "30"]
    line = refused(capsys, *args, "--server-step", "1", "--client-time", "1,1,1")
    assert line == "sfltheory: error: parameter '--client-time': one time per client: got 3 times for M = 10 clients"


def test_a_value_option_given_twice_is_refused_a_flag_twice_is_not(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 24: argparse keeps the last of `--model a --model b` and drops the first without a word
    def usage_error(*args: str) -> str:  # the parser's own refusal exits (status 2) from inside main
        with pytest.raises(SystemExit) as e:
            main(list(args))
        out, err = capsys.readouterr()
        assert e.value.code == 2 and out == "" and len(err.splitlines()) == 1
        return err.strip()

    line = usage_error("cuts", "--model", "a.json", "--model", "b.json")
    assert line == "sfltheory: error: parameter '--model': given twice (the second would silently replace the first)"
    assert "parameter '--paper': given twice" in usage_error("list", "--paper", "mu_splitfed", "--paper=sl_noniid")
    # a flag given twice changes nothing: accepted (`list --json --json` prints the same JSON as once)
    assert main(["list", "--json", "--json"]) == 0
    twice = capsys.readouterr().out
    assert main(["list", "--json"]) == 0 and capsys.readouterr().out == twice
