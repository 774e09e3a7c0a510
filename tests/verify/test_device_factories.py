"""The class of bug found on the first GPU run (issue 23), caught on the CPU: a tensor an operator creates without
saying where lands on the CPU while the objective runs on CUDA (``persample._bn_rule`` read BatchNorm statistics
left on the CPU; ``tree.sqnorm`` started its sum from a CPU zero).

Every ``torch`` factory call in ``verify/`` passes ``device=``, or a ``generator=`` (the draw is where its generator
is: the CPU generators that make runs identical across devices), or is listed below with the reason its tensor
belongs on the host. A new call that does none of these fails here, naming the line.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FACTORIES = {
    "zeros", "ones", "empty", "full", "arange", "randn", "rand", "randint", "tensor", "eye", "linspace",
    "logspace", "as_tensor", "randperm", "normal",
}  # fmt: skip

# (module, enclosing function): why the tensor belongs on the host
HOST = {
    ("verify/data/datasets.py", "*"): "data are made and loaded on the host; the problem moves them",
    ("verify/data/readers.py", "*"): "data are made and loaded on the host; the problem moves them",
    ("verify/constants/measure.py", "resolve_clients"): "client index lists are host-side bookkeeping",
    ("verify/constants/lanczos.py", "*"): "an empty placeholder of a dataclass field",
    ("verify/constants/zo.py", "*"): "the error's draws and summary statistics are host-side numbers",
    ("verify/ops/objective.py", "_set_clients"): "the sample weights are kept on the CPU and moved a chunk at a time",
    ("verify/pipeline/exact.py", "*"): "exact moments are computed in float64 on the host",
    ("verify/problems/model.py", "sample_many"): "indices are drawn on the host and moved in one copy",
    ("verify/problems/quadratic.py", "*"): "the quadratic is built on the host in float64, then moved",
    ("verify/train/launch.py", "output_bytes"): "a 0-d probe of the element size, never used as data",
}


def _offences(root: Path = ROOT) -> list[str]:
    found = []
    for path in sorted((root / "verify").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text())
        # the innermost function around each line
        where: dict[int, str] = {}
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for line in range(fn.lineno, (fn.end_lineno or fn.lineno) + 1):
                    where[line] = fn.name  # walk order is outer first: inner functions overwrite
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            f = node.func
            if not (isinstance(f.value, ast.Name) and f.value.id == "torch" and f.attr in FACTORIES):
                continue
            kws = {k.arg for k in node.keywords}
            if "device" in kws or "generator" in kws:
                continue
            fn_name = where.get(node.lineno, "<module>")
            if (rel, "*") in HOST or (rel, fn_name) in HOST:
                continue
            found.append(f"{rel}:{node.lineno} in {fn_name}: torch.{f.attr}(...) without device=")
    return found


def test_every_factory_call_says_its_device() -> None:
    assert _offences() == []


def test_the_scan_finds_an_offence(tmp_path: Path) -> None:
    # the scan is not vacuous: the pre-fix tree.sqnorm start value is an offence, the fixed one and a seeded draw
    # are not
    (tmp_path / "verify" / "ops").mkdir(parents=True)
    (tmp_path / "verify" / "ops" / "tree.py").write_text(
        "import torch\n"
        "def sqnorm(a):\n    return sum(a, torch.zeros((), dtype=torch.float64))\n"
        "def fixed(a, d):\n    return sum(a, torch.zeros((), dtype=torch.float64, device=d))\n"
        "def draw(g):\n    return torch.randn(3, generator=g)\n"
    )
    assert _offences(tmp_path) == ["verify/ops/tree.py:3 in sqnorm: torch.zeros(...) without device="]
