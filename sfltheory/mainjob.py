"""The main job: evaluate the catalogue on a worked example and write the reports.

``python -m sfltheory.mainjob OUT`` writes, atomically (temporary file + rename, so an interrupted run
never leaves a half-written report):

* ``CATALOGUE.md``, ``ERRATA.md``, ``VOCABULARY.md``: generated from the code;
* ``example.json``: MU-SplitFed Theorem 4.3 on an AlexNet-sized split -- the largest step size each
  edition allows, and the bound at it;
* ``cuts_resnet18.json``, ``plan_resnet18.json``/``.txt``/``.png``: the cuts of ResNet-18 (CIFAR-10) and
  the plan over every cut and tau = 1..1000 under Theorem 4.3, with Corollary 4.4's rule beside it (needs
  torch: skipped with a message when it is not installed).

* ``constants_digits_cnn.json``, ``thm43_digits_cnn.txt``: the constants of the FedAvg CNN on scikit-learn's
  digits (real data), split after ``conv2`` among 4 clients (Dirichlet 0.5 label skew), measured at
  initialisation, and MU-SplitFed Theorem 4.3 evaluated with them at its largest feasible step (needs torch).

It grows with the project (training runs next).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from . import report
from .atomic import write_atomic
from .evaluate import evaluate
from .stepsize import max_step

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


# The worked example of the README: ResNet-18 on CIFAR-10 split among 10 clients.
PLAN_RESULT = "mu_splitfed/thm4.3"
PLAN_PARAMS: dict[str, float] = {
    "L": 1.0,
    "F": 2.3,
    "T": 1000,
    "M": 10,
    "eta_g": 1.0,
    "sigma_c2": 1.0,
    "sigma_s2": 1.0,
    "eps2": 0.5,
    "lam": 1e-10,
}


def plan_example(out_dir: Path) -> dict[str, str] | None:
    """The ResNet-18 plan; None when torch is missing (the theory side runs without it)."""
    try:
        from verify.models import model_cuts
    except ImportError:
        return None
    from .plan import plan
    from .plan.render import cuts_dict, plan_dict, plan_text
    from .plotting import plot_plan

    cuts = model_cuts("resnet18")
    p = plan(PLAN_RESULT, PLAN_PARAMS, cuts=cuts)
    out_dir.mkdir(parents=True, exist_ok=True)
    plot_plan(p, out_dir / "plan_resnet18.png")  # written atomically by plotting.save
    return {
        "cuts_resnet18.json": json.dumps(cuts_dict(cuts), indent=2) + "\n",
        "plan_resnet18.json": json.dumps(plan_dict(p), indent=2, allow_nan=False) + "\n",
        "plan_resnet18.txt": plan_text(p) + "\n",
    }


MEASURE_RESULT = "mu_splitfed/thm4.3"
MEASURE_PARAMS: dict[str, float] = {"T": 1000, "tau": 4, "M": 4, "eta_g": 1.0, "lam": 1e-6, "P": 1}


def measure_example(every: int = 3) -> dict[str, str] | None:
    """Measure the digits CNN on every ``every``-th image and evaluate Theorem 4.3 with it; None without torch."""
    try:
        from torch import nn

        from verify.constants import measure
        from verify.data import digits, partition
        from verify.models import build
    except ImportError:
        return None
    ds = digits()
    X, y = ds.X[::every], ds.y[::every]  # every 3rd: 599 of the 1797 images, a minute on two CPU cores
    clients = partition(y, 4, "dirichlet:0.5", seed=0)
    c = measure(build("cnn", input_size=8), nn.CrossEntropyLoss(), (X, y), "conv2", what=["L", "sigma2", "eps2", "F"],
                clients=clients, tol=1e-2, chunk=600, device="cpu")  # fmt: skip
    c.meta.update({"model": "cnn (FedAvg, 1x8x8)", "data": f"digits[::{every}]", "partition": "dirichlet:0.5"})
    measured, notes = c.params_for(MEASURE_RESULT)
    params = {**measured, **MEASURE_PARAMS}
    sc = max_step(MEASURE_RESULT, params)
    ev = evaluate(MEASURE_RESULT, {**params, sc.step: sc.max_step})
    text = "\n".join(
        [
            f"{MEASURE_RESULT}, constants measured on the FedAvg CNN / digits (1 image in {every}),",
            "cut after conv2, 4 clients (Dirichlet 0.5):",
            *(f"  {n}" for n in notes),
            f"largest feasible {sc.step}: {report.num(sc.max_step)} ({sc.binding})",
            "",
            report.bound_text(ev),
        ]
    )
    return {"constants_digits_cnn.json": c.to_json(), "thm43_digits_cnn.txt": text + "\n"}


def docs() -> dict[str, str]:
    """The generated documentation pages (also committed under docs/; a test keeps them in sync)."""
    from .audit.errata import errata_markdown

    return {
        "CATALOGUE.md": report.list_markdown() + "\n",
        "ERRATA.md": errata_markdown(),  # the audit's findings, then the discrepancies recorded by reading
        "VOCABULARY.md": "# Canonical vocabulary\n\nGenerated by `sfltheory vocabulary --markdown`.\n\n"
        + report.vocabulary_markdown()
        + "\n",
    }


def run(out_dir: Path, measure_every: int = 3, pipeline: bool = True) -> list[Path]:
    files = {**docs(), "example.json": json.dumps(example(), indent=2) + "\n"}
    planned = plan_example(out_dir)
    if planned is None:
        print("torch is not installed: skipping the ResNet-18 plan (pip install -e .[verify])")
    else:
        files.update(planned)
    measured = measure_example(measure_every)
    if measured is not None:
        files.update(measured)
    written = [out_dir / "plan_resnet18.png"] if planned is not None else []
    for name, text in files.items():
        write_atomic(out_dir / name, text)
        written.append(out_dir / name)
    if measured is not None and pipeline:
        # the empirical loop: plan with the measured constants, train, verify (verify.pipeline.mainjob)
        from verify.pipeline.mainjob import run_pipeline

        from .constants import Constants

        c = Constants.from_dict(json.loads(measured["constants_digits_cnn.json"]))
        written += run_pipeline(out_dir, c)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--docs"]:  # regenerate the committed pages: python -m sfltheory.mainjob --docs docs
        for name, text in docs().items():
            write_atomic(Path(args[1] if len(args) > 1 else "docs") / name, text)
        return 0
    out = Path(args[0] if args else "out")
    for p in run(out):
        print(f"wrote {p}")
    ex = json.loads((out / "example.json").read_text())
    for rid, e in ex["editions"].items():
        print(f"{rid}: max eta {e['max_eta']:.3g} ({e['binding']}); bound at it {e['bound_at_max_eta']:.4g}")
    for extra in ("plan_resnet18.txt", "thm43_digits_cnn.txt", "pipeline.txt"):
        if (out / extra).exists():
            print()
            print((out / extra).read_text(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
