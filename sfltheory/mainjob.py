"""The main job: evaluate the catalogue on a worked example and write the reports.

``python -m sfltheory.mainjob OUT`` writes, atomically (temporary file + rename, so an interrupted run
never leaves a half-written report):

* ``CATALOGUE.md``, ``ERRATA.md``, ``VOCABULARY.md``: generated from the code;
* ``example.json``: MU-SplitFed Theorem 4.3 on an AlexNet-sized split -- the largest step size each
  edition allows, and the bound at it.

It grows with the project (cuts of a real model, measured constants, training runs: issues 4 and 5).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import report
from .evaluate import evaluate, max_step
from .registry import results

# An AlexNet-like split (d about 5.7e7 parameters, first conv block on the client), 10 clients.
EXAMPLE: dict[str, float] = {
    "L": 10.0,
    "F": 2.3,
    "T": 500,
    "tau": 2,
    "d": 57_000_000,
    "d_c": 23_296,
    "M": 10,
    "eta_g": 1.0,
    "sigma_c2": 1.0,
    "sigma_s2": 1.0,
    "eps2": 0.5,
    "lam": 1e-7,
}


def write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def example() -> dict[str, Any]:
    out: dict[str, Any] = {"parameters": EXAMPLE, "editions": {}}
    for rid in ("mu_splitfed/thm4.3", "mu_splitfed/thm4.3@appendix", "mu_splitfed/thm4.3@proof"):
        sc = max_step(rid, EXAMPLE)
        ev = evaluate(rid, {**EXAMPLE, "eta": sc.max_step})
        out["editions"][rid] = {
            "max_eta": sc.max_step,
            "binding": sc.binding,
            "max_eta_with_proof_conditions": sc.max_step_all,
            "binding_with_proof_conditions": sc.binding_all,
            "bound_at_max_eta": ev.value,
            "terms": ev.terms,
            "verdict": ev.verdict(),
        }
    return report.jsonable(out)


def run(out_dir: Path) -> list[Path]:
    rs = results()
    files = {
        "CATALOGUE.md": report.list_markdown() + "\n",
        "ERRATA.md": report.errata_markdown(rs) + "\n",
        "VOCABULARY.md": "# Canonical vocabulary\n\n" + report.vocabulary_markdown() + "\n",
        "example.json": json.dumps(example(), indent=2) + "\n",
    }
    written = []
    for name, text in files.items():
        write_atomic(out_dir / name, text)
        written.append(out_dir / name)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "out")
    for p in run(out):
        print(f"wrote {p}")
    ex = json.loads((out / "example.json").read_text())
    for rid, e in ex["editions"].items():
        print(f"{rid}: max eta {e['max_eta']:.3g} ({e['binding']}); bound at it {e['bound_at_max_eta']:.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
