"""measure() against problems whose constants are known exactly (hand calculations shown in comments)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch import nn

from sfltheory.constants import Constants, Estimate
from sfltheory.errors import ParameterError
from verify.constants.heterogeneity import Dissimilarity
from verify.constants.measure import measure
from verify.split import Split


class Quadratic(nn.Module):
    """l_i(x) = 1/2 (x - s_i)^T D (x - s_i) with x = (xc, xs): the model outputs x - s_i, the loss weighs by D."""

    def __init__(self) -> None:
        super().__init__()
        self.xc = nn.Parameter(torch.zeros(1, dtype=torch.float64))
        self.xs = nn.Parameter(torch.zeros(1, dtype=torch.float64))

    def forward(self, s: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.xc, self.xs]) - s


D = torch.tensor([2.0, 1.0], dtype=torch.float64)


def quad_loss(out: torch.Tensor, _: torch.Tensor) -> torch.Tensor:
    return 0.5 * (out.pow(2) * D).sum(1)


# Client 1 holds s = (1,0), (3,0) (mean (2,0)); client 2 holds (-1,2), (-1,-2) (mean (-1,0)); x = (0,0).
S = torch.tensor([[1.0, 0.0], [3.0, 0.0], [-1.0, 2.0], [-1.0, -2.0]], dtype=torch.float64)
CLIENTS = [torch.tensor([0, 1]), torch.tensor([2, 3])]
SPLIT = {"client": ["xc"], "server": ["xs"]}


@pytest.fixture(scope="module")
def quad() -> Constants:
    return measure(Quadratic(), quad_loss, (S, torch.zeros(4)), SPLIT, clients=CLIENTS, batch=1, device="cpu")


def test_quadratic_heterogeneity(quad: Constants) -> None:
    # grad f_1 = D(x - (2,0)) = (-4,0); grad f_2 = D(x - (-1,0)) = (2,0); grad f = (-1,0)
    # eps2 = max(||(-3,0)||^2, ||(3,0)||^2) = 9, all of it on the client coordinate
    assert quad.eps2 is not None and quad.eps2.value == pytest.approx(9.0, rel=1e-12)
    assert quad.variants["eps2[mean]"].value == pytest.approx(9.0, rel=1e-12)
    assert quad.variants["eps2[client]"].value == pytest.approx(9.0, rel=1e-12)
    assert quad.variants["eps2[server]"].value == pytest.approx(0.0, abs=1e-12)
    # ||grad f||^2 = 1; (1/M) sum ||grad f_m||^2 = (16 + 4)/2 = 10: G^2(B^2=1) = 9, G^2 = 0 at B^2 = 10
    assert quad.gradnorm2_f is not None and quad.gradnorm2_f.value == pytest.approx(1.0, rel=1e-12)
    assert quad.B2 is not None and quad.B2.value == 1.0
    assert quad.G2 is not None and quad.G2.value == pytest.approx(9.0, rel=1e-12)
    assert quad.variants["B2[zero]"].value == pytest.approx(10.0, rel=1e-12)


def test_quadratic_variance_and_gradient_bounds(quad: Constants) -> None:
    # g_i = D(x - s_i): client 1: (-2,0), (-6,0), centred at (-4,0): (2,0), (-2,0) -> 4, 4
    #                   client 2: (2,-2), (2,2),  centred at (2,0):  (0,-2), (0,2) -> 4, 4
    assert quad.sigma2 is not None and quad.sigma2.value == pytest.approx(4.0, rel=1e-12)
    assert quad.variants["sigma2[max]"].value == pytest.approx(4.0, rel=1e-12)
    # client part: client 1 mean 4, client 2 mean 0 -> max 4; pooled (4+4+0+0)/4 = 2
    assert quad.sigma_c2 is not None and quad.sigma_c2.value == pytest.approx(4.0, rel=1e-12)
    assert quad.variants["sigma_c2[pooled]"].value == pytest.approx(2.0, rel=1e-12)
    assert quad.sigma_s2 is not None and quad.sigma_s2.value == pytest.approx(4.0, rel=1e-12)
    # batch 1 of 2 without replacement: sigma^2/1 * (2-1)/(2-1) = 4
    assert quad.variants["sigma2[batch]"].value == pytest.approx(4.0, rel=1e-12)
    # ||g_i,c||^2 = 4, 36, 4, 4 -> G_c2 = 36; ||g_i,s||^2 = 0, 0, 4, 4 -> G_s2 = 4
    assert quad.G_c2 is not None and quad.G_c2.value == pytest.approx(36.0, rel=1e-12)
    assert quad.G_s2 is not None and quad.G_s2.value == pytest.approx(4.0, rel=1e-12)
    # E||g_i||^2 = (4 + 36 + 8 + 8)/4 = 14
    assert quad.variants["G2[gradient]"].value == pytest.approx(14.0, rel=1e-12)


def test_quadratic_curvature_and_gap(quad: Constants) -> None:
    # H = D = diag(2, 1): L = 2, lambda_min = 1, blocks 2 and 1, kappa = tr/||H|| = 3/2, per part 1
    assert quad.L is not None and quad.L.value == pytest.approx(2.0, rel=1e-9)
    assert quad.variants["L[min]"].value == pytest.approx(1.0, rel=1e-9)
    assert quad.variants["L[client]"].value == pytest.approx(2.0, rel=1e-9)
    assert quad.variants["L[server]"].value == pytest.approx(1.0, rel=1e-9)
    assert quad.kappa is not None and quad.kappa.value == pytest.approx(1.5, rel=0.05)
    assert quad.variants["kappa[client]"].value == pytest.approx(1.0, rel=0.05)
    # f_1 = (1/2)(2*1 + 2*9)/2 = 5, f_2 = (1/2)(2 + 4) = 3 -> f = 4 = F with f* = 0
    assert quad.F is not None and quad.F.value == pytest.approx(4.0, rel=1e-12)
    assert (quad.d, quad.d_c, quad.d_s) == (Estimate(2.0, method=quad.d.method if quad.d else ""),
                                            Estimate(1.0, method=quad.d_c.method if quad.d_c else ""),
                                            Estimate(1.0, method=quad.d_s.method if quad.d_s else ""))  # fmt: skip


def linreg(n: int = 120, dim: int = 5, seed: int = 0) -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, dim, generator=g, dtype=torch.float64) * torch.linspace(0.5, 2.0, dim, dtype=torch.float64)
    y = X @ torch.randn(dim, generator=g, dtype=torch.float64) + 0.3 * torch.randn(n, generator=g, dtype=torch.float64)
    model = nn.Linear(dim, 1, bias=False).double()
    with torch.no_grad():
        model.weight.copy_(torch.randn(1, dim, generator=g, dtype=torch.float64))
    return model, X, y


def sq_loss(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return 0.5 * (out.squeeze(-1) - y).pow(2)


def test_linear_regression_against_direct_computation() -> None:
    model, X, y = linreg()
    clients = [torch.arange(0, 40), torch.arange(40, 80), torch.arange(80, 120)]
    c = measure(model, sq_loss, (X, y), clients=clients, tol=1e-8, probes=150, device="cpu")
    Xn, yn, w = X.numpy(), y.numpy(), model.weight.detach().numpy().ravel()
    H = Xn.T @ Xn / len(Xn)  # equal client sizes: (1/M) sum f_m is the mean over all samples
    ev = np.linalg.eigvalsh(H)
    assert c.L is not None and c.L.value == pytest.approx(ev[-1], rel=1e-6)
    assert c.variants["L[min]"].value == pytest.approx(ev[0], rel=1e-6)
    assert c.kappa is not None and c.kappa.value == pytest.approx(ev.sum() / ev[-1], rel=0.05)
    G = (Xn @ w - yn)[:, None] * Xn  # per-sample gradients r_i x_i, computed directly
    gm = [G[i.numpy()].mean(0) for i in clients]
    gbar = np.mean(gm, axis=0)
    within = [((G[i.numpy()] - gm[m]) ** 2).sum(1) for m, i in enumerate(clients)]
    assert c.sigma2 is not None and c.sigma2.value == pytest.approx(max(v.mean() for v in within), rel=1e-10)
    assert c.variants["sigma2[max]"].value == pytest.approx(max(v.max() for v in within), rel=1e-10)
    assert c.eps2 is not None and c.eps2.value == pytest.approx(max(((g - gbar) ** 2).sum() for g in gm), rel=1e-10)
    assert c.gradnorm2_f is not None and c.gradnorm2_f.value == pytest.approx((gbar**2).sum(), rel=1e-10)
    assert c.F is not None and c.F.value == pytest.approx(0.5 * np.mean((Xn @ w - yn) ** 2), rel=1e-12)


def test_logistic_L_against_dense_hessian() -> None:
    g = torch.Generator().manual_seed(1)
    X = torch.randn(80, 6, generator=g, dtype=torch.float64)
    y = (X[:, 0] + 0.5 * torch.randn(80, generator=g, dtype=torch.float64) > 0).long()
    model = nn.Sequential(nn.Linear(6, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    c = measure(model, nn.CrossEntropyLoss(), (X, y), {"client": ["0"], "server": ["2"]}, what=["L"], tol=1e-8,
                device="cpu")  # fmt: skip
    params = {k: v.detach() for k, v in model.named_parameters()}
    names = list(params)
    shapes = [params[k].shape for k in names]
    flat0 = torch.cat([params[k].reshape(-1) for k in names])

    def f(flat: torch.Tensor) -> torch.Tensor:
        parts, s = {}, 0
        for k, sh in zip(names, shapes, strict=True):
            parts[k] = flat[s : s + sh.numel()].view(sh)
            s += sh.numel()
        out = torch.func.functional_call(model, parts, (X,))
        return nn.functional.cross_entropy(out, y)

    H = torch.func.hessian(f)(flat0)
    ev = torch.linalg.eigvalsh(H)
    assert c.L is not None and c.L.value == pytest.approx(float(ev[-1]), rel=1e-3)
    nc = 6 * 4 + 4
    evc = torch.linalg.eigvalsh(H[:nc, :nc])
    assert c.variants["L[client]"].value == pytest.approx(float(evc[-1]), rel=1e-3)


def test_json_round_trip_and_theorem_picks(quad: Constants, tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "c.json"
    quad.to_json(p)
    back = Constants.load(p)
    assert back.to_dict() == json.loads(p.read_text())
    assert back.sigma_c2 == quad.sigma_c2 and back.variants == quad.variants
    # MU-SplitFed Thm 4.3 assumes the variance bound for every sample: the max variant
    params, notes = back.params_for("mu_splitfed/thm4.3")
    assert params["sigma_c2"] == quad.variants["sigma_c2[max]"].value
    assert params["eps2"] == 9.0 and params["L"] == pytest.approx(2.0) and params["F"] == 4.0
    assert params["d_c"] == 1.0 and params["d_s"] == 1.0
    assert any("every sample" in n for n in notes)
    # HERON-SFL Thm 1 bounds gradients per part: G_c2 = 36 (max over samples)
    hp, _ = back.params_for("heron_sfl/lemma3")
    assert hp.get("G_c2") == 36.0


def test_dissimilarity_frontier() -> None:
    # lines 4 - 0.5 b and 10 - 4 b: at b = 1 the second is active (6); they cross at 3.5 b = 6, b = 12/7,
    # G^2 = 4 - 6/7 = 22/7; the first reaches 0 at b = 8 (= max(4/0.5, 10/4))
    fit = Dissimilarity((4.0, 10.0), (0.5, 4.0))
    assert fit.G2(1.0) == 6.0 and fit.B2_zero == 8.0
    pts = fit.frontier()
    assert len(pts) == 3
    assert pts[1] == pytest.approx((12 / 7, 22 / 7)) and pts[2] == pytest.approx((8.0, 0.0))


def test_errors() -> None:
    model, X, y = linreg()
    with pytest.raises(ParameterError) as e:
        measure(model, sq_loss, (X, y), what=["eps2"], device="cpu")
    assert e.value.name == "clients"
    with pytest.raises(ParameterError) as e:
        measure(model, sq_loss, (X, y), what=["eps2"], clients=[torch.arange(10), torch.tensor([], dtype=torch.long)])
    assert e.value.name == "clients"
    with pytest.raises(ParameterError) as e:
        measure(model, sq_loss, (X, y), what=["lipschitz"])
    assert e.value.name == "what"
    with pytest.raises(ParameterError) as e:
        measure(model, sq_loss, (X[:, :3], y), what=["F"], device="cpu")
    assert e.value.name == "data" and "shape" in e.value.rule
    with pytest.raises(ParameterError) as e:
        measure(model, sq_loss, (X, y), what=["zo"], device="cpu")
    assert e.value.name == "lam"
    two = nn.Sequential(nn.Linear(5, 3), nn.Linear(3, 1)).double()
    with pytest.raises(ParameterError) as e:
        measure(two, sq_loss, (X, y), {"client": ["0"]}, what=["F"], device="cpu")
    assert e.value.name == "split" and "no part" in e.value.rule
    with pytest.raises(ParameterError) as e:
        Split({"client": ("0.weight", "0.bias"), "server": ("0.bias", "1.weight", "1.bias")}).check(two)
    assert "both" in e.value.rule
    with pytest.raises(ParameterError) as e:
        measure(model, nn.MSELoss(reduction="sum"), (X, y[:5]), what=["F"], device="cpu")
    assert e.value.name == "data"


def bn_cnn_data() -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    """A small CNN with BatchNorm2d/1d (running statistics set away from 0 and 1), float64, 3 classes."""
    torch.manual_seed(5)
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.BatchNorm1d(12),
                          nn.Linear(12, 3)).double()  # fmt: skip
    for m in (model[1], model[4]):
        assert isinstance(m, nn.BatchNorm1d | nn.BatchNorm2d)
        nn.init.uniform_(m.running_mean, -1, 1)  # type: ignore[arg-type]
        nn.init.uniform_(m.running_var, 0.5, 2)  # type: ignore[arg-type]
    return model, torch.randn(24, 2, 4, 4, dtype=torch.float64), torch.randint(0, 3, (24,))


ALL_GROUPS = ["L", "L_min", "sigma2", "eps2", "kappa", "F", "gradnorm2_f", "zo", "L_clients"]


def test_measure_reads_only_the_objectives_tensors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23: ``measure --device cuda`` failed where an estimator read the module's own tensors (left on the
    CPU) instead of the objective's device copies. Here every objective ``measure`` builds runs a copy of the
    module moved to the meta device, where any such read raises as cuda vs cpu did; every group, every part,
    must give what the plain measurement gives (the same arithmetic: equal to rounding)."""
    import copy
    import importlib

    from verify.ops.objective import Objective

    measure_module = importlib.import_module(
        "verify.constants.measure"
    )  # the module (the package exports the function)

    model, X, y = bn_cnn_data()
    kw = {"what": ALL_GROUPS, "clients": 2, "lam": 1e-3, "zo_reps": 4, "device": "cpu", "tol": 1e-6, "batch": 4}
    split = {"client": ["0", "1"], "server": ["4", "5"]}
    plain = measure(model, nn.CrossEntropyLoss(), (X, y), split, **kw)  # type: ignore[arg-type]

    class OnMeta(Objective):
        def __init__(self, model: nn.Module, *a: object, **k: object) -> None:
            super().__init__(model, *a, **k)  # type: ignore[arg-type]
            self.model = copy.deepcopy(model).to("meta")

    monkeypatch.setattr(measure_module, "Objective", OnMeta)
    meta = measure(model, nn.CrossEntropyLoss(), (X, y), split, **kw)  # type: ignore[arg-type]
    keys = dict(plain.items())
    assert len(keys) > 30 and set(keys) == set(dict(meta.items()))
    assert any(k.startswith("kappa[") for k in keys) and "L[clients]" in keys and "zo_mse[client]" in keys
    for k, est in meta.items():
        assert est.value == pytest.approx(keys[k].value, rel=1e-7, abs=1e-10), k
    assert "hooks engine" in keys["sigma2"].method  # the batch-norm rule ran
