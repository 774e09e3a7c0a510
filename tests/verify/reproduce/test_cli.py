"""``sfltheory reproduce`` (through ``python -m verify.reproduce``'s main): --list, and bad input in one line with
exit status 2."""

from __future__ import annotations

import pytest

from verify.reproduce.cli import main


def test_list_names_the_seed_location_and_claim(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "cut_layer/tables3-4" in out
    assert "003_60e24e21677c19f3.txt, Tables 3-4" in out
    assert "claim: SFL-V1's test accuracy is invariant to the cut layer" in out


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["nope"], "'ID'"),
        (["--list"], "--list runs nothing; drop --out or drop --list"),  # --out is given by the test itself
        (["--workers", "0"], "--workers"),
        (["--scale", "huge"], "--scale"),
        (["--device", "tpu", "--scale", "tiny"], "--device"),
        (["--scale", "paper"], "--data-root"),
        (["--scale", "paper", "--data-root", "/nonexistent/cifar"], "no such folder /nonexistent/cifar"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], names: str, tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        rc = main([*argv, "--out", str(tmp_path)])
    except SystemExit as e:  # argparse's own refusals exit through the Parser's one-line error
        rc = int(e.code or 0)
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1 and names in err, err
