"""Every constant ``measure`` returns, on the shared cases of :mod:`tests.verify.constants.constants_cases`, against an
independent reference (issue 11, "Done when").

The reference is computed here, in float64, without :mod:`verify.constants` or :mod:`verify.ops`:

* f = (1/M) sum_m f_m, f_m the mean of client m's per-sample losses (the loss written out by hand);
* the Hessian H_m of each f_m over the flattened trainable parameters (double backward, vectorised over the
  unit vectors, and checked against central differences of the gradient: see :func:`_hessian` for why not
  ``torch.func.hessian``), H = mean H_m, and ``torch.linalg.eigvalsh`` of H and of its diagonal blocks H_pp
  (``L``, ``L[min]``, ``L[client]`` ...), ``kappa = tr H_pp / max(|lambda_max|, |lambda_min|)``, and
  ``L[clients] = max_m lambda_max(H_m)``;
* per-sample gradients by a plain loop of ``torch.autograd.grad`` over the samples, one at a time, on the module
  itself; from them every variance, gradient-norm and heterogeneity constant by its definition in the
  docstring of :mod:`verify.constants.measure` (sigma^2 centred at each client's own gradient, the mean within
  a client and the worst client; ``[max]`` over samples, ``[pooled]`` the mean over all samples, ``[batch]``
  with the finite-population correction; ``eps2`` the worst client, ``G2 = (1/M) sum ||grad f_m||^2 -
  ||grad f||^2`` at ``B2 = 1``, ``B2[zero]`` their ratio).

``measure`` runs once per case and group (``F``/``gradnorm2_f``, ``sigma2``, ``eps2``, ``L``/``L_clients``,
``L_min``/``kappa``), so that a crash in one estimator hides no other. A measured value passes when
``|measured - reference| <= 4 se + half its interval + rtol * scale``: ``se`` (kappa: Hutch++) and the
interval (an eigenvalue's Lanczos residual) are the estimate's own stated uncertainty, ``scale`` the magnitude
of the constant's family (the largest per-sample squared gradient norm for sigma^2, G^2, eps^2 and
||grad f||^2; ||H||_2 for eigenvalues; sum |lambda_i| / ||H||_2 for kappa; F itself), and ``rtol`` 1e-9 in
float64 (F: 1e-12), 1e-4 in float32, 3e-2 in float16. The standard error of sigma^2 over the data is not an
allowance: sigma^2 is computed exactly over the data, so it must match the exact reference.

A pair that fails because of a known, not yet fixed bug is a strict xfail (``KNOWN``): when the fix lands it
XPASSes, which fails the run until its entry is removed. What the cases caught before issue 11's fixes is
listed above ``KNOWN``.
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from torch import Tensor, nn  # noqa: E402
from torch.func import functional_call  # noqa: E402

from sfltheory.constants import Constants  # noqa: E402
from sfltheory.errors import ParameterError  # noqa: E402
from tests.verify.constants.constants_cases import (  # noqa: E402
    BY_ID,
    CASES,
    Case,
    DictOut,
    TupleOut,
    bn_batch_stats,
    ce,
    features,
    labels,
    partition,
    seeded,
)
from verify.constants import measure  # noqa: E402

PROBES = 30  # Hutch++ probes for kappa (10 sketch + 10 + 10 deflated); its se is part of the tolerance
RTOL = {
    torch.float64: {"grad": 1e-9, "F": 1e-12, "eig": 1e-9, "kappa": 1e-9},
    torch.float32: {"grad": 1e-4, "F": 1e-6, "eig": 1e-4, "kappa": 1e-4},
    torch.float16: {"grad": 3e-2, "F": 3e-3, "eig": 3e-2, "kappa": 3e-2},
}
# what= per measure call: one call per group, so that a crash in one estimator hides no other
GROUP_WHAT = {
    "value": ("F", "gradnorm2_f"),
    "sigma2": ("sigma2",),
    "eps2": ("eps2",),
    "L": ("L", "L_clients"),
    "curv": ("L_min", "kappa"),
}
_PART_SIGMA = {"all": "sigma2", "client": "sigma_c2", "server": "sigma_s2"}
_PART_G = {"client": "G_c2", "server": "G_s2"}


def _var(key: str, variant: str) -> str:
    return f"{key[:-1]},{variant}]" if key.endswith("]") else f"{key}[{variant}]"


# ---- the reference -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """Every constant of one case, by key, with the family that sets its tolerance."""

    values: dict[str, float]
    family: dict[str, str]  # key -> "grad", "F", "eig", "kappa", "ratio" (B2[zero]) or "exact"
    scale: dict[str, float]  # key -> the magnitude its tolerance is relative to


@contextmanager
def _one_thread() -> Iterator[None]:
    """One intra-op thread: on models this small, threads cost more than they save (and on shared cores they
    spin; measured 7x the CPU time of one thread on a loaded 2-core machine)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _math_attention() -> Any:
    """Double backward through attention needs the math kernel on the CPU (the flash kernel has no derivative)."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        return sdpa_kernel(SDPBackend.MATH)
    except ImportError:  # pragma: no cover - older torch
        return nullcontext()


def _prefix_parts(names: list[str], parts: Mapping[str, tuple[str, ...]] | None) -> dict[str, list[str]]:
    if parts is None:
        return {"all": list(names)}
    out: dict[str, list[str]] = {p: [] for p in parts}
    for n in names:
        hits = [(len(pre), p) for p, pres in parts.items() for pre in pres if n == pre or n.startswith(pre + ".")]
        assert hits, f"parameter {n} in no part of the case's reference split"
        out[max(hits)[1]].append(n)
    return out


def _key(name: str, part: str) -> str:
    return name if part == "all" else f"{name}[{part}]"


@dataclass(frozen=True)
class _Raw:
    """What the reference needs of one model, data set and partition, in float64."""

    names: list[str]
    sizes: list[int]
    Hm: list[Tensor]  # Hessian of each f_m
    G: Tensor  # (n, d) per-sample gradients
    fm: list[float]  # f_m at the point


def _hessian(f: Callable[[Tensor], Tensor], theta: Tensor) -> Tensor:
    """The Hessian of ``f`` at ``theta``: double backward, the second pass vectorised over the unit vectors
    (``is_grads_batched``), checked against central differences of the gradient in three random directions.

    Not ``torch.func.hessian``: in torch 2.13 on the CPU, torch.func's second derivatives through
    ``nn.LayerNorm``'s weight are wrong (``hessian``, ``jacrev`` twice and ``jacfwd`` twice alike; the
    Transformer case's LayerNorm rows off by up to 0.03 against central differences, plain double backward
    within 2e-11; cf. pytorch/pytorch#196700). Where the batched pass fails, ``torch.func.jacrev`` twice."""
    th = theta.detach().clone().requires_grad_(True)
    try:
        with torch.enable_grad():
            gr = torch.autograd.grad(f(th), th, create_graph=True)[0]
            eye = torch.eye(th.numel(), dtype=th.dtype)
            H = torch.autograd.grad(gr, th, eye, is_grads_batched=True)[0]
    except RuntimeError:
        H = torch.func.jacrev(torch.func.jacrev(f))(theta)
    gen = torch.Generator().manual_seed(0)
    grad = torch.func.grad(f)
    for _ in range(3):
        e = torch.randn(theta.shape, generator=gen, dtype=theta.dtype)
        h = 1e-6  # small, so that a ReLU kink is crossed with probability ~1e-6
        fd = (grad(theta + h * e) - grad(theta - h * e)) / (2 * h)
        err = float((H @ e - fd).abs().max())
        assert err <= 1e-6 * max(1.0, float(fd.abs().max())), f"reference Hessian off by {err:.3g} from differences"
    return (H + H.T) / 2


@functools.cache
def _raw(model_key: str, kind: str) -> _Raw:
    case = next(c for c in CASES if c.model == model_key and c.partition == kind)
    with _one_thread():  # as measured() builds it
        model = copy.deepcopy(case.build()).double().eval()
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    names = [n for n, _ in named]
    shapes = [p.shape for _, p in named]
    sizes = [p.numel() for _, p in named]
    fixed = {n: t.detach() for n, t in [*model.named_parameters(), *model.named_buffers()] if n not in names}
    theta0 = torch.cat([p.detach().reshape(-1) for _, p in named])
    X = case.X.double() if case.X.is_floating_point() else case.X
    y = case.y.double() if case.y.is_floating_point() else case.y

    def f_m(idx: Tensor) -> Callable[[Tensor], Tensor]:
        def f(theta: Tensor) -> Tensor:
            ps = {n: t.view(s) for n, t, s in zip(names, theta.split(sizes), shapes, strict=True)}
            return case.per_sample(functional_call(model, {**fixed, **ps}, (X[idx],)), y[idx]).mean()

        return f

    with _one_thread(), _math_attention():
        Hm = [_hessian(f_m(idx), theta0) for idx in case.clients]
        with torch.no_grad():
            fm = [float(f_m(idx)(theta0)) for idx in case.clients]
        # per-sample gradients: one sample at a time through the module itself
        params = [p for _, p in named]
        G = torch.zeros(len(X), theta0.numel(), dtype=torch.float64)
        for i in range(len(X)):
            li = case.per_sample(model(X[i : i + 1]), y[i : i + 1]).sum()
            gs = torch.autograd.grad(li, params, allow_unused=True)
            G[i] = torch.cat([torch.zeros(s) if g is None else g.reshape(-1) for g, s in zip(gs, sizes, strict=True)])
    return _Raw(names, sizes, Hm, G, fm)


@functools.cache
def _reference_for(cid: str) -> Reference:
    case = BY_ID[cid]
    raw = _raw(case.model, case.partition)
    names, sizes, Hm, G = raw.names, raw.sizes, raw.Hm, raw.G
    d = sum(sizes)
    offsets = dict(zip(names, torch.tensor([0, *sizes]).cumsum(0).tolist(), strict=False))
    views = {"all": torch.arange(d)}
    if case.parts is not None:
        for p, ns in _prefix_parts(names, case.parts).items():
            views[p] = torch.cat([torch.arange(offsets[n], offsets[n] + sizes[names.index(n)]) for n in ns])
    H = torch.stack(Hm).mean(0)
    M = len(case.clients)
    gm = torch.stack([G[idx].mean(0) for idx in case.clients])
    g = gm.mean(0)
    v: dict[str, float] = {}
    fam: dict[str, str] = {}

    def put(key: str, value: Any, family: str) -> None:
        v[key], fam[key] = float(value), family

    put("d", d, "exact")
    if "client" in views:
        put("d_c", views["client"].numel(), "exact")
    if "server" in views:
        put("d_s", views["server"].numel(), "exact")
    put("F", sum(raw.fm) / M, "F")
    put("gradnorm2_f", g.pow(2).sum(), "grad")
    samples = torch.cat(list(case.clients))
    owner = torch.cat([torch.full((idx.numel(),), m) for m, idx in enumerate(case.clients)])
    Gs = G[samples]
    for p, cv in views.items():
        # variance: centred at each client's own gradient
        cen = (Gs[:, cv] - gm[owner][:, cv]).pow(2).sum(1)
        norms = Gs[:, cv].pow(2).sum(1)
        per_client = [cen[owner == m] for m in range(M)]
        name = _PART_SIGMA.get(p, f"sigma2[{p}]")
        put(name, max(float(t.mean()) for t in per_client), "grad")
        put(_var(name, "max"), cen.max(), "grad")
        put(_var(name, "pooled"), cen.mean(), "grad")
        if case.batch is not None:
            vals = []
            for t in per_client:
                k, b = t.numel(), min(case.batch, t.numel())
                vals.append(float(t.mean()) / b * ((k - b) / (k - 1) if k > 1 else 0.0))
            put(_var(name, "batch"), max(vals), "grad")
        if p == "all":
            put("G2[gradient]", norms.mean(), "grad")
            put("G2[gradient,max]", norms.max(), "grad")
        else:
            gname = _PART_G.get(p, f"G2[{p}]")
            put(gname, norms.max(), "grad")
            put(_var(gname, "mean"), norms.mean(), "grad")
        # heterogeneity
        d2 = (gm[:, cv] - g[cv]).pow(2).sum(1)
        put(_key("eps2", p), d2.max(), "grad")
        put("eps2[mean]" if p == "all" else f"eps2[mean,{p}]", d2.mean(), "grad")
        # curvature of the block H_pp
        w = torch.linalg.eigvalsh(H[cv][:, cv])
        put(_key("L", p), w[-1], "eig")
        put("L[min]" if p == "all" else f"L[min,{p}]", w[0], "eig")
        put(_key("kappa", p), float(torch.trace(H[cv][:, cv])) / float(w.abs().max()), "kappa")
    A = float(gm.pow(2).sum(1).mean())
    put("B2", 1.0, "exact")
    put("G2", A - float(g.pow(2).sum()), "grad")
    put("B2[zero]", A / float(g.pow(2).sum()), "ratio")
    put("L[clients]", max(float(torch.linalg.eigvalsh(h)[-1]) for h in Hm), "eig")

    gscale = float(G.pow(2).sum(1).max())
    hnorm = float(torch.linalg.eigvalsh(H).abs().max())
    scale: dict[str, float] = {}
    for key, f in fam.items():
        if f == "grad":
            scale[key] = gscale
        elif f == "eig":
            scale[key] = hnorm
        elif f == "kappa":
            p = key[len("kappa[") : -1] if key.startswith("kappa[") else "all"
            w = torch.linalg.eigvalsh(H[views[p]][:, views[p]])
            scale[key] = float(w.abs().sum() / w.abs().max())
        elif f == "ratio":
            scale[key] = v[key] * (1 + gscale / float(g.pow(2).sum()))
        else:
            scale[key] = abs(v[key])
    return Reference(v, fam, scale)


def reference(case: Case) -> Reference:
    with _one_thread():
        return _reference_for(case.id)


# ---- the measurement ------------------------------------------------------------------------------------------


def group_of(key: str) -> str:
    """The ``GROUP_WHAT`` call that returns ``key``."""
    base = key.split("[")[0]
    if base in ("F", "gradnorm2_f", "d", "d_c", "d_s"):
        return "value"
    if key == "G2" or base in ("eps2", "B2"):
        return "eps2"
    if base in ("sigma2", "sigma_c2", "sigma_s2", "G_c2", "G_s2") or key.startswith("G2["):
        return "sigma2"
    if base == "kappa" or key.startswith("L[min"):
        return "curv"
    if base == "L":
        return "L"
    raise KeyError(key)


@functools.cache
def measured(cid: str, group: str) -> Constants | BaseException:
    """``measure`` of case ``cid`` for one group (once per session), or what it raised."""
    case = BY_ID[cid]
    try:
        with _one_thread():
            return measure(
                case.build(),
                case.loss,
                (case.X, case.y),
                case.split,
                what=GROUP_WHAT[group],
                clients=list(case.clients),
                batch=case.batch,
                probes=PROBES,
                dtype=case.dtype,
                device="cpu",
                seed=0,
            )
    except Exception as e:  # reported by every test of the group
        return e


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def _static_keys(case: Case) -> list[str]:
    """The keys the reference fills, without computing it (for collection)."""
    parts = ["all"] if case.parts is None else ["all", *case.parts]
    keys = ["d", "F", "gradnorm2_f", "B2", "G2", "B2[zero]", "L[clients]", "G2[gradient]", "G2[gradient,max]"]
    keys += [k for k, p in (("d_c", "client"), ("d_s", "server")) if p in parts]
    for p in parts:
        name = _PART_SIGMA.get(p, f"sigma2[{p}]")
        keys += [name, _var(name, "max"), _var(name, "pooled")] + ([_var(name, "batch")] if case.batch else [])
        if p != "all":
            gname = _PART_G.get(p, f"G2[{p}]")
            keys += [gname, _var(gname, "mean")]
        keys += [_key("eps2", p), "eps2[mean]" if p == "all" else f"eps2[mean,{p}]"]
        keys += [_key("L", p), "L[min]" if p == "all" else f"L[min,{p}]", _key("kappa", p)]
    return keys


# ---- known failures: (case id glob, keys or "*", the bug) ------------------------------------------------------
# Each entry makes those pairs strict xfails, so that the fix shows as an XPASS and the entry is then removed.
#
# At 1f059d4 (before issue 11's fixes) 432 pairs failed (+ the two tests at the end of this file); all pass
# since. By cause, as the entries read then:
#   unequal clients, curvature of the pooled mean (87 pairs; 19 unequal cases): L, L[min], L[part], kappa,
#     e.g. cnn_groupnorm-unequal-f64 L[min] -0.9463 against -1.0659, mlp_tanh-unequal-f64 L[client] 0.1627
#     against 0.1421, lstm-unequal-f64 L[min,client] -0.0202 against -0.0246
#   ARPACK, no Ritz value of lambda_min (server part = the final Linear under CE): mlp_tanh f32/f16, L[min*],
#     kappa* (18 pairs); lambda_min exactly 0 returned as 0.000173 in [0.0001726, 0.0001726]: mlp_tanh f64
#     L[min,server] (3)
#   GRU, RNN, float64 LSTM per-sample gradients, "output with shape [1, h] doesn't match the broadcast shape
#     [m, 1, h]": every sigma2/G key (90); LSTM float32 sigma_c2 0.003192 against 0.002921, G_c2 0.009052
#     against 0.01032, G2[gradient,max] (4)
#   tied weights, hooks engine: sigma2 1.1016 against 1.2242, G2[gradient,max] 2.1361 against 2.4722 (12)
#   Transformer: no double backward through the CPU flash-attention kernel (8); a cut of the token-input
#     model blamed --input-shape (42)
#   nn.MSELoss with targets (n, 1) refused (168); F with BCE in float64 0.726406018 against 0.726405993 (2)
#   a tuple/dict output with nn.CrossEntropyLoss a TypeError; BatchNorm1d(track_running_stats=False) a ValueError
KNOWN: list[tuple[str, tuple[str, ...] | str, str]] = []


def known(cid: str, key: str) -> str | None:
    """The bugs (issue 11) that make ``key`` of case ``cid`` fail today, or None."""
    why = [r for pat, keys, r in KNOWN if fnmatch.fnmatchcase(cid, pat) and (keys == "*" or key in keys)]
    return "; ".join(dict.fromkeys(why)) or None


def _params() -> list[Any]:
    out = []
    for case in CASES:
        for key in _static_keys(case):
            why = known(case.id, key)
            marks = [pytest.mark.xfail(strict=True, reason=f"issue 11: {why}")] if why else []
            out.append(pytest.param(case.id, key, id=f"{case.id}:{key}", marks=marks))
    return out


def _skip_half(case: Case, e: BaseException) -> None:
    if case.dtype == torch.float16 and "not implemented for 'Half'" in str(e):
        pytest.skip(f"torch on the CPU has no float16 kernel here: {_one_line(e)}")


class Crashed(Exception):
    """``measure`` raised instead of returning (the message names the group and the exception)."""


def compare(cid: str, key: str) -> None:
    """Raise ``Crashed`` or an ``AssertionError`` (measured against reference, and the allowance) unless the
    measured ``key`` of case ``cid`` matches its reference."""
    case = BY_ID[cid]
    c = measured(cid, group_of(key))
    if isinstance(c, BaseException):
        raise Crashed(f"measure(what={list(GROUP_WHAT[group_of(key)])}) raised {_one_line(c)}") from c
    ref = reference(case)
    est = c.get(key)
    assert est is not None, f"{key} was not returned (returned: {', '.join(k for k, _ in c.items())})"
    r = ref.values[key]
    fam = ref.family[key]
    if fam == "exact":
        assert est.value == r, f"{key}: measured {est.value}, exactly {r}"
        return
    rtol = {**RTOL[case.dtype], **case.rtol}.get("grad" if fam == "ratio" else fam, 0.0)
    allowed = rtol * ref.scale[key]
    if est.se is not None and fam in ("kappa", "eig"):
        allowed += 4 * est.se
    if est.interval is not None:
        allowed += (est.interval[1] - est.interval[0]) / 2
    diff = est.value - r
    assert abs(diff) <= allowed, (
        f"{key}: measured {est.value:.9g} (se {est.se}, interval {est.interval}), reference {r:.9g}: "
        f"off by {diff:.3g} ({diff / r if r else math.inf:+.3%}), allowed {allowed:.3g}; method: {est.method}"
    )


@pytest.mark.parametrize(("cid", "key"), _params())
def test_constant_against_reference(cid: str, key: str) -> None:
    """One measured constant of one case against its independent reference (see the module docstring)."""
    try:
        compare(cid, key)
    except Crashed as e:
        assert e.__cause__ is not None
        _skip_half(BY_ID[cid], e.__cause__)
        pytest.fail(str(e), pytrace=False)


@pytest.mark.parametrize("cid", [c.id for c in CASES])
def test_every_returned_constant_has_a_reference(cid: str) -> None:
    """No estimate leaves ``measure`` unchecked: every key any group returns is one the reference fills."""
    case = BY_ID[cid]
    expected = set(_static_keys(case))
    returned: set[str] = set()
    for group in GROUP_WHAT:
        c = measured(cid, group)
        if isinstance(c, Constants):
            returned |= {k for k, _ in c.items()}
    unchecked = sorted(returned - expected)
    assert not unchecked, f"returned without an independent reference here: {unchecked}"


# ---- models measure cannot take as they stand: handled correctly, or refused in one line ----------------------


def _x4y3() -> tuple[Tensor, Tensor]:
    X = features((4,), 1)
    return X, labels(X, 3, 12)


@pytest.mark.parametrize(
    ("make", "select"),
    [
        pytest.param(seeded(10, lambda: TupleOut(4, 8, 3)), lambda o: o[0], id="tuple"),
        pytest.param(seeded(11, lambda: DictOut(4, 8, 3)), lambda o: o["logits"], id="dict"),
    ],
)
def test_structured_output_with_a_torch_loss(make: Callable[[], nn.Module], select: Callable[[Any], Tensor]) -> None:
    """A model returning ``(logits, features)`` or ``{"logits": ...}`` with a plain ``nn.CrossEntropyLoss``:
    either measured on the logits (F equal to the reference on the selected output) or refused with a
    ParameterError that says what to do."""
    X, y = _x4y3()
    try:
        c = measure(make(), nn.CrossEntropyLoss(), (X, y), what=["F"], clients=list(partition("unequal")),
                    dtype=torch.float64, device="cpu")  # fmt: skip
    except ParameterError:
        return
    model = make().double().eval()
    ref = sum(float(ce(select(model(X[i].double())), y[i]).mean()) for i in partition("unequal")) / 3
    assert c.F is not None and c.F.value == pytest.approx(ref, rel=1e-12)


def test_batch_statistics_refused() -> None:
    """Batch norm without running statistics normalises with the batch's own statistics even in eval mode, so
    a sample's loss depends on the rest of its batch and per-sample gradients are undefined: a ParameterError."""
    X, y = _x4y3()
    with pytest.raises(ParameterError):
        measure(bn_batch_stats(), nn.CrossEntropyLoss(), (X, y), what=["sigma2"], clients=list(partition("equal")),
                device="cpu")  # fmt: skip
