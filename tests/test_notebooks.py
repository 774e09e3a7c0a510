"""Every notebook executes top to bottom, on small settings, without a cell error.

The notebooks are jupytext percent-format sources (``notebooks/*.py``); each is read into a notebook in memory
(no ``.ipynb`` is written) and executed by nbclient in a python3 kernel of *this* interpreter, so the kernel sees
the same installed packages as the tests. ``SFLTHEORY_NB_SMALL=1`` switches the notebooks to their small settings.
The notebook tooling comes from the ``notebooks`` extra, which ``scripts/env.sh`` installs; without it these tests
skip and say so.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
KERNEL = "sfltheory-notebooks"
MISSING = "the notebook packages are not installed: pip install -e '.[notebooks]' (scripts/env.sh installs them)"


def _tooling() -> tuple[Any, Any, Any, Any]:
    try:
        import ipykernel  # noqa: F401  (the kernel itself)
        import jupytext
        import nbclient
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import KernelManager
    except ImportError:
        pytest.skip(MISSING)
    return jupytext, nbclient, KernelSpecManager, KernelManager


def test_every_notebook_is_collected() -> None:
    names = [p.stem for p in SOURCES]
    assert len(names) >= 5, f"expected at least five notebooks in {NOTEBOOKS}, found {names}"
    # the .py sources are the notebooks; an .ipynb made from one (jupytext pairing) stays out of git
    assert "*.ipynb" in (NOTEBOOKS / ".gitignore").read_text().split()


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kernelspec that runs ipykernel under this interpreter, whatever 'python3' kernels are installed."""
    d = tmp_path_factory.mktemp("kernels")
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "sfltheory (tests)",
        "language": "python",
    }
    (d / KERNEL).mkdir()
    (d / KERNEL / "kernel.json").write_text(json.dumps(spec))
    return d


@pytest.mark.parametrize("source", SOURCES, ids=[p.stem for p in SOURCES])
def test_notebook_executes(source: Path, kernel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jupytext, nbclient, KernelSpecManager, KernelManager = _tooling()
    monkeypatch.setenv("SFLTHEORY_NB_SMALL", "1")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's own default (inline figures)
    # where a notebook may write files; a folder not made yet, as a user's would be: the notebook makes it
    monkeypatch.setenv("SFLTHEORY_NB_OUT", str(tmp_path / "nb-out"))
    before = set(NOTEBOOKS.iterdir())
    nb = jupytext.read(source)
    km = KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dir)]))
    client = nbclient.NotebookClient(
        nb, km=km, timeout=600, allow_errors=False, resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on the first failing cell
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, f"{source.name} has no code cells"
    assert all(c.get("execution_count") for c in code), "a code cell did not run"
    images = sum("image/png" in o.get("data", {}) for c in code for o in c.get("outputs", []))
    assert images >= 1, f"{source.name} shows no figure"
    written = sorted(p.name for p in set(NOTEBOOKS.iterdir()) - before)
    assert not written, f"{source.name} wrote into notebooks/: {written} (write under SFLTHEORY_NB_OUT instead)"
