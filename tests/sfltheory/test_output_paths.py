"""Issue 24, cause 1: every output option of the theory commands is checked before any work (one line naming the
option and the rule, exit 2), and a write that still fails keeps the result in a fallback file named in the error.
"""

from __future__ import annotations

import errno
import json
import os
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sfltheory import outputs, plotting
from sfltheory.cli import main
from sfltheory.errors import ParameterError
from sfltheory.outputs import WriteFailed, check_dir, check_file, keep, write_text
from tests import refusal
from tests.refusal import failing_under

THM41 = ["L=1", "F=1", "T=10", "tau=2", "d_c=1", "d_s=1", "eta=1e-3", "sigma_c2=1", "sigma_s2=1", "lam=0.1"]
ROOT = os.geteuid() == 0  # root writes anywhere: chmod does not make a folder unwritable


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[types.SimpleNamespace]:
    """A file, a folder, and a folder nobody may write (by chmod, or for root by ``os.access``)."""
    f = tmp_path / "afile"
    f.write_text("x")
    d = tmp_path / "adir.png"  # ends like a figure, so --plot's suffix rule passes
    d.mkdir()
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if ROOT:
        real = os.access
        monkeypatch.setattr(outputs.os, "access", lambda p, mode: real(p, mode) and Path(p) != ro)
    yield types.SimpleNamespace(file=f, dir=d, ro=ro)
    ro.chmod(0o700)


def file_cases(p: types.SimpleNamespace, name: str = "x.png") -> list[tuple[str, str]]:
    """(path, what the line says) where a file is meant."""
    return [
        (str(p.dir), "is a directory: give a file name"),
        (f"{p.file}/{name}", "is a file, not a directory"),
        (f"{p.file}/deeper/{name}", f"{p.file} is a file, not a directory"),
        (f"{p.dir}/no/{name}", "no such directory"),
        (f"{p.ro}/{name}", "permission denied"),
    ]


def dir_cases(p: types.SimpleNamespace) -> list[tuple[str, str]]:
    """(path, what the line says) where a folder is meant."""
    return [
        (str(p.file), f"{p.file} is a file, not a directory"),
        (f"{p.file}/sub", f"{p.file} is a file, not a directory"),
        (str(p.ro), "permission denied"),
        (f"{p.ro}/new/sub", "permission denied"),
    ]


# --- the checks themselves ----------------------------------------------------------------------------------------
def test_check_file_and_dir_accept_what_can_be_written(tmp_path: Path) -> None:
    assert check_file("--out", tmp_path / "new.json") == tmp_path / "new.json"
    (tmp_path / "old.json").write_text("{}")
    check_file("--out", tmp_path / "old.json")  # an existing file is replaced
    check_dir("--out", tmp_path)
    check_dir("--out", tmp_path / "a" / "b")  # created by the writer
    assert not (tmp_path / "a").exists()  # the check creates nothing
    assert [x.name for x in tmp_path.iterdir() if x.name.startswith(outputs.PROBE_PREFIX)] == []


def test_check_refuses_in_one_rule(places: types.SimpleNamespace) -> None:
    for path, why in file_cases(places):
        with pytest.raises(ParameterError, match="parameter '--out': ") as e:
            check_file("--out", path)
        assert why in str(e.value), (path, str(e.value))
    for path, why in dir_cases(places):
        with pytest.raises(ParameterError, match="parameter '--out': ") as e:
            check_dir("--out", path)
        assert why in str(e.value), (path, str(e.value))


def test_a_folder_where_probing_fails_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only or full file system that ``os.access`` does not see: the probe file cannot be created."""

    def full(*_: Any, **__: Any) -> Any:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(outputs.tempfile, "mkstemp", full)
    with pytest.raises(ParameterError, match=r"'--out': cannot write .*x\.json: Read-only file system"):
        check_file("--out", tmp_path / "x.json")


# --- a write that fails after the work ----------------------------------------------------------------------------
def test_write_text_keeps_the_text_in_a_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outputs, "write_atomic", failing_under(tmp_path, outputs.write_atomic))
    with pytest.raises(WriteFailed, match=r"parameter '--out': cannot write .*No space left on device; the result is "
                       "saved in ") as e:  # fmt: skip
        write_text("--out", tmp_path / "c.json", '{"a": 1}\n')
    assert e.value.fallback is not None and e.value.fallback.suffix == ".json"
    assert e.value.fallback.read_text() == '{"a": 1}\n'
    assert str(e.value.fallback) in str(e.value)
    e.value.fallback.unlink()


def test_keep_a_folder_and_a_part_kept_inside_it(tmp_path: Path) -> None:
    """A writer whose part (a figure) was kept on its own: the whole is written again into a fallback folder."""
    out = tmp_path / "report"

    def write(d: Path) -> Path:
        if d == out:
            keep("--plot", d / "fig.png", failing_under(out, lambda p: p))  # the inner keep's fallback is removed
        d.mkdir(exist_ok=True)
        (d / "report.md").write_text("# report\n")
        return d

    with pytest.raises(WriteFailed, match=r"parameter 'out': cannot write .*report: No space left on device") as e:
        keep("out", out, write, folder=True)
    assert e.value.fallback is not None and (e.value.fallback / "report.md").read_text() == "# report\n"
    assert not any(p.name.startswith("sfltheory-plot-fig") for p in e.value.fallback.parent.iterdir())


def test_a_fallback_that_fails_too_is_one_line(tmp_path: Path) -> None:
    def write(p: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(WriteFailed, match=r"cannot write .*: No space left on device; nor could a copy be saved") as e:
        keep("--out", tmp_path / "x.txt", write)
    assert e.value.fallback is None


def test_a_figure_that_fails_to_save_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plotting, "atomic_path", failing_under(tmp_path, plotting.atomic_path))
    with plotting.style() as plt:
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0])
    with pytest.raises(WriteFailed, match=r"parameter 'path': cannot write .*saved in ") as e:
        plotting.save(fig, tmp_path / "f.png")  # Python names its parameter; the CLI passes name="--plot"
    assert e.value.fallback is not None and e.value.fallback.read_bytes()[:4] == b"\x89PNG"
    e.value.fallback.unlink()


# --- every theory command's output option, checked before its work -----------------------------------------------
def test_plan_compare_cuts_plot_checked_first(
    capsys: pytest.CaptureFixture[str], places: types.SimpleNamespace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from sfltheory.commands import cuts, planning

    monkeypatch.setattr(planning, "plan", refusal.never)
    monkeypatch.setattr(planning, "compare", refusal.never)
    monkeypatch.setattr(planning, "cuts_of", refusal.never)
    monkeypatch.setattr(cuts, "cuts_of", refusal.never)
    model = tmp_path / "m.json"
    model.write_text(json.dumps({"model": "m", "blocks": [{"name": "a", "params": 1}, {"name": "b", "params": 2}]}))
    for path, why in file_cases(places):
        for args in (
            ["plan", "mu_splitfed/thm4.1", *THM41],
            ["compare", "mu_splitfed/thm4.1", *THM41],
            ["cuts", "--model", str(model)],
        ):
            line = refusal.refused(main, capsys, *args, "--plot", path)
            assert "parameter '--plot': " in line and why in line, (args, path, line)


def test_audit_markdown_checked_first(
    capsys: pytest.CaptureFixture[str], places: types.SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sfltheory.audit import cli

    monkeypatch.setattr(cli, "audit", refusal.never)
    for path, why in file_cases(places, "r.md"):
        line = refusal.refused(main, capsys, "audit", "--markdown", path)
        assert "parameter '--markdown': " in line and why in line, (path, line)


def test_audit_markdown_on_a_full_disk_keeps_the_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sfltheory.audit import cli

    monkeypatch.setattr(cli, "audit", lambda *a, **k: "the audit")
    fake = types.SimpleNamespace(markdown=lambda r: f"# {r}", text=lambda r: f"text of {r}", to_json=json.dumps)
    monkeypatch.setattr(cli, "report", fake)
    monkeypatch.setattr(outputs, "write_atomic", failing_under(tmp_path, outputs.write_atomic))
    rc = main(["audit", "--markdown", str(tmp_path / "r.md")])
    out, err = capsys.readouterr()
    assert rc == 1 and out == "text of the audit\n"  # printed before the write; exit 1: done, kept elsewhere
    (line,) = err.splitlines()
    assert "parameter '--markdown': cannot write" in line and "No space left on device" in line
    fallback = Path(line.rsplit("the result is saved in ", 1)[1])
    assert fallback.read_text() == "# the audit\n"
    fallback.unlink()


def test_figs_out_checked_first(
    capsys: pytest.CaptureFixture[str], places: types.SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sfltheory import figs
    from sfltheory.commands import figures

    monkeypatch.setattr(figures, "run", refusal.never)
    monkeypatch.setattr(figs, "run", refusal.never)
    for path, why in dir_cases(places):
        line = refusal.refused(main, capsys, "figs", "--out", path)
        assert "parameter '--out': " in line and why in line, (path, line)
        with pytest.raises(SystemExit) as e:  # python paper_figs/NAME.py --out DIR
            figs.main(["--out", path], name="terms_cut_layer")
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and why in err


def test_an_output_larger_than_the_free_space_is_refused_before_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The free-space estimate: 5 MB expected on a file system with 1 MB free is refused, naming both sizes
    (5_000_000 bytes = 5 MB, 1_000_000 bytes = 1 MB); with enough room, or nothing expected, it passes."""
    usage = types.SimpleNamespace(total=10**9, used=10**9 - 10**6, free=10**6)
    monkeypatch.setattr(outputs.shutil, "disk_usage", lambda _: usage)
    with pytest.raises(ParameterError) as e:
        check_dir("--out", tmp_path / "run", need=5_000_000)
    assert e.value.name == "--out" and "needs about 5 MB" in str(e.value) and "1 MB free" in str(e.value)
    with pytest.raises(ParameterError, match="needs about 2 MB"):
        check_file("--markdown", tmp_path / "r.md", need=2_000_000)
    assert check_dir("--out", tmp_path / "run", need=999_999) == tmp_path / "run"
    assert check_file("--markdown", tmp_path / "r.md") == tmp_path / "r.md"


def test_library_errors_name_python_parameters_and_the_cli_its_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 24, misleading names: a notebook calling the library sees ``path``/``spec``, the CLI ``--plot``,
    ``--model``, ``--client-dist``."""
    from sfltheory.plan import load_blocks, parse_distribution

    with pytest.raises(ParameterError) as e:
        plotting.check_path(tmp_path / "f.gif")
    assert e.value.name == "path"
    with pytest.raises(ParameterError) as e:
        load_blocks(tmp_path / "nope.json")
    assert e.value.name == "path"
    with pytest.raises(ParameterError) as e:
        parse_distribution("nosuchdist:scale=1")
    assert e.value.name == "spec"
    assert refusal.refused(main, capsys, "cuts", "--model", str(tmp_path / "nope.json")).startswith(
        "sfltheory: error: parameter '--model': no such file"
    )
    line = refusal.refused(
        main,
        capsys,
        "plan",
        "mu_splitfed/thm4.3",
        "M=4",
        "--eps",
        "0.1",
        "--server-step",
        "1",
        "--client-dist",
        "nosuchdist",
    )
    assert line.startswith("sfltheory: error: parameter '--client-dist': 'nosuchdist' is not"), line


def test_figs_on_a_full_disk_keeps_the_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A figure whose write fails (ENOSPC under ``out``) is saved in a fallback named in the one-line error."""
    (tmp_path / "out").mkdir()
    monkeypatch.setattr(plotting, "atomic_path", failing_under(tmp_path / "out", plotting.atomic_path))
    with plotting.style() as plt:
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0])
    with pytest.raises(WriteFailed, match=r"parameter 'out': cannot write .*No space left.*saved in ") as e:
        plotting.save_formats(fig, tmp_path / "out" / "f", (".png",))
    assert e.value.fallback is not None and e.value.fallback.read_bytes()[:4] == b"\x89PNG"
    e.value.fallback.unlink()
