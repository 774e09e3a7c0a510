"""Issue 24 for ``sfltheory sweep FILE``: every sweep file is validated as a whole before any configuration runs,
and bad input is one line naming the sweep file's own key (or the command's flag) and the rule.

Each test builds a hostile file in ``tmp_path`` and runs the command in this process (``verify.app.main``, the
serial executor) on tiny quadratics (T = 2): a binary or empty file, malformed TOML / YAML / JSON, missing problem
files, unknown series, T over the cap and a grid over the rounds limit, a bad or unreachable Ray address, a full
disk while results are stored, and library flags leaking into a sweep's errors."""

from __future__ import annotations

import ast
import errno
import json
import os
import re
import socket
import sys
import types
from pathlib import Path

import pytest

pytest.importorskip("torch")

from sfltheory.errors import ParameterError
from tests.refusal import refused
from verify.app import main
from verify.sweep import run_sweep
from verify.sweep.entries import ROUND_METRICS
from verify.sweep.executors import RayExecutor, check_address

BASE = """
[sweep]
name = "promise"
{sweep}
[base]
algorithm = "sl"
problem = "quadratic"
d = 4
M = 2
T = 2
batch = 2
eta_l = 0.05
{base}
[grid]
seed = [0, 1, 2]
"""


def sweep_file(tmp_path: Path, *, sweep: str = "", base: str = "", text: str | None = None) -> Path:
    """A sweep file of three tiny configurations (seeds 0, 1, 2), with ``sweep`` and ``base`` lines added."""
    f = tmp_path / "s.toml"
    f.write_text(BASE.format(sweep=sweep, base=base) if text is None else text)
    return f


def nothing_ran(f: Path) -> bool:
    """No configuration ran, nor was the results folder even written (sweep.json comes after every check)."""
    return not (f.parent / f"{f.stem}.results").exists()


def sweep(capsys: pytest.CaptureFixture[str], f: Path, *more: str) -> str:
    """``sfltheory sweep F --executor serial --quiet MORE`` (MORE's own --executor instead, when it has one: an
    option given twice is refused), refused: exit 2, one line on stderr (returned)."""
    executor = () if "--executor" in more else ("--executor", "serial")
    return refused(main, capsys, "sweep", str(f), *executor, "--quiet", *more)


# --- 1. a binary file ---------------------------------------------------------------------------------------------


def test_binary_sweep_file_is_one_line_naming_the_first_byte_that_is_not_utf8(tmp_path, capsys) -> None:
    f = tmp_path / "bin.toml"
    f.write_bytes(bytes(range(256)))
    line = sweep(capsys, f)
    # bytes 0..127 are ASCII, hence UTF-8; 0x80 (a continuation byte with no lead) at offset 128 is the first not
    assert line.endswith(f"parameter 'FILE': {f} is not a text file: byte 0x80 at offset 128 is not UTF-8"), line


# --- 2. an empty file; where a missing algorithm is missing; malformed files --------------------------------------


@pytest.mark.parametrize("name", ["empty.toml", "empty.yaml", "empty.json"])
def test_empty_sweep_file_declares_no_configuration(tmp_path, capsys, name) -> None:
    f = tmp_path / name
    f.write_text("" if name.endswith("json") else "# nothing yet\n")
    line = sweep(capsys, f)
    assert f"parameter 'FILE': {f} declares no configuration: add a [base] table" in line, line
    assert "missing in )" not in line


def test_a_missing_algorithm_names_the_places_it_could_be(tmp_path, capsys) -> None:
    text = "[base]\nT = 2\n[[configs]]\nalgorithm = 'sl'\n[[configs]]\nbatch = 2\n"
    line = sweep(capsys, sweep_file(tmp_path, text=text))
    # the second entry has no algorithm, nor has [base]: both places are named
    assert line.endswith(
        "parameter 'algorithm': every train configuration names its algorithm (missing in [base] and [[configs]] "
        "entry 2)"
    ), line
    line = sweep(capsys, sweep_file(tmp_path, text="[base]\nT = 2\n[grid]\nseed = [1, 2]\n"))
    assert line.endswith("(missing in [base] and [grid])"), line


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        # TOML: the value after `name = ` is missing: line 2, column 8 (1-based, where the value should start)
        ("m.toml", "[sweep]\nname = \n", "is not valid TOML: Invalid value (at line 2, column 8)"),
        # YAML: `b: c` after `a: ` -- a mapping value where none is allowed, at line 1, column 5 (the second colon)
        ("m.yaml", "a: b: c\n", "is not valid YAML: mapping values are not allowed here (at line 1, column 5)"),
        # JSON: `"name" 1` lacks its colon: line 3 (two blank lines first), column 19 (the `1`, where `:` should be)
        ("m.json", '\n\n{"sweep": {"name" 1}}', "is not valid JSON: Expecting ':' delimiter (at line 3, column 19)"),
    ],
)
def test_malformed_files_are_one_line_with_file_line_and_column(tmp_path, capsys, name, text, where) -> None:
    f = tmp_path / name
    f.write_text(text)
    line = sweep(capsys, f)
    assert line.endswith(f"parameter 'FILE': {f} {where}"), line


# --- 3. missing files, found for the whole sweep before any run ---------------------------------------------------


def test_missing_problem_files_are_refused_before_any_run(tmp_path, capsys) -> None:
    missing = tmp_path / "nonexistent.json"
    f = sweep_file(tmp_path, text=BASE.format(sweep="", base="").replace('"quadratic"', f'"{missing}"')
                   .replace("d = 4\nM = 2\n", ""))  # fmt: skip
    line = sweep(capsys, f)
    assert line.endswith(f"parameter 'problem': no such file: {missing} ([base])"), line
    assert nothing_ran(f)
    data = tmp_path / "missing.npz"
    text = "[base]\nalgorithm = 'sl'\nT = 2\n[grid]\nseed = [0, 1]\n[[configs]]\nclients = 2\n[[configs]]\n"
    f = sweep_file(tmp_path, text=text + f"data = '{data}'\n")
    line = sweep(capsys, f)
    assert line.endswith(f"parameter 'data': {data}: no such file ([[configs]] entry 2)"), line
    assert nothing_ran(f)


def test_a_bad_value_names_where_it_was_declared(tmp_path, capsys) -> None:
    f = sweep_file(tmp_path, text=BASE.format(sweep="", base="").replace("seed = [0, 1, 2]", "eta_l = [0.1, -1]"))
    line = sweep(capsys, f)
    assert "parameter 'eta_l': must be a positive number" in line and line.endswith("([grid] eta_l = -1)"), line
    assert nothing_ran(f)


# --- 4. series -----------------------------------------------------------------------------------------------------


def test_unknown_series_are_refused_listing_the_known_ones(tmp_path, capsys) -> None:
    f = sweep_file(tmp_path, sweep='series = ["nonexistent"]')
    line = sweep(capsys, f)
    assert "parameter 'sweep.series': unknown series 'nonexistent' (known: t, gradnorm2," in line, line
    assert "gradnorm2_avg" in line and "drift_client" in line  # a record's field, an algorithm's own metric
    assert nothing_ran(f)
    f = sweep_file(tmp_path, sweep='record = ["gradnorm3"]')
    assert "parameter 'sweep.record': unknown column 'gradnorm3'" in sweep(capsys, f)


def test_the_known_metrics_are_every_algorithm_returns() -> None:
    """ROUND_METRICS against the algorithms' sources: every string key of a dict literal returned by a function of
    verify/train/algorithms (the state dicts, keyed client/server/aux, aside) is a record field or a known metric."""
    from verify.train.base import RECORD_FIELDS

    root = Path(__file__).resolve().parents[3] / "verify" / "train" / "algorithms"
    returned: set[str] = set()
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
                keys = {k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                if keys and not keys <= {"client", "server", "aux"}:
                    returned |= keys
    assert returned, "no metrics found: the algorithms' layout changed"
    assert returned <= {*RECORD_FIELDS, *ROUND_METRICS}, returned - {*RECORD_FIELDS, *ROUND_METRICS}


# --- 5. T and the size of the sweep --------------------------------------------------------------------------------


def test_a_T_over_the_cap_is_refused_before_any_run(tmp_path, capsys) -> None:
    f = sweep_file(tmp_path, text=BASE.format(sweep="", base="").replace("T = 2", "T = 1e12"))
    line = sweep(capsys, f)
    assert "parameter 'T': at most 1e+07 rounds (got 1e+12)" in line and line.endswith("([base])"), line
    assert nothing_ran(f)


def test_a_sweep_over_the_rounds_limit_is_refused_and_the_flag_raises_it(tmp_path, capsys) -> None:
    text = BASE.format(sweep="", base="")
    f = sweep_file(tmp_path, text=text.replace("T = 2", "T = 5000000"))
    # 3 seeds x T = 5e6 = 1.5e7 rounds: under the default limit of 1e8, over --max-rounds 10000000
    line = sweep(capsys, f, "--max-rounds", "10000000")
    assert line.endswith(
        "parameter 'grid': runs 1.5e+07 rounds in all (3 configurations, T summed), more than the limit 1e+07 "
        "(raise it with --max-rounds N, or max_rounds=N)"
    ), line
    # 12 seeds x T = 9e6 = 1.08e8 rounds, over the default limit (each T under the cap of one run, 1e7); refused
    # before any configuration is even checked (zz, an unknown name, would be)
    big = text.replace("T = 2", "T = 9000000\nzz = 1").replace("seed = [0, 1, 2]", f"seed = {list(range(12))}")
    f = sweep_file(tmp_path, text=big)
    assert "parameter 'grid': runs 1.08e+08 rounds in all (12 configurations" in sweep(capsys, f)
    assert nothing_ran(f)
    f = sweep_file(tmp_path)  # 3 x T = 2 = 6 rounds: refused under 6, run at 6
    assert "runs 6 rounds in all (3 configurations" in sweep(capsys, f, "--max-rounds", "5")
    assert "declares 3 configurations, more than the limit 2" in sweep(capsys, f, "--max-configs", "2")
    assert main(["sweep", str(f), "--executor", "serial", "--quiet", "--max-rounds", "6"]) == 0
    assert "3 finished and 0 failed" in capsys.readouterr().out


# --- 6. the Ray address -------------------------------------------------------------------------------------------


def unused_port() -> int:
    """A local port nothing listens on: bound by the system, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("address", ["nonsense:abc", "10.0.0.1", "10.0.0.1:0", "10.0.0.1:65536", "ray://", " "])
def test_a_malformed_ray_address_is_one_line(tmp_path, capsys, monkeypatch, address) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # checked before Ray is imported: no import is tried
    f = sweep_file(tmp_path)
    line = sweep(capsys, f, "--executor", "ray", "--address", address)
    assert line.endswith(
        f"parameter '--address': must be auto, HOST:PORT (e.g. 10.0.0.1:6379, a port 1..65535) or ray://HOST:PORT "
        f"(got {address!r})"
    ), line
    assert nothing_ran(f)


def test_an_unreachable_ray_address_is_one_line_before_ray_starts(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    port = unused_port()
    f = sweep_file(tmp_path)
    line = sweep(capsys, f, "--executor", "ray", "--address", f"127.0.0.1:{port}")
    assert line.endswith(
        f"parameter '--address': cannot reach 127.0.0.1:{port} within 10 s (Connection refused): is the cluster's "
        "head (ray start --head) running there?"
    ), line
    assert nothing_ran(f)
    line = sweep(capsys, f, "--executor", "ray", "--address", f"ray://localhost:{port}")
    assert f"cannot reach localhost:{port} within 10 s" in line

    def silent(*_: object, **__: object) -> None:  # a packet dropped on the way: the connection times out
        raise TimeoutError("timed out")

    monkeypatch.setattr(socket, "create_connection", silent)
    with pytest.raises(ParameterError, match=r"cannot reach 10\.255\.255\.1:6379 within 0\.5 s \(timed out\)"):
        check_address("10.255.255.1:6379", timeout=0.5)


def test_ray_failing_to_join_is_one_line_without_its_log(capfd, monkeypatch) -> None:
    """ray.init on a port that answers but is not Ray's logs a line a second on the process's stderr (its C++ core),
    then raises: one line, and nothing of that log."""
    fake = types.ModuleType("ray")

    def init(**_: object) -> None:
        os.write(2, b"[W gcs_client.cc:210] Failed to get cluster ID from GCS server\n")
        raise ConnectionError("Could not find any running Ray instance.\nPlease specify the one to connect to.")

    fake.is_initialized = lambda: False  # type: ignore[attr-defined]
    fake.init = init  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ray", fake)
    with pytest.raises(ParameterError) as e:
        RayExecutor(print, address="auto")
    assert str(e.value) == (
        "parameter '--address': cannot join the Ray cluster at auto: Could not find any running Ray instance. "
        "Please specify the one to connect to."
    )
    out, err = capfd.readouterr()
    assert out == "" and err == ""


# --- 7. a full disk while results are stored ----------------------------------------------------------------------


def test_a_full_disk_keeps_the_finished_record_and_stops_the_sweep(tmp_path, capsys, monkeypatch) -> None:
    import sfltheory.outputs
    from sfltheory.cliargs import EXIT_WRITE_FAILED

    f = sweep_file(tmp_path)
    results = tmp_path / "s.results" / "results"
    real = sfltheory.outputs.write_atomic
    stored: list[Path] = []

    def full_on_the_second(path: Path, text: str) -> None:
        if Path(path).parent == results:
            if len(stored) == 1:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            stored.append(Path(path))
        real(path, text)

    monkeypatch.setattr(sfltheory.outputs, "write_atomic", full_on_the_second)
    rc = main(["sweep", str(f), "--executor", "serial", "--quiet"])
    out, err = capsys.readouterr()
    assert rc == EXIT_WRITE_FAILED and out == "" and len(err.splitlines()) == 1, (rc, out, err)
    m = re.fullmatch(
        rf"sfltheory: error: parameter 'sweep\.out': cannot write {re.escape(str(results))}/(\w+)\.json: No space "
        r"left on device; the result is saved in (\S+)\n",
        err,
    )
    assert m is not None, err
    kept = json.loads(Path(m.group(2)).read_text())
    assert kept["key"] == m.group(1) and kept["status"] == "ok" and kept["params"]["seed"] == 1  # the second
    assert [p.name for p in results.iterdir()] == [stored[0].name]  # the first stays; the third never ran
    Path(m.group(2)).unlink()
    monkeypatch.setattr(sfltheory.outputs, "write_atomic", real)  # space again: the rerun resumes
    s = run_sweep(f, executor="serial")
    assert (s.skipped, s.finished, s.failed) == (1, 2, 0)


# --- 8. a sweep's errors name its keys, not the command line's flags ------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("model = 'nope.py:net'\n", "parameter 'model': no such file: nope.py ([base])"),
        ("model = 'nosuchmodel'\n", "parameter 'model': unknown model 'nosuchmodel'; known: "),
        ("input_shape = '0,3'\n", "parameter 'input_shape': must be an integer >= 1 (got 0) ([base])"),
        ("clients = 0\n", "parameter 'clients': must be an integer >= 1 (got 0) ([base])"),
    ],
)
def test_errors_name_the_sweep_files_keys_not_flags(tmp_path, capsys, lines, message) -> None:
    f = sweep_file(tmp_path, text="[base]\nalgorithm = 'sl'\nT = 2\n" + lines + "[grid]\nseed = [0, 1]\n")
    line = sweep(capsys, f)
    assert message in line, line
    assert "--" not in line.removeprefix("sfltheory: error: "), line  # no flag of `sfltheory train`
    assert nothing_ran(f)


def test_a_verify_sweep_names_its_keys_in_the_rule_too(tmp_path, capsys) -> None:
    text = "[sweep]\nkind = 'verify'\n[base]\nresult = 'sl_noniid/thm1@proof'\nproblem = 'quadratic'\nmodel = 'cnn'\n"
    line = sweep(capsys, sweep_file(tmp_path, text=text))
    assert line.endswith("parameter 'model': describes a model problem; not with problem ([base])"), line
