"""Regenerate the cut tables the paper figures read, so that ``sfltheory figs`` needs no torch.

    python paper_figs/data/make_cuts.py        # needs torch: pip install -e .[verify]

Each model goes through ``verify.models.model_cuts`` (one forward pass on the meta device) and is written as
the block list ``sfltheory.plan.cuts.load_blocks`` reads (name, params, activation values per sample, forward
FLOPs per sample), atomically. ``tests/sfltheory/test_figs.py`` checks that the files still match the models.
"""

from __future__ import annotations

import json
from pathlib import Path

from sfltheory.atomic import write_atomic

HERE = Path(__file__).resolve().parent
# model name -> where the papers use it
MODELS = {
    "alexnet": "MU-SplitFed (seed 000, Sec. 5): AlexNet",
    "resnet18": "cut_layer (seed 003, Table 1): ResNet-18 on CIFAR-10 and HAM10000",
    "resnet50": "cut_layer (seed 003, Table 1): ResNet-50 on CIFAR-100 and Tiny ImageNet",
}


def table(name: str) -> dict[str, object]:
    from verify.models import model_cuts

    t = model_cuts(name)
    d = t.to_dict()
    return {
        "model": t.model,
        "source": f"verify.models.model_cuts({name!r}); {MODELS[name]}",
        "input_shape": d["input_shape"],
        "d": t.d,
        "blocks": d["blocks"],
    }


def dumps(t: dict[str, object]) -> str:
    """JSON with one block per line (short diffs when a model changes)."""
    head = {k: v for k, v in t.items() if k != "blocks"}
    lines = [json.dumps(head)[:-1] + ', "blocks": [']
    blocks = t["blocks"]
    assert isinstance(blocks, list)
    lines += [f"  {json.dumps(b)}," for b in blocks]
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join([*lines, "]}"]) + "\n"


def main() -> None:
    for name in MODELS:
        path = HERE / f"{name}.json"
        write_atomic(path, dumps(table(name)))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
