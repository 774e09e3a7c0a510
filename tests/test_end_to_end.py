"""A small CNN on real data (scikit-learn's digits), split at a cut, measured, and MU-SplitFed's Theorem 4.3
evaluated with the measured constants."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from sfltheory.evaluate import evaluate
from verify.constants.measure import measure
from verify.data import digits, partition
from verify.models import build


@pytest.fixture(scope="module")
def measured():  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    ds = digits()
    keep = torch.arange(0, len(ds), 9)  # every 9th image: 200 samples keep the test quick
    X, y = ds.X[keep], ds.y[keep]
    model = build("cnn", input_size=8)  # FedAvg CNN for 1x8x8: 188,810 parameters
    clients = partition(y, 4, "dirichlet:0.5", seed=0)
    c = measure(model, nn.CrossEntropyLoss(), (X, y), "conv2", what=["L", "sigma2", "eps2", "F"],
                clients=clients, tol=1e-2, chunk=512, device="cpu")  # fmt: skip
    return c


def test_measured_constants_are_consistent(measured) -> None:  # type: ignore[no-untyped-def]
    c = measured
    # conv1 832 + conv2 51,264 on the client; fc1 131,584 + fc2 5,130 on the server
    assert (c.d_c.value, c.d_s.value, c.d.value) == (52_096, 136_714, 188_810)
    # an untrained 10-class network predicts near-uniformly: f(x0) close to ln 10 = 2.3026
    assert c.F.value == pytest.approx(2.3026, abs=0.1)
    # the max over samples bounds the mean; the parts' pooled variances add up to the whole model's
    assert c.variants["sigma_c2[max]"].value >= c.sigma_c2.value > 0
    pooled = c.variants["sigma_c2[pooled]"].value + c.variants["sigma_s2[pooled]"].value
    assert c.variants["sigma2[pooled]"].value == pytest.approx(pooled, rel=1e-5)
    # a block's top eigenvalue never exceeds the whole Hessian's (Cauchy interlacing), up to Lanczos error
    assert c.variants["L[client]"].value <= c.L.value * (1 + 1e-3)
    assert c.variants["L[server]"].value <= c.L.value * (1 + 1e-3)
    assert c.eps2.value >= c.variants["eps2[mean]"].value > 0


def test_theorem_4_3_with_measured_constants(measured) -> None:  # type: ignore[no-untyped-def]
    c = measured
    T, tau, M, eta_g, lam, P = 1000, 4, 4, 1.0, 1e-6, 1
    L, F, dc, ds = c.L.value, c.F.value, c.d_c.value, c.d_s.value
    sc, ss, e2 = c.variants["sigma_c2[max]"].value, c.variants["sigma_s2[max]"].value, c.eps2.value
    # the statement's step conditions (Theorem 4.3): eta <= 1/(120 L tau (1 + 2 d_s/tau)), eta <= M/(12 tau L d_c)
    eta = min(1 / (120 * L * tau * (1 + 2 * ds / tau)), M / (12 * tau * L * dc))
    ev = c.evaluate("mu_splitfed/thm4.3", T=T, tau=tau, M=M, eta=eta, eta_g=eta_g, lam=lam, P=P)
    # eq. (10), written out by hand from seed 000 with the measured values
    by_hand = (
        4 * F / (T * eta_g * eta * tau)
        + 16 * eta * (2 * eta * tau * L + eta_g / M) * L * ds * ss
        + 4 * eta_g * eta * tau * L * dc * sc / M
        + 24 * eta * (4 * eta * tau * L + eta_g / M) * L * (tau + 2 * ds) * e2
        + 12 * eta_g * eta * tau * L * dc * e2 / M
        + (1 / tau + 8 * eta**2 * tau * L**2 + 2 * eta_g * eta / M) * tau * L**2 * lam**2 * ds**3
        + L**2 * lam**2 * dc**3
    )
    assert float(ev.value) == pytest.approx(by_hand, rel=1e-12)
    statement = [h for h in ev.hypotheses if h.source == "statement"]
    assert statement and all(bool(h.holds) for h in statement)
    # the same through the plain evaluator with the picks made explicit
    params, _ = c.params_for("mu_splitfed/thm4.3")
    assert params["sigma_c2"] == sc and params["sigma_s2"] == ss and params["eps2"] == e2
    ev2 = evaluate("mu_splitfed/thm4.3", {**params, "T": T, "tau": tau, "M": M, "eta": eta, "eta_g": eta_g,
                                          "lam": lam, "P": P})  # fmt: skip
    assert float(ev2.value) == float(ev.value)
