"""HERON-SFL Fig. 7 (seed 001, App. B): the quotes verbatim on their seed lines (the file read here), the verdict
rule on hand-made shares (expected verdicts worked out by hand from its thresholds), the summary of a hand-made
density, the models' parameter counts by hand, one SGD step against a hand-written update, and the tiny scale end to
end in this process (an empty plan: the judge measures)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from sfltheory.seedtables.core import seed_lines
from verify.constants.density import Density
from verify.reproduce import registry
from verify.reproduce.experiment import VERDICTS, Quote
from verify.reproduce.heron_sfl_fig7 import EXPERIMENT, SCALES, concentration_finding, plan
from verify.reproduce.hessian_density import Setting, digits_mlp_deep, digits_mlp_tiny, sgd, spectrum_summary
from verify.reproduce.runner import Request, reproduce

ID = "heron_sfl/fig7"


@pytest.mark.parametrize("quote", EXPERIMENT.quotes, ids=[f"{q.line}:{q.what}" for q in EXPERIMENT.quotes])
def test_quote_is_on_its_seed_line(quote: Quote) -> None:
    lines = seed_lines(EXPERIMENT.seed)
    if lines is None:
        pytest.skip("seed 001 not at hand")
    assert quote.text in lines[quote.line - 1], f"{quote.text!r} not on line {quote.line}"


def test_fig7_caption_and_references_lines() -> None:
    # read here, not through the module: line 606 is Fig. 7's caption, 621 and 622 the references [12] and [13]
    lines = seed_lines(EXPERIMENT.seed)
    if lines is None:
        pytest.skip("seed 001 not at hand")
    assert lines[605].startswith("Figure 7: Hessian eigenvalue distribution")
    assert "[12] B. Ghorbani" in lines[620] and "[13] G. H. Golub" in lines[621]
    assert EXPERIMENT.lines == (601, 606)


@pytest.mark.parametrize(
    ("share", "se", "acc", "verdict"),
    [
        # lo = 0.95 - 2 * 0.01 = 0.93 >= 0.8: heavily concentrated
        (0.95, 0.01, 98.0, "reproduces"),
        # lo = 0.82 - 2 * 0.02 = 0.78 < 0.8 and hi = 0.86 >= 0.5: the noise leaves it open
        (0.82, 0.02, 98.0, "inconclusive"),
        # exactly on the bar: lo = 0.8 - 0 = 0.8 >= 0.8
        (0.80, 0.0, 98.0, "reproduces"),
        # hi = 0.40 + 2 * 0.03 = 0.46 < 0.5: not concentrated
        (0.40, 0.03, 98.0, "does not reproduce"),
        # hi = 0.46 + 2 * 0.03 = 0.52 >= 0.5, lo = 0.40 < 0.8: inconclusive
        (0.46, 0.03, 98.0, "inconclusive"),
        # share 0.6 with no noise: between 0.5 and 0.8
        (0.60, 0.0, 98.0, "inconclusive"),
        # a share that would reproduce, but the network reached only 31% train accuracy (< 80%): not trained
        (0.95, 0.01, 31.0, "inconclusive"),
        # a non-finite share
        (math.nan, 0.01, 98.0, "inconclusive"),
    ],
)
def test_verdict_rule_on_hand_made_numbers(share: float, se: float, acc: float, verdict: str) -> None:
    f = concentration_finding(share, se, train_acc=acc, kappa_over_d=1e-3)
    assert f.verdict == verdict, f.sentence


def test_spectrum_summary_on_a_hand_made_density() -> None:
    # two probes of 3 nodes. max |theta| = 4 (probe 1), band 1% = 0.04: probe 0 has 0.7 on 0.0 and 0.01 -> 0.6 + 0.1
    # = 0.7; probe 1 has 0.9 on 0.03 -> 0.9. Mean 0.8; s.e. = std([0.7, 0.9], ddof=1) / sqrt 2 = 0.1414 / 1.414 = 0.1.
    # first moments: 0.6*0 + 0.1*0.01 + 0.3*2 = 0.601 and 0.9*0.03 + 0.1*(-4) = -0.373 (padding at weight 0)
    nodes = np.array([[0.0, 0.01, 2.0], [0.03, -4.0, -4.0]])
    weights = np.array([[0.6, 0.1, 0.3], [0.9, 0.1, 0.0]])
    grid = np.linspace(-5, 3, 5)
    d = Density(nodes=nodes, weights=weights, grid=grid, density=np.ones(5), sigma2=1e-5, dim=100, matvecs=5,
                method="hand")  # fmt: skip
    s = spectrum_summary(d, kappa=10.0, kappa_se=1.0, fraction=0.01)
    assert s["share_per_probe"] == pytest.approx([0.7, 0.9])
    assert s["share_near_zero"] == pytest.approx(0.8) and s["share_se"] == pytest.approx(0.1)
    assert s["largest_modulus"] == 4.0 and s["lambda_min"] == -4.0 and s["lambda_max"] == 2.0
    assert s["trace_over_d_slq"] == pytest.approx((0.601 - 0.373) / 2)
    assert s["kappa_over_d"] == pytest.approx(0.1)


def test_models_parameter_counts_by_hand() -> None:
    # 64-64-64-10: 64*64+64 = 4,160 twice, 64*10+10 = 650 -> 8,970 (< 1,437 * 9 = 12,933); 64-8-10: 520 + 90 = 610
    assert sum(p.numel() for p in digits_mlp_deep().parameters()) == 8_970
    assert sum(p.numel() for p in digits_mlp_tiny().parameters()) == 610


def test_one_sgd_step_is_the_plain_update() -> None:
    # one step on a batch of the whole (4-sample) data: x - lr * grad of the mean cross-entropy, the gradient
    # taken here by torch.func.grad (an independent path from sgd's autograd.grad)
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    X, y = torch.randn(4, 3), torch.tensor([0, 1, 1, 0])
    before = {k: v.detach().clone() for k, v in model.named_parameters()}

    def loss(p: dict[str, torch.Tensor]) -> torch.Tensor:
        return torch.nn.functional.cross_entropy(torch.func.functional_call(model, p, (X,)), y)

    g = torch.func.grad(loss)(before)
    s = Setting(data="digits", model="x:y", train=4, steps=1, batch=4, lr=0.5, probes=1, lanczos=1, kappa_probes=1,
                seed=0)  # fmt: skip
    sgd(model, X, y, s, torch.Generator().manual_seed(0))
    for k, p in model.named_parameters():
        torch.testing.assert_close(p.detach(), before[k] - 0.5 * g[k])


def test_plan_is_empty_and_the_grid_is_the_papers_two_points() -> None:
    # no trainer run; Fig. 7 and Ghorbani et al. compare the density at initialisation and after training
    assert plan(SCALES["small"], "cpu") == ()
    assert all(s.grid["point"] == ("init", "trained") for s in SCALES.values())
    assert SCALES["paper"].model == "resnet18" and SCALES["paper"].data.startswith("cifar10:")


def test_tiny_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.EXPERIMENTS, ID, EXPERIMENT)
    [o] = reproduce(Request(ids=(ID,), scale="tiny", workers=1, out=str(tmp_path)))
    assert (o.runs_before, o.runs_now, o.failed) == (0, 0, 0) and o.rows == ()
    assert o.finding.verdict in VERDICTS
    folder = tmp_path / "heron_sfl__fig7"
    assert (folder / "tiny.png").stat().st_size > 10_000
    numbers = json.loads((folder / "tiny.json").read_text())["numbers"]
    for point in ("init", "trained"):
        d = numbers[point]
        assert d["dim"] == 610 and d["matvecs"] <= 2 * 8  # 2 probes x 8 Lanczos steps at most
        assert 0.0 <= d["share_near_zero"] <= 1.0
        # each probe's weights sum to 1 (Gauss quadrature of a unit probe)
        assert all(sum(w) == pytest.approx(1.0, abs=1e-6) for w in d["weights"])
    assert 0.0 <= numbers["train_acc"] <= 100.0
