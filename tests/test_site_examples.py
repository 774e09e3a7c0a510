"""The getting-started pages of the site (and the README's first taste) show real output: every command in their ``console`` blocks is run, in
order, in one fresh folder per page, and its output must be what the page shows.

A block is a sequence of ``$ sfltheory ...`` lines, each followed by the output it prints: stdout, then the lines of
stderr that start with ``sfltheory:`` (a one-line error); progress lines on stderr are not shown. In the shown
output a line ``...`` stands for any number of lines (a long table cut short, a timing). A ``  # comment`` after a
command is not part of it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs" / "getting-started").glob("*.md"))
CHECKED = [p for p in PAGES if p.stem != "index"] + [ROOT / "README.md"]
BLOCK = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


def examples(text: str) -> list[tuple[str, list[str]]]:
    """Every ``(command, shown output lines)`` of a page's console blocks, in order."""
    out: list[tuple[str, list[str]]] = []
    for block in BLOCK.findall(text):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:].split("  #")[0].strip(), []))
            elif out:
                out[-1][1].append(line)
    return out


def matches(shown: list[str], actual: list[str]) -> bool:
    """``shown`` equals ``actual``, a ``...`` line standing for any run of lines (possibly none)."""
    if not shown:
        return not actual
    if shown[0] == "...":
        return any(matches(shown[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and shown[0] == actual[0] and matches(shown[1:], actual[1:])


def test_matches_reads_ellipsis() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "..."], ["a"])
    assert not matches(["a", "...", "d"], ["a", "b", "c"])
    assert not matches(["a", "b"], ["a", "c"])


def test_every_page_has_examples() -> None:
    names = {p.stem for p in PAGES}
    assert {"theorem-and-lr", "plan", "measured", "regenerate"} <= names
    for p in PAGES:
        if p.stem != "index":
            assert examples(p.read_text()), f"{p.name} shows no command"


@pytest.mark.parametrize("page", CHECKED, ids=lambda p: p.stem)
def test_page_output_is_current(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    from verify.app import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "120")
    for command, shown in examples(page.read_text()):
        args = shlex.split(command)
        assert args[0] == "sfltheory", f"{page.name}: only sfltheory commands are run ({command})"
        try:
            main(args[1:])
        except SystemExit:
            pass
        cap = capsys.readouterr()
        actual = cap.out.rstrip("\n").splitlines() + [ln for ln in cap.err.splitlines() if ln.startswith("sfltheory:")]
        assert matches(shown, actual), (
            f"{page.relative_to(ROOT)} is stale at `{command}`; it now prints:\n" + "\n".join(actual)
        )
