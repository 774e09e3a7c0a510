"""The command line: ``python -m sfltheory.seedtables`` and the ``tables`` command module, --list, writing, and bad
input in one line with exit status 2 before anything is written."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sfltheory.cliargs import Parser
from sfltheory.commands import tables
from sfltheory.errors import SflTheoryError
from sfltheory.seedtables import TABLES
from sfltheory.seedtables.__main__ import main


def test_list_names_every_table_with_its_seed_location(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == list(TABLES)
    assert "Table 2" in out[0] and "seed 000" in out[0]


def test_bad_id_is_one_line_and_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mu_table2", "no_such_table", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "parameter 'ID': unknown table 'no_such_table'" in err
    assert not (tmp_path / "x").exists()  # checked before anything is built


def test_list_refuses_out(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list", "--out", "x"]) == 2
    assert "parameter '--out'" in capsys.readouterr().err


def test_writes_the_three_formats_and_the_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mu_fn3", "--out", str(tmp_path)]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["index.md", "mu_fn3.csv", "mu_fn3.md", "mu_fn3.tex"]  # and no temporary files left behind
    assert "wrote" in capsys.readouterr().out
    assert "mu_fn3" in (tmp_path / "index.md").read_text()


def run_command(argv: list[str]) -> int:
    """The ``tables`` command as ``sfltheory`` runs it: its module registered on a subparser, bad input -> 2."""
    p = Parser(prog="sfltheory")
    tables.register(p.add_subparsers(dest="command"))
    a: argparse.Namespace = p.parse_args(argv)
    try:
        return int(a.func(a))
    except SflTheoryError as e:
        print(f"sfltheory: error: {e}")
        return 2


def test_command_module_lists_and_refuses_a_bad_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(["tables", "--list", "sl_table4"]) == 0
    assert capsys.readouterr().out.startswith("sl_table4")
    assert run_command(["tables", "nope"]) == 2
    assert "parameter 'ID': unknown table 'nope'" in capsys.readouterr().out


def test_command_module_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(["tables", "heron_table1", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("4 files (1 table and the index) in ")
    assert (tmp_path / "heron_table1.tex").read_text().count(r"\toprule") == 1
