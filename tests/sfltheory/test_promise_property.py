"""Issue 15, "a guard that keeps it true": a property-based test of the one-line-error promise.

Hypothesis generates bad and extreme inputs for the CLI commands (run in-process through ``verify.app.main``, the ``sfltheory`` command)
and the public Python functions: numbers across the whole float range (subnormals, 1e308, negative, nan and inf
as strings), wrong types, malformed constants files and block lists, mismatched sweeps. The promise:

- CLI: exit 0 (or 1, the documented "infeasible" / "the step violates the theorem" status of ``plan`` and
  ``check-lr``) with only finite numbers where a bound or a step size is reported; or exit 2 with exactly one line
  on stderr, ``sfltheory: error: ...``, and nothing on stdout. Never a traceback.
- Python: a result whose bound and step sizes are finite, or an ``SflTheoryError`` subclass.

Every cause listed in issue 15 is a named ``@example``. Example counts are bounded so that the file runs in well
under a minute on a 2-core machine.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as hs

import sfltheory as st
from sfltheory import lexicon
from sfltheory.constants import Constants
from sfltheory.errors import SflTheoryError
from sfltheory.plan import plan
from sfltheory.plan.compare import compare
from sfltheory.plan.cuts import load_blocks
from sfltheory.registry import results
from verify.app import main

SETTINGS = settings(
    # SFLTHEORY_PROPERTY_EXAMPLES=2000 for a longer local search; CI keeps the default bounded
    max_examples=int(os.environ.get("SFLTHEORY_PROPERTY_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)

EXPLICIT = [r.id for r in results() if r.explicit]  # every result with a bound to evaluate
RESULTS = ["mu_splitfed/thm4.1", "mu_splitfed/thm4.3", "heron_sfl/thm2@round", "sl_noniid/thm1", "cut_layer/prop1"]

# ---- strategies ----------------------------------------------------------------------------------------------------
EXTREMES = [0.0, -0.0, -1.0, 5e-324, 1e-320, 1e-308, 1e-300, 1e-200, 1e200, 1e300, 1e308, 1.7976931348623157e308]
NUMBERS = hs.one_of(
    hs.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    hs.sampled_from(EXTREMES),
    hs.integers(min_value=-(10**3), max_value=10**30).map(float),
)
TEXT_JUNK = ["nan", "inf", "-inf", "NaN", "1e400", "-1e400", "abc", "", "1,2", "1,2,3", "true", "None", "0x10", " "]
# mostly numbers a parameter could take (any positive float, a count), so that evaluation is reached, not only
# the parser's refusals
PLAUSIBLE = hs.one_of(
    hs.floats(min_value=5e-324, max_value=1.7976931348623157e308),
    hs.integers(min_value=1, max_value=10**6).map(float),
    hs.sampled_from([1e-300, 1e-200, 1e200, 1e300, 1e308, 1e-320]),
)
TOKENS = hs.one_of(PLAUSIBLE.map(repr), PLAUSIBLE.map(repr), NUMBERS.map(repr), hs.sampled_from(TEXT_JUNK))
PY_VALUES: hs.SearchStrategy[Any] = hs.one_of(
    NUMBERS,
    hs.integers(min_value=-(10**400), max_value=10**400),
    hs.sampled_from([None, True, "1", "abc", [], [1.0, 2.0], np.array([]), np.array([1 + 1j]), np.array([1.0, 2, 3])]),
    hs.lists(NUMBERS, min_size=1, max_size=3).map(np.array),
)


def typical(name: str) -> float:
    dom = lexicon.get(name).domain
    if name.startswith("eta"):
        return 1e-3
    return {"count": 2.0, "count0": 1.0, "fraction": 0.5}.get(dom, 1.0)


def base(rid: str) -> dict[str, float]:
    """Ordinary values for what a result needs (its defaults derive the rest)."""
    r = st.get(rid)
    derived = {d.name for d in r.defaults}
    out = {n: typical(n) for n in r.parameters() if n not in derived}
    if r.step is not None:
        out[r.step] = 1e-3
    return out


# ---- the promise ---------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), quiet():
        try:
            rc = main(list(argv))
        except SystemExit as e:  # argparse's own usage errors
            rc = int(e.code or 0)
    return rc, out.getvalue(), err.getvalue()


REPORTED = re.compile(r"(bound = |max \w+ \(statement\): |reduce \w+ to <= |bound at the largest feasible .*?: )(\S+)")
NONFINITE = {"inf", "-inf", "nan", "NaN", "Infinity", "-Infinity", "null"}


def assert_promise(rc: int, out: str, err: str, argv: tuple[str, ...] = ()) -> None:
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    event(f"exit {rc}")
    if rc == 2:
        lines = err.splitlines()
        assert len(lines) == 1, (argv, err)
        assert re.match(r"sfltheory( [\w-]+)?: error: ", lines[0]), (argv, err)  # argparse names the command
        assert out == "", (argv, out)
        return
    assert rc in (0, 1), (argv, rc, err)
    if out.lstrip().startswith(("{", "[")):
        assert_json_finite(json.loads(out), argv)
    else:
        for m in REPORTED.finditer(out):
            if "void" in out:  # a void bound says so: it is no bound at all
                continue
            assert m.group(2).rstrip(",;") not in NONFINITE, (argv, m.group(0))


def assert_json_finite(d: Any, argv: tuple[str, ...], key: str = "") -> None:
    if isinstance(d, dict):
        if d.get("void") is True:
            return
        for k, v in d.items():
            if k in ("value", "max_eta", "max_step", "bound") and v is None and "void" in d:
                raise AssertionError((argv, k, "null"))
            assert_json_finite(v, argv, k)
    elif isinstance(d, list):
        for v in d:
            assert_json_finite(v, argv, key)
    elif isinstance(d, float):
        assert math.isfinite(d), (argv, key, d)


def finite_result(v: Any) -> bool:
    return bool(np.all(np.isfinite(np.asarray(v, dtype=float))))


# ---- CLI: bound and check-lr ---------------------------------------------------------------------------------------
@SETTINGS
@given(
    rid=hs.sampled_from(RESULTS),
    changes=hs.dictionaries(hs.sampled_from(["L", "F", "T", "tau", "eta", "lam", "d_c", "M", "sigma_c2"]), TOKENS),
    as_json=hs.booleans(),
    cmd=hs.sampled_from(["bound", "check-lr"]),
)
@example(  # cause 1: a bound of 2e309
    rid="mu_splitfed/thm4.1", changes={"eta": "1e-300", "F": "1e10"}, as_json=False, cmd="bound"
)
@example(  # cause 1: inf * 0 in floats
    rid="mu_splitfed/thm4.1", changes={"L": "1e200", "eta": "1e-200", "lam": "1e-200"}, as_json=True, cmd="bound"
)
@example(rid="mu_splitfed/thm4.1", changes={"L": "1e-320"}, as_json=False, cmd="check-lr")  # cause 2: max eta inf
@example(rid="mu_splitfed/thm4.1", changes={"L": "1e300", "d_c": "1e10"}, as_json=False, cmd="check-lr")  # <= 0
@example(rid="mu_splitfed/thm4.1", changes={"tau": "1,2,3", "d_c": "1,2"}, as_json=False, cmd="bound")  # cause 4
def test_bound_and_check_lr(rid: str, changes: dict[str, str], as_json: bool, cmd: str) -> None:
    params = {k: repr(v) for k, v in base(rid).items()}
    params.update(changes)
    argv = (cmd, rid, *(f"{k}={v}" for k, v in params.items()), *(["--json"] if as_json else []))
    assert_promise(*cli(*argv), argv)


# ---- CLI: compare --------------------------------------------------------------------------------------------------
@SETTINGS
@given(
    entries=hs.lists(
        hs.tuples(
            hs.sampled_from(["mu_splitfed/thm4.1", "mu_splitfed/thm4.1@proof"]),
            hs.sampled_from(["", ":tau=1", ":tau=8", ":tau=1,2", ":tau=nan", ":x"]),
        ),
        min_size=1,
        max_size=3,
    ),
    changes=hs.dictionaries(hs.sampled_from(["tau", "eta", "L", "T", "F"]), TOKENS, max_size=2),
    eps=hs.one_of(hs.none(), TOKENS),
)
@example(  # cause 4: a sweep inside compare
    entries=[("mu_splitfed/thm4.1", "")], changes={"d_c": "1,2"}, eps=None
)
@example(  # cause 9: a global tau with entries that set tau
    entries=[("mu_splitfed/thm4.1", ":tau=1"), ("mu_splitfed/thm4.1", ":tau=8")], changes={"tau": "2"}, eps=None
)
def test_compare(entries: list[tuple[str, str]], changes: dict[str, str], eps: str | None) -> None:
    params = {k: repr(v) for k, v in base("mu_splitfed/thm4.1").items() if k != "tau"}
    params.update(changes)
    argv = ("compare", *(a + b for a, b in entries), *(f"{k}={v}" for k, v in params.items()))
    if eps is not None:
        argv = (*argv, "--eps", eps)
    assert_promise(*cli(*argv), argv)


# ---- CLI: plan with a block list, the time model and --plot ---------------------------------------------------------
BLOCK = hs.fixed_dictionaries(
    {"name": hs.sampled_from(["a", "b", "c", "a"]), "params": hs.one_of(NUMBERS, hs.sampled_from([True, "x", 10**30]))},
    optional={
        "activation": hs.one_of(NUMBERS, hs.sampled_from([True, None])),
        "flops": hs.one_of(NUMBERS, hs.sampled_from([True, "x"])),
    },
)
GOOD_BLOCKS = [
    {"name": "a", "params": 100, "activation": 10, "flops": 5},
    {"name": "b", "params": 900, "activation": 5, "flops": 5},
]
THM43 = ["L=1", "F=2.3", "eta_g=1", "sigma_c2=1", "sigma_s2=1", "eps2=0.5", "lam=1e-10"]


@SETTINGS
@given(
    blocks=hs.one_of(hs.just(GOOD_BLOCKS), hs.lists(BLOCK, min_size=0, max_size=3)),
    m=hs.one_of(hs.just("2"), TOKENS),
    timing=hs.fixed_dictionaries(
        {},
        optional={
            "--server-step": TOKENS,
            "--client-time": hs.one_of(TOKENS, hs.just("1,1,1")),
            "--bandwidth": TOKENS,
            "--client-dist": hs.sampled_from(["expon:loc=1,scale=2", "expon:scale=nan", "nope", "norm:loc=1e308"]),
        },
    ),
    plot=hs.sampled_from(["", "plan.png", "afile/x.png", "dir.png", "plan.txt"]),
)
@example(  # cause 7: negative FLOPs
    blocks=[{"name": "a", "params": 1, "flops": -5.0}, {"name": "b", "params": 9, "flops": 1.0}],
    m="2",
    timing={},
    plot="",
)
@example(blocks=[{"name": "a", "params": True}, {"name": "b", "params": 9}], m="2", timing={}, plot="")  # cause 7
@example(blocks=[{"name": "a", "params": 1}, {"name": "a", "params": 9}], m="2", timing={}, plot="")  # cause 7
@example(blocks=GOOD_BLOCKS, m="2,3", timing={"--server-step": "1", "--client-dist": "expon:loc=1,scale=2"}, plot="")
@example(blocks=GOOD_BLOCKS, m="nan", timing={"--server-step": "1", "--client-dist": "expon:loc=1,scale=2"}, plot="")
@example(blocks=GOOD_BLOCKS, m="2", timing={"--server-step": "1e-320", "--client-time": "1,1"}, plot="")  # cause 6
@example(blocks=GOOD_BLOCKS, m="2", timing={"--server-step": "1", "--client-time": "1e308,1"}, plot="")  # cause 6
@example(  # cause 6
    blocks=GOOD_BLOCKS, m="2", timing={"--server-step": "1", "--client-time": "1,1", "--bandwidth": "1e-320"}, plot=""
)
@example(  # cause 9: M=10 and three client times
    blocks=GOOD_BLOCKS, m="10", timing={"--server-step": "1", "--client-time": "1,1,1"}, plot=""
)
@example(  # found by this test: the server's time underflows to 0 (eq. (12) read it as inf)
    blocks=GOOD_BLOCKS, m="2", timing={"--server-step": "5e-324", "--client-dist": "expon:loc=1,scale=2"}, plot=""
)
@example(  # found by this test: an exact root at point 15 of the 8 taus x 2 cuts read a term over the 8 taus only
    blocks=[{"name": "b", "params": 1.0}, {"name": "a", "params": 0.0}, {"name": "c", "params": 1.0}],
    m="1.9352503793987892e+153",
    timing={},
    plot="",
)
@example(blocks=GOOD_BLOCKS, m="2", timing={}, plot="afile/x.png")  # cause 5: under a file
@example(blocks=GOOD_BLOCKS, m="2", timing={}, plot="dir.png")  # cause 5: onto a directory
def test_plan(
    tmp_path_factory: pytest.TempPathFactory,
    blocks: list[dict[str, Any]],
    m: str,
    timing: dict[str, str],
    plot: str,
) -> None:
    d = tmp_path_factory.mktemp("plan")
    model = d / "m.json"
    model.write_text(json.dumps(blocks))
    (d / "afile").write_text("x")
    (d / "dir.png").mkdir()
    argv: tuple[str, ...] = ("plan", "mu_splitfed/thm4.3", "--model", str(model), *THM43, f"M={m}", "--grid", "1:8")
    if timing:
        argv = (*argv, "--eps", "30", *(x for kv in timing.items() for x in kv))
    else:
        argv = (*argv, "T=100")
    if plot:
        argv = (*argv, "--plot", str(d / plot))
    assert_promise(*cli(*argv), argv)
    rc, out, err = cli("cuts", "--model", str(model))
    assert_promise(rc, out, err, ("cuts", str(model)))


# ---- CLI: --constants files ----------------------------------------------------------------------------------------
FORMAT = "sfltheory.constants/1"
ESTIMATE = hs.one_of(
    hs.fixed_dictionaries({"value": PLAUSIBLE}),
    hs.fixed_dictionaries({"value": hs.one_of(NUMBERS, hs.sampled_from(["abc", None, True, [1]]))}),
    hs.fixed_dictionaries({"value": NUMBERS, "se": hs.one_of(NUMBERS, hs.just("x")), "n": hs.integers(-2, 5)}),
    hs.sampled_from(["1", 1, None, [], {}, {"se": 1}]),
)
CONSTANTS_FILE: hs.SearchStrategy[bytes] = hs.one_of(
    hs.dictionaries(hs.sampled_from(["L", "F", "sigma_c2", "L[clients]", "nope"]), ESTIMATE).map(
        lambda c: json.dumps({"format": FORMAT, "constants": c}, allow_nan=True).encode()
    ),
    hs.sampled_from([b"[1, 2]", b"\xff\xfe\x00", b"", b"{", b'"x"', b"null", b'{"format": "x"}', b"[" * 5000]),
    hs.binary(max_size=30),
)


@SETTINGS
@given(content=CONSTANTS_FILE, cmd=hs.sampled_from(["bound", "check-lr"]), as_dir=hs.booleans())
@example(content=b"[1, 2]", cmd="bound", as_dir=False)  # cause 3: a JSON list
@example(content=b"\xff\xfe\x00", cmd="bound", as_dir=False)  # cause 3: not UTF-8
@example(content=b"", cmd="bound", as_dir=True)  # cause 3: a directory
@example(  # cause 3: a string estimate, a missing value, a NaN value
    content=json.dumps({"format": FORMAT, "constants": {"L": "1", "F": {"se": 1}}}).encode(), cmd="bound", as_dir=False
)
@example(
    content=b'{"format": "%s", "constants": {"L": {"value": NaN}}}' % FORMAT.encode(), cmd="check-lr", as_dir=False
)
def test_constants_files(tmp_path_factory: pytest.TempPathFactory, content: bytes, cmd: str, as_dir: bool) -> None:
    p = tmp_path_factory.mktemp("c") / "c.json"
    if as_dir:
        p.mkdir()
    else:
        p.write_bytes(content)
    params = {k: v for k, v in base("mu_splitfed/thm4.1").items() if k not in ("L", "F")}
    argv = (cmd, "mu_splitfed/thm4.1", "--constants", str(p), *(f"{k}={v!r}" for k, v in params.items()))
    assert_promise(*cli(*argv), argv)
    # the Python reader: a Constants or an SflTheoryError
    if not as_dir:
        try:
            Constants.load(p)
        except SflTheoryError:
            pass


# ---- Python: evaluate, bound_value, max_step, plan, compare, get ----------------------------------------------------
@SETTINGS
@given(
    rid=hs.one_of(hs.sampled_from(EXPLICIT), hs.sampled_from([42, None, "nope", "", b"x"])),
    changes=hs.dictionaries(
        hs.sampled_from(["L", "F", "T", "tau", "eta", "lam", "d_c", "M", "K", "l", "delta", "eta_l", "eta_c"]),
        hs.one_of(PY_VALUES, PLAUSIBLE),
        max_size=3,
    ),
    as_params=hs.booleans(),
    twice=hs.booleans(),
)
@example(rid="mu_splitfed/thm4.1", changes={"T": 10**400}, as_params=True, twice=False)  # cause 8
@example(rid=42, changes={}, as_params=True, twice=False)  # cause 8
@example(rid=None, changes={}, as_params=True, twice=False)  # cause 8
@example(rid="mu_splitfed/thm4.1", changes={"L": np.array([])}, as_params=True, twice=False)  # cause 8
@example(rid="mu_splitfed/thm4.1", changes={"L": np.array([1 + 1j])}, as_params=True, twice=False)  # cause 8
@example(rid="mu_splitfed/thm4.1", changes={"L": True}, as_params=True, twice=False)  # cause 8
@example(rid="mu_splitfed/thm4.1", changes={"L": None}, as_params=True, twice=False)  # cause 8
@example(rid="mu_splitfed/thm4.1", changes={"L": 2.0}, as_params=True, twice=True)  # cause 8: L given twice
@example(rid="mu_splitfed/thm4.1", changes={"L": 1e200, "eta": 1e-200, "lam": 1e-200}, as_params=True, twice=False)
@example(rid="mu_splitfed/thm4.1", changes={"eta": 1e-300, "F": 1e10}, as_params=False, twice=False)  # cause 1
@example(rid="mu_splitfed/thm4.1", changes={"L": 1e-320}, as_params=True, twice=False)  # cause 2
@example(rid="sfl_aux/thm1", changes={"l": 1e100}, as_params=True, twice=False)  # cause 2: 2^(-1.15 l) underflows
@example(rid="heron_sfl/thm2@floor", changes={"d_c": 1e308, "lam": 1e308}, as_params=True, twice=False)  # cause 1
# evaluate refuses (a hypothesis side is 6e452, beyond the float range) and so cannot say the bound is void;
# bound_value's inf is then the exact x/0 of sfl_aux's m - 2 = 0 denominators at M = 2
@example(rid="sfl_aux/thm4", changes={"L": 1e150, "M": 2.0, "eta": 1.0}, as_params=True, twice=False)
@example(  # cause 4
    rid="mu_splitfed/thm4.1",
    changes={"tau": np.array([1.0, 2, 3]), "d_c": np.array([1.0, 2])},
    as_params=True,
    twice=False,
)
def test_python_functions(rid: Any, changes: dict[str, Any], as_params: bool, twice: bool) -> None:
    params: dict[str, Any] = dict(base(rid)) if isinstance(rid, str) and rid in EXPLICIT else {"L": 1.0}
    params.update(changes)
    kw = {"L": 3.0} if twice else {}
    void = False
    with quiet():
        for f in (st.evaluate, st.bound_value, st.max_step):
            try:
                res = f(rid, params, **kw) if as_params else f(rid, **params)  # type: ignore[operator]
            except SflTheoryError:
                continue
            if f is st.evaluate:
                void = bool(np.any(res.void))  # a void bound (a validity condition fails) says so itself
                assert finite_result(res.value) or void, (rid, params, res.value)
                assert all(finite_result(t) or void for t in res.terms.values()), (rid, params, res.terms)
            elif f is st.bound_value:
                assert finite_result(res) or void or divides_by_zero(rid, {**params, **kw}, res), (rid, params, res)
            else:  # inf is "no branch constrains the step"; NaN or a negative step never
                m = np.asarray(res.max_step, dtype=float)
                assert not np.any(np.isnan(m)) and bool(np.all(m >= 0)), (rid, params, res.max_step)
        try:
            st.get(rid)
        except SflTheoryError:
            pass


def divides_by_zero(rid: Any, params: dict[str, Any], value: Any) -> bool:
    """Every non-finite point of ``value`` is an exact division by zero (a void bound): mpmath, in exact
    arithmetic at the resolved parameters, finds no value there (:func:`sfltheory.numeric.exact` gives None)."""
    from sfltheory.evaluate import resolve
    from sfltheory.numeric import exact

    r = st.get(rid)
    values, _, _ = resolve(r, params)
    bad = np.flatnonzero(~np.isfinite(np.ravel(np.asarray(value, dtype=float))))
    return bool(bad.size) and all(exact(r.bound_expr, values, int(j)) is None for j in bad)


PLAN_ARGS: hs.SearchStrategy[Any] = hs.sampled_from(["resnet18", None, 42, [1], {}])


@SETTINGS
@given(
    cuts=PLAN_ARGS,
    params=hs.one_of(hs.just("ok"), PLAN_ARGS),
    entries=hs.sampled_from([[], "mu_splitfed/thm4.1", [42]]),
)
@example(cuts="resnet18", params="ok", entries=[])  # cause 8: cuts as a name
def test_python_planner(cuts: Any, params: Any, entries: Any) -> None:
    p = {"L": 1, "F": 2.3, "T": 100, "M": 2, "eta_g": 1, "sigma_c2": 1, "sigma_s2": 1, "eps2": 0.5, "lam": 1e-10}
    with quiet():
        with contextlib.suppress(SflTheoryError):
            plan("mu_splitfed/thm4.3", p if params == "ok" else params, cuts=cuts, grid=np.arange(1.0, 5.0))
        with contextlib.suppress(SflTheoryError):
            compare(entries, base("mu_splitfed/thm4.1"))


@SETTINGS
@given(rows=hs.lists(BLOCK, max_size=4), csv=hs.booleans())
def test_python_block_lists(tmp_path_factory: pytest.TempPathFactory, rows: list[dict[str, Any]], csv: bool) -> None:
    d = tmp_path_factory.mktemp("b")
    if csv:
        p = d / "m.csv"
        lines = ["name,params,activation,flops"] + [
            ",".join(str(r.get(k, "")) for k in ("name", "params", "activation", "flops")) for r in rows
        ]
        p.write_text("\n".join(lines) + "\n")
    else:
        p = d / "m.json"
        p.write_text(json.dumps(rows))
    try:
        table = load_blocks(Path(p))
    except SflTheoryError:
        return
    for c in table.cuts:
        assert c.d_c >= 1 and c.d_s >= 1
        assert c.flops_c is None or (math.isfinite(c.flops_c) and c.flops_c >= 0)
