"""What every bad-input test of a command asserts: exit 2, one line on stderr, no output; and a stand-in for the
work that must not start before the input is checked."""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest


def refused(main: Callable[[Sequence[str]], int], capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run ``main(args)``; assert exit 2 with one stderr line, no traceback and no output; return that line."""
    rc = main(list(args))
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sfltheory: error: "), err
    return lines[0]


def never(*_: Any, **__: Any) -> Any:
    raise AssertionError("the work ran before the output was checked")


def failing_under(folder: Path, real: Callable[..., Any]) -> Callable[..., Any]:
    """``real`` (a write taking a path first) that raises ENOSPC for a path under ``folder`` (a full disk there) and
    works elsewhere."""

    def write(path: Any, *args: Any, **kw: Any) -> Any:
        if Path(path).resolve().is_relative_to(folder.resolve()):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, *args, **kw)

    return write
