"""Issue 24: what the property-based guard of the one-line promise needs for the commands that run work (``train``,
``verify``, ``sweep``, ``audit``, ``figs``, ``measure``, ``which``, ``--results`` files): a runner that keeps every
failure as text, the promise itself (:func:`assert_promise`), hostile inputs written into a folder per example
(data files, destinations, sweep and theorem files, a full disk) and tiny models a ``--model
tests.promise_strategies:NAME`` factory builds.

The numbers come from the theory half's guard (``tests/sfltheory/test_promise_property.py``: NUMBERS, TEXT_JUNK).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import traceback
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any
from unittest import mock

import numpy as np
from hypothesis import event, settings
from hypothesis import strategies as hs
from torch import Tensor, nn

from tests.sfltheory.test_promise_property import NUMBERS, PLAUSIBLE, TEXT_JUNK
from verify.app import main


def examples(default: int) -> settings:
    """``default`` examples (the file runs in < 90 s on 2 shared cores); SFLTHEORY_PROPERTY_EXAMPLES raises it."""
    return settings(
        max_examples=int(os.environ.get("SFLTHEORY_PROPERTY_EXAMPLES", default)),
        deadline=None,
        suppress_health_check=list(__import__("hypothesis").HealthCheck),
        database=None,
    )


# ---- running a command ---------------------------------------------------------------------------------------------
SLOW_S = 180  # an input checked before the work never takes this long here (tiny data, T <= 2), even on a busy machine


@dataclass
class Outcome:
    """What a command did: its exit status (None when it raised), stdout, stderr (with the traceback if it raised)."""

    rc: int | None
    out: str
    err: str


def _too_slow(_: int, __: FrameType | None) -> None:
    raise TimeoutError(f"ran over {SLOW_S} s: the work started on input that was not checked first")


def run(argv: Sequence[str], cwd: Path) -> Outcome:
    """``sfltheory ARGV`` in-process in ``cwd``: argparse's exits are statuses, anything raised is a traceback."""
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _too_slow)
    signal.alarm(SLOW_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), contextlib.chdir(cwd):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    rc: int | None = main(list(argv))
                except SystemExit as e:  # argparse's own usage errors
                    rc = int(e.code or 0) if not isinstance(e.code, str) else 1
                except Exception:  # the promise's first rule: never this
                    rc = None
                    err.write(traceback.format_exc())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return Outcome(rc, out.getvalue(), err.getvalue())


# ---- the promise ---------------------------------------------------------------------------------------------------
# a value in a table cell, a name=value or a JSON-like field: "decay   nan vs   nan", "L = inf"; not prose
NONFINITE = re.compile(r"(?:(?<=[\s=:(\[,])|^)[-+]?(inf|nan|infinity)(?=[\s,;)\]]|$)", re.IGNORECASE | re.MULTILINE)
UNCHECKED = re.compile(r"parameter '[^']*'|ParameterError")
NAMED = re.compile(r"^sfltheory: error: parameter '([^']*)': (missing)?")


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under ``root``, with a digest of each file's content."""
    found: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink() or not (p.is_file() or p.is_dir()):
            found[rel] = "special"
        elif p.is_dir():
            found[rel] = "dir"
        else:
            found[rel] = hashlib.sha1(p.read_bytes()).hexdigest()
    return found


def first_line(o: Outcome) -> str:
    """The line to report: the exception of a traceback, else stderr's first line, else stdout's."""
    if "Traceback" in o.err:
        return [x for x in o.err.splitlines() if x.strip()][-1]
    return (o.err.splitlines() or o.out.splitlines() or [""])[0]


def assert_promise(
    o: Outcome,
    argv: Sequence[str],
    *,
    work: Path,
    before: dict[str, str],
    refuse: bool = False,
    names: Sequence[str] = (),
) -> None:
    """The promise for ``sfltheory ARGV`` run in ``work`` (``before``: its snapshot before the run).

    - never a traceback;
    - exit 2: exactly one stderr line ``sfltheory: error: ...``, nothing on stdout, nothing under ``work`` created,
      changed or removed (no partial output, a run kept); a ``parameter 'X'`` it names is one the user wrote: a flag
      or ``name=`` of ``argv``, or one of ``names`` (the keys of a file the user wrote);
    - exit 0 or 1: no ``inf``/``nan`` in stdout as a reported value (JSON included), and no parameter error reported
      as a side note or a stored failure (bad input is refused before the work: exit 2);
    - ``refuse``: the input breaks a rule, so the exit status is 2.
    """
    cmd = " ".join(argv)
    assert "Traceback" not in o.err + o.out and o.rc is not None, f"TRACEBACK: {cmd} -> {first_line(o)}"
    with contextlib.suppress(Exception):  # outside a hypothesis test (a plain call) there is no event log
        event(f"exit {o.rc}")
    if o.rc == 2:
        lines = o.err.splitlines()
        assert len(lines) == 1, f"NOT ONE LINE ({len(lines)}): {cmd} -> {o.err!r}"
        assert lines[0].startswith("sfltheory: error: "), f"PREFIX: {cmd} -> {lines[0]}"
        assert o.out == "", f"STDOUT ON EXIT 2: {cmd} -> {o.out[:200]!r}"
        after = snapshot(work)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        assert not changed, f"EXIT 2 CHANGED FILES {changed[:5]}: {cmd} -> {lines[0]}"
        m = NAMED.match(lines[0])
        if m and not m.group(2):  # "missing: ... needs X" names what to add, not what was written
            assert named_by_user(m.group(1), argv, names), f"NAME '{m.group(1)}' NOT THE USER'S: {cmd} -> {lines[0]}"
        return
    assert not refuse, f"NOT REFUSED (exit {o.rc}): {cmd} -> {first_line(o)}"
    assert o.rc in (0, 1), f"EXIT {o.rc}: {cmd} -> {first_line(o)}"
    for line in o.err.splitlines() + o.out.splitlines():
        if line.startswith("sfltheory: warning:") or line.startswith("sfltheory: note:"):
            continue
        assert not UNCHECKED.search(line), f"BAD INPUT NOT REFUSED FIRST (exit {o.rc}): {cmd} -> {line}"
    text = o.out.strip()
    if text.startswith(("{", "[")):
        with contextlib.suppress(ValueError):
            assert_json_finite(json.loads(text), cmd)
            return
    m2 = NONFINITE.search(o.out)
    assert m2 is None, f"NON-FINITE IN STDOUT (exit {o.rc}): {cmd} -> {line_of(o.out, m2.start()) if m2 else ''}"


def line_of(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start : end if end >= 0 else None]


def named_by_user(name: str, argv: Sequence[str], names: Sequence[str]) -> bool:
    """``name`` is what the user wrote: a flag of argv, a ``name=`` pair, a file key, or a positional (ID, FILE ...)."""
    flags = {a.split("=", 1)[0] for a in argv if a.startswith("--")}
    pairs = {a.split("=", 1)[0] for a in argv if "=" in a and not a.startswith("-")}
    return name in flags or name in pairs or name in names or name in ("ID", "FILE", "ALGO", "NAME")


def assert_json_finite(d: Any, cmd: str, key: str = "") -> None:
    if isinstance(d, dict):
        for k, v in d.items():
            assert_json_finite(v, cmd, k)
    elif isinstance(d, list):
        for v in d:
            assert_json_finite(v, cmd, key)
    elif isinstance(d, float):
        assert math.isfinite(d), f"NON-FINITE IN JSON ({key} = {d}): {cmd}"


# ---- numbers as a user types them ----------------------------------------------------------------------------------
def as_number(token: str) -> float | None:
    """The float a token reads as (None: not a number, or a list)."""
    try:
        return float(token)
    except ValueError:
        return None


def broken(token: str) -> bool:
    """A value no parameter accepts: not a number, or not finite."""
    v = as_number(token)
    return v is None or not math.isfinite(v)


JUNK = hs.one_of(NUMBERS.map(repr), hs.sampled_from(TEXT_JUNK))
TOKENS = hs.one_of(PLAUSIBLE.map(repr), JUNK)


def rounds(ok: Sequence[str] = ("1", "2")) -> hs.SearchStrategy[str]:
    """A number of rounds: a cheap valid one, or one that breaks "an integer in 1..1e7" (never a long valid run)."""

    def invalid(t: str) -> bool:
        v = as_number(t)
        return v is None or not math.isfinite(v) or v != int(v) or not 1 <= v <= 1e7

    return hs.one_of(hs.sampled_from(list(ok)), JUNK.filter(invalid), hs.sampled_from(["1e20", "1e14", "1e12", "0"]))


def bad_rounds(token: str) -> bool:
    v = as_number(token)
    return v is None or not math.isfinite(v) or v != int(v) or not 1 <= v <= 1e7


# ---- data files ----------------------------------------------------------------------------------------------------
N, FEATURES, CLASSES = 24, 8, 3
DATA_KINDS = [
    "good", "nan", "inf", "labels100", "float_labels", "negative_labels", "y_length", "x_1d", "empty", "missing_x",
    "three_d", "binary", "text", "folder", "absent", "labels10", "one_class", "object",
]  # fmt: skip
GOOD_DATA = ("good", "labels10")


def write_data(d: Path, kind: str) -> Path:
    """A .npz of ``N`` samples of ``FEATURES`` features of ``kind`` (see DATA_KINDS) in ``d``; only GOOD_DATA are
    data a run may accept ("labels10": ten classes 0..9, for the model with three outputs)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(N, FEATURES)).astype(np.float32)
    y = np.arange(N) % CLASSES
    p = d / f"{kind}.npz"
    arrays: dict[str, Any] = {"X": x, "y": y}
    if kind == "nan":
        x[3, 2] = np.nan
    elif kind == "inf":
        x[5, 0] = -np.inf
    elif kind == "labels100":
        arrays["y"] = 100 + np.arange(N) % 10
    elif kind == "labels10":
        arrays["y"] = np.arange(N) % 10
    elif kind == "float_labels":
        arrays["y"] = y + 0.5
    elif kind == "negative_labels":
        arrays["y"] = y - 1
    elif kind == "one_class":
        arrays["y"] = np.zeros(N, dtype=np.int64)
    elif kind == "y_length":
        arrays["y"] = y[:-5]
    elif kind == "x_1d":
        arrays["X"] = x[:, 0]
    elif kind == "empty":
        arrays = {"X": x[:0], "y": y[:0]}
    elif kind == "missing_x":
        arrays = {"x": x, "y": y}
    elif kind == "three_d":
        arrays["X"] = x.reshape(N, 2, 4)[:, :, :3]  # 6 features: not the 8 the model was sized to? it resizes
    elif kind == "object":
        arrays["y"] = np.array(["a", "b", "c"] * (N // 3), dtype=object)
    elif kind in ("binary", "text"):
        p.write_bytes(b"\x00\xff\xfePK\x03\x04junk" if kind == "binary" else b"X,y\n1,2\n")
        return p
    elif kind == "folder":
        p.mkdir()
        return p
    elif kind == "absent":
        return p
    np.savez(p, **arrays, allow_pickle=True) if kind == "object" else np.savez(p, **arrays)
    return p


# ---- models a factory builds (``--model tests.promise_strategies:NAME``) --------------------------------------------
class Raises(nn.Module):
    """A block whose forward raises, as a user's buggy model does."""

    def forward(self, x: Tensor) -> Tensor:
        raise RuntimeError("a bug in the user's forward")


def tiny() -> nn.Module:
    """FEATURES -> CLASSES outputs, two blocks."""
    return nn.Sequential(nn.Linear(FEATURES, 6), nn.ReLU(), nn.Linear(6, CLASSES))


def three_outputs() -> nn.Module:
    """Three outputs: wrong for data of ten classes."""
    return nn.Sequential(nn.Linear(FEATURES, 6), nn.ReLU(), nn.Linear(6, 3))


def raising() -> nn.Module:
    return nn.Sequential(nn.Linear(FEATURES, 6), Raises(), nn.Linear(6, CLASSES))


def not_a_model() -> int:
    return 3


MODELS = ["mlp", "tests.promise_strategies:tiny"]
BAD_MODELS = [
    "tests.promise_strategies:three_outputs", "tests.promise_strategies:raising", "tests.promise_strategies:not_a_model",
    "tests.promise_strategies:nope", "nonexistent.module:f", "nope",
]  # fmt: skip


# ---- destinations --------------------------------------------------------------------------------------------------
DEST_KINDS = ["new", "existing_dir", "file", "under_file", "no_parent", "unwritable", "proc", "full_disk"]
OK_DEST = ("new", "existing_dir")  # a new path, or (for a folder option) an existing empty folder


def destination(d: Path, kind: str, *, folder: bool, suffix: str = "") -> Path:
    """A path of ``kind`` under ``d`` for an output option (``folder``: the option takes a folder)."""
    (d / "afile").write_text("not a folder\n")
    (d / "adir").mkdir(exist_ok=True)
    name = "out" + suffix
    return {
        "new": d / name,
        "existing_dir": d / "adir" if folder else d / "adir" / name,
        "file": d / "afile" if folder else d / "adir",  # a file where a folder is meant, a folder where a file is
        "under_file": d / "afile" / name,
        "no_parent": d / "missing" / "deeper" / name,
        "unwritable": d / "ro" / name,
        "proc": Path("/proc/sfltheory-promise") / name,
        "full_disk": d / "full" / name,
    }[kind]


@contextlib.contextmanager
def hostile_places(d: Path, kind: str) -> Iterator[None]:
    """Make ``d/ro`` read-only and ``d/full`` a full file system for the run, when ``kind`` asks for them.

    Read-only is a read-only tmpfs mount when this process may mount (root, whom permissions never stop), else
    ``chmod 500``. Full is a 64 kB tmpfs filled up, else a patched ``os.replace`` and ``shutil.disk_usage`` that
    say ENOSPC / 0 bytes free there (every atomic write ends in ``os.replace``)."""
    target = {"unwritable": d / "ro", "full_disk": d / "full"}.get(kind)
    if target is None:
        yield
        return
    target.mkdir(exist_ok=True)
    mounted = _mount(target, "ro,size=64k" if kind == "unwritable" else "size=64k")
    try:
        if kind == "unwritable":
            if not mounted:
                target.chmod(0o500)
            yield
        elif mounted:
            _fill(target)
            yield
        else:
            with _patched_full(target):
                yield
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(target)], check=False, capture_output=True)
        with contextlib.suppress(OSError):
            target.chmod(0o700)


def _mount(target: Path, options: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(target)], capture_output=True, check=False)
    return r.returncode == 0


def _fill(target: Path) -> None:
    with contextlib.suppress(OSError), (target / ".filler").open("wb") as f:
        while True:
            f.write(b"\0" * 4096)
            f.flush()


@contextlib.contextmanager
def _patched_full(target: Path) -> Iterator[None]:
    real_replace, real_usage = os.replace, shutil.disk_usage

    def replace(src: Any, dst: Any, *a: Any, **k: Any) -> None:
        if str(os.path.abspath(dst)).startswith(str(target)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_replace(src, dst, *a, **k)

    def usage(p: Any) -> Any:
        u = real_usage(p)
        return type(u)(u.total, u.total, 0) if str(os.path.abspath(p)).startswith(str(target)) else u

    with mock.patch("os.replace", replace), mock.patch("shutil.disk_usage", usage):
        yield


# ---- sweep files ---------------------------------------------------------------------------------------------------
def toml_value(v: Any) -> str:
    """``v`` in TOML (floats with nan/inf as TOML spells them)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return json.dumps(v)


def sweep_text(sections: dict[str, dict[str, Any]], fmt: str) -> str:
    """A sweep file of ``sections`` (sweep, base, grid ...) as TOML, YAML or JSON."""
    if fmt == "json":
        return json.dumps(sections, allow_nan=True)
    if fmt == "yaml":
        lines = []
        for sec, body in sections.items():
            lines.append(f"{sec}:")
            lines += [f"  {k}: {_yaml(v)}" for k, v in body.items()]
        return "\n".join(lines) + "\n"
    out = []
    for sec, body in sections.items():
        out.append(f"[{sec}]")
        out += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in body.items()]
    return "\n".join(out) + "\n"


def _yaml(v: Any) -> str:
    if isinstance(v, float) and not math.isfinite(v):
        return ".nan" if math.isnan(v) else (".inf" if v > 0 else "-.inf")
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_yaml(x) for x in v) + "]"
    return json.dumps(v)


RAW_SWEEPS = [b"", b"\x00\xff\xfe\x01binary", b"[sweep\nname=", b"[[[", b"sweep: [1, 2", b"null", b"[1, 2]", b"   \n"]


# ---- theorem files (``--results FILE``) ----------------------------------------------------------------------------
BAD_FORMULAS = [r"\frac{1}{L-L}", r"\log(0)", r"\sqrt{-L}", r"\infty", r"\frac{0}{0}", r"L^{1e400}", r"\frac{F}{"]
GOOD_FORMULAS = [r"\frac{2F}{\eta T}", r"\eta L \sigma^2", r"\frac{F}{T}"]


def theorem_text(statement_term: str, extra: str = "") -> str:
    """A one-result theorem file whose bound is ``statement_term`` (LaTeX), as README's "Your own theorem"."""
    return (
        "[[results]]\n"
        'id = "mine/t"\nkind = "theorem"\ntitle = "a user bound"\nreference = "me"\n'
        'where = { label = "Theorem 1", section = "Sec. 1" }\n'
        'lhs = "min over t < T of E||grad f(x^t)||^2"\n'
        f"statement = '\\min_t \\mathbb{{E}}\\|\\nabla f\\|^2 \\le {statement_term}'\n"
        'step = "eta"\nassumptions = ["smoothness", "bounded_variance"]\n'
        f'[[results.terms]]\nname = "all"\nlatex = \'{statement_term}\'\nmeaning = "the bound"\n' + extra
    )


__all__ = [
    "BAD_FORMULAS", "BAD_MODELS", "CLASSES", "DATA_KINDS", "DEST_KINDS", "FEATURES", "GOOD_DATA", "GOOD_FORMULAS",
    "JUNK", "MODELS", "OK_DEST", "RAW_SWEEPS", "TOKENS", "Outcome", "as_number", "assert_promise", "bad_rounds",
    "broken", "destination", "examples", "first_line", "hostile_places", "raising", "rounds", "run", "snapshot",
    "sweep_text", "theorem_text", "three_outputs", "tiny", "write_data",
]  # fmt: skip
