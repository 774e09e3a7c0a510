r"""``measure()``: the constants the theorems assume, on a model and data, split at a cut, by canonical name.

What each name holds (``Constants`` field, or ``name[variant]`` key), with g_i the gradient of sample i's loss,
D_m client m's samples, f_m their mean loss, f = (1/M) sum_m f_m, and "part" one of the split's parts:

=======================  ==================================================================================
``L``                    top eigenvalue of the Hessian of f (Lanczos on Hessian-vector products);
                         ``L[min]`` the most negative one; ``L[client]``, ``L[server]`` ... a part's block
                         H_pp; ``L[clients]`` max over clients of the top eigenvalue of f_m (``L_clients``)
``sigma2``               :math:`\max_m \frac1{|D_m|}\sum_{i\in D_m}\|g_i-\nabla f_m\|^2` (one-sample
                         variance, in expectation within a client, worst client); ``sigma2[max]`` the max
                         over samples (bounds "for every xi"); ``sigma2[pooled]`` the mean over all samples;
                         ``sigma2[batch]`` a mini-batch of ``batch`` drawn without replacement,
                         :math:`\sigma^2/b\cdot(|D_m|-b)/(|D_m|-1)`
``sigma_c2``             the same for the client part (``sigma_s2`` server; ``sigma2[aux]`` another part),
                         with the same variants: ``sigma_c2[max]``, ``sigma_c2[pooled]``, ``sigma_c2[batch]``
``G_c2``, ``G_s2``       max over samples of :math:`\|g_{i,part}\|^2`; ``G_c2[mean]`` the mean
``G2[gradient]``         mean over samples of :math:`\|g_i\|^2` (bounded gradient, in expectation);
                         ``G2[gradient,max]`` the max
``eps2``                 :math:`\max_m\|\nabla f_m-\nabla f\|^2`; ``eps2[mean]`` the mean over clients;
                         ``eps2[client]``, ``eps2[mean,client]`` ... per part
``B2``, ``G2``           bounded dissimilarity at the measured point(s): B^2 = 1 and the least G^2 for it;
                         ``B2[zero]`` the least B^2 with G^2 = 0 (``track`` fits them over a trajectory)
``kappa``                tr(H)/||H||_2 (Hutch++ trace, :math:`\|H\|_2 = \max(|\lambda_{max}|, |\lambda_{min}|)`);
                         ``kappa[client]`` ... per part
``F``                    f(x^0) - f*, with f* = ``fstar`` (default 0: a lower bound for a non-negative
                         loss, so F is an upper bound on the true gap)
``gradnorm2_f``          :math:`\|\nabla f(x)\|^2`
``d``, ``d_c``, ``d_s``  parameter counts of the whole model and the client/server parts
``zo_mse[part]``         mean squared error of the zeroth-order estimator for ``lam`` and ``P`` (``zo``)
=======================  ==================================================================================

Conventions: the loss is the mean of per-sample losses (a ``torch.nn`` loss is used with
``reduction="none"``); the model is evaluated in eval mode (batch norm with running statistics: per-sample
gradients are undefined in train mode, where samples interact through the batch statistics); variance is
centred at the client's own gradient, as the seeds' per-client variance assumptions are.
"""

from __future__ import annotations

import math
import platform
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from sfltheory import variants as var
from sfltheory.constants import Constants, Estimate
from sfltheory.errors import ParameterError
from sfltheory.variants import with_variant
from verify.data import partition as make_partition
from verify.models.forward import INPUT_SHAPE, MODEL
from verify.ops.hvp import HessianOperator
from verify.ops.objective import LossFn, Objective, OutputSelector, Params
from verify.ops.zo import FORMS
from verify.split import Split

from .curvature import extreme_eigenvalue
from .heterogeneity import Dissimilarity, average, sqdist
from .lanczos import lanczos
from .persample import check_per_sample, persample_norms
from .progress import Progress, client_gradients_timed, estimated_passes, step_count
from .trace import hessian_trace
from .zo import zo_error

# what= accepts these groups, or any canonical name they fill.
GROUPS: dict[str, tuple[str, ...]] = {
    "L": ("L",),
    "L_min": (),
    "sigma2": ("sigma2", "sigma_c2", "sigma_s2", "G_c2", "G_s2"),
    "eps2": ("eps2", "B2", "G2"),
    "kappa": ("kappa",),
    "F": ("F",),
    "gradnorm2_f": ("gradnorm2_f",),
    "zo": (),
    "L_clients": (),
}
DEFAULT_WHAT = ("L", "L_min", "sigma2", "eps2", "kappa", "F", "gradnorm2_f")
# Default precision (also the CLI's): Hessian-vector products for the traces, and the Lanczos tolerance, relative
# to ||H||. Chosen so that the README example (FedAvg CNN, digits, 4 clients) finishes in under a minute on a
# 2-core CPU; kappa's standard error says what the probes bought (and flags an estimate it does not pin down).
PROBES = 30
TOL = 1e-3
# Canonical per-part names; other parts get "name[part]" variants.
_PART_SIGMA = {"client": "sigma_c2", "server": "sigma_s2"}
_PART_G = {"client": "G_c2", "server": "G_s2"}


def groups_for(what: Iterable[str]) -> set[str]:
    """``what`` (groups or canonical names) -> the groups to run."""
    out: set[str] = set()
    for w in what:
        hits = [g for g, names in GROUPS.items() if w == g or w in names]
        if not hits:
            ok = ", ".join(sorted({*GROUPS, *(n for ns in GROUPS.values() for n in ns)}))
            raise ParameterError("what", f"'{w}' is not a measurable constant (one of: {ok})")
        out.update(hits)
    return out


def group_of_key(key: str) -> str | None:
    """The group of :data:`GROUPS` that measures a key of a :class:`Constants` record (``None``: counted, not
    measured: ``d``, ``d_c``, ``d_s``). ``L[clients]`` is ``L_clients``, ``G2[gradient]`` comes with the
    per-sample norms (``sigma2``), bare ``G2`` and ``B2`` with heterogeneity (``eps2``)."""
    base, variants = var.split(key)
    variant = variants[0] if variants else ""
    if base in ("d", "d_c", "d_s"):
        return None
    if base == "L":
        return {var.CLIENTS: "L_clients", var.MIN: "L_min"}.get(variant, "L")
    if base in ("sigma2", "sigma_c2", "sigma_s2", "G_c2", "G_s2") or (base == "G2" and variant == var.GRADIENT):
        return "sigma2"
    if base in ("eps2", "B2", "G2"):
        return "eps2"
    if base == var.ZO_MSE:
        return "zo"
    if base in GROUPS:
        return base
    raise ParameterError("what", f"'{key}' is not a measured constant")


def resolve_split(
    model: nn.Module,
    split: Split | str | int | Mapping[str, Iterable[str]] | None,
    input_shape: Sequence[int] | None,
    X: Tensor | None = None,
) -> Split:
    """A :class:`Split` from: None (the whole model), a cut (a block name, or a 1-based index as ``sfltheory
    cuts`` lists them; a block name wins, so on an ``nn.Sequential`` ``"1"`` is the block named "1"), or
    ``{part: [name prefixes]}``. ``X`` (the data) gives the dtype of the input traced to find the cut: integer
    token ids stay integers (an ``nn.Embedding`` first layer), floating inputs take the model's dtype."""
    if split is None:
        return Split.whole(model)
    if isinstance(split, Split):
        split.check(model)
        return split
    if isinstance(split, Mapping):
        return Split.from_prefixes(model, split)
    if input_shape is None:
        raise ParameterError("input_shape", "a split at a cut needs the per-sample input shape")
    first = next((p for p in model.parameters() if p.is_floating_point()), None)
    dtype = first.dtype if first is not None else torch.float32
    if X is not None and not X.is_floating_point():
        dtype = X.dtype
    try:
        return Split.at_cut(model, split, input_shape, input_dtype=dtype)
    except ParameterError as e:
        tokens = any(isinstance(m, nn.Embedding | nn.EmbeddingBag) for m in model.modules())
        if e.name in (INPUT_SHAPE, MODEL) and tokens and dtype.is_floating_point:
            raise ParameterError(
                "data", f"the model's nn.Embedding takes integer token ids, but the inputs are {dtype}: pass X as an "
                "integer tensor (torch.long)"
            ) from None  # fmt: skip
        raise


def resolve_clients(
    y: Tensor, clients: int | Sequence[Tensor] | None, partition: str, seed: int, n: int
) -> list[Tensor]:
    """The clients' index tensors: all ``n`` samples as one client (``clients`` None); ``clients`` clients split
    from the labels ``y`` by ``partition`` with ``seed`` (an int); or the index sets given, each refused (a
    ``ParameterError`` naming ``clients``) when empty or outside ``0..n-1``."""
    if clients is None:
        return [torch.arange(n)]
    if isinstance(clients, int):
        return make_partition(y, clients, partition, seed)
    out = [torch.as_tensor(c, dtype=torch.long) for c in clients]
    if not out:
        raise ParameterError("clients", "needs at least one client")
    for m, c in enumerate(out):
        if c.numel() == 0:
            raise ParameterError("clients", f"client {m} holds no samples: every client needs data")
        if int(c.min()) < 0 or int(c.max()) >= n:
            raise ParameterError("clients", f"client {m} has an index outside 0..{n - 1}")
    return out


def unpack_data(data: Any) -> tuple[Tensor, Tensor, str, tuple[int, ...] | None]:
    """``data`` (a :class:`verify.data.Dataset` or ``(X, y)``) -> inputs, targets, a name and the per-sample input
    shape."""
    if hasattr(data, "X") and hasattr(data, "y"):
        return data.X, data.y, str(getattr(data, "name", "data")), tuple(getattr(data, "input_shape", ()) or ()) or None
    try:
        X, y = data
    except (TypeError, ValueError):
        raise ParameterError("data", "must be a verify.data.Dataset or a pair (X, y) of tensors") from None
    if not isinstance(X, Tensor) or not isinstance(y, Tensor):
        raise ParameterError("data", "must be a verify.data.Dataset or a pair (X, y) of tensors")
    return X, y, "data", tuple(X.shape[1:])


def measure(
    model: nn.Module,
    loss: nn.Module | LossFn,
    data: Any,
    split: Split | str | int | Mapping[str, Iterable[str]] | None = None,
    what: Iterable[str] = DEFAULT_WHAT,
    *,
    clients: int | Sequence[Tensor] | None = None,
    partition: str = "iid",
    batch: int | None = None,
    probes: int = PROBES,
    tol: float = TOL,
    fstar: float = 0.0,
    lam: float | None = None,
    P: int = 1,
    zo_form: str = "spsa",
    zo_reps: int = 32,
    device: str | torch.device | None = "auto",
    dtype: torch.dtype | None = None,
    output: OutputSelector | None = None,
    chunk: int = 256,
    engine: str = "auto",
    seed: int = 0,
    params: Params | None = None,
    progress: bool | Callable[[str], None] = False,
) -> Constants:
    """Measure constants of ``loss(model(X), y)`` at the model's current parameters (or ``params``).

    ``data``: a :class:`verify.data.Dataset` or ``(X, y)``. ``split``: ``None`` (whole model), a cut (block
    name or 1-based index), ``{part: [prefixes]}`` or a :class:`Split`. ``what``: groups (``L``, ``sigma2``,
    ``eps2``, ``kappa``, ``F``, ``gradnorm2_f``, ``zo``, ``L_clients``) or canonical names. ``clients``: a
    number of clients (partitioned by ``partition``: ``iid``, ``dirichlet:ALPHA``, ``shards:K``, ``sorted``)
    or their index tensors; heterogeneity needs at least two. ``probes``: Hessian-vector products for the
    trace (kappa); ``tol``: Lanczos tolerance (relative). ``output``: for a model that returns a tuple or dict,
    which part the loss takes (an index, a key, or a callable). See the module docstring for every name.
    """
    t0 = time.perf_counter()
    groups = groups_for(what)
    X, y, data_name, shape = unpack_data(data)
    _check_options(groups, batch, probes, tol, lam, zo_form)
    check_per_sample(model)
    sp = resolve_split(model, split, shape, X)
    obj = Objective(model, loss, X, y, sp, chunk=chunk, device=device, dtype=dtype, output=output)
    cl = resolve_clients(y, clients, partition, seed, obj.n)
    fobj = obj.with_clients(cl)  # f = (1/M) sum_m f_m, clients weighing equally: L, L[min], L[part], kappa, F
    if "eps2" in groups and len(cl) < 2:
        raise ParameterError("clients", "heterogeneity (eps2, B2, G2) needs at least 2 clients")
    x = obj.placed(obj.params0 if params is None else params)  # a point given on the CPU, on the objective's device
    parts = list(sp.names)
    bar = Progress(progress, step_count(groups, len(cl), parts))
    c = Constants()
    _counts(c, obj, parts)
    try:
        gm, per_pass = client_gradients_timed(obj, cl, x)
        g = average(gm)
        bar.step("gradients")
        zo_evals = ("zo" in groups) * len(parts) * zo_reps * P * (2 if zo_form == "spsa" else 1)
        bar.estimate(per_pass * estimated_passes(groups, parts, probes, zo_evals))
        c.gradnorm2_f = Estimate(sqdist(obj, g, None, None), n=obj.n, method="||grad f||^2, exact over the data")
        if "sigma2" in groups:
            _variance(c, obj, x, cl, gm, parts, batch, engine, bar)
        if "eps2" in groups:
            _heterogeneity(c, obj, gm, g, parts)
        if groups & {"L", "L_min", "kappa"}:
            _curvature(c, fobj, x, parts, groups, probes, tol, seed, bar)
        if "L_clients" in groups:
            _clients_top(c, obj, cl, x, tol, seed, bar)
        if "F" in groups:
            _gap(c, fobj, x, fstar, bar)
        if "zo" in groups:
            assert lam is not None
            for p in parts:
                e = zo_error(fobj, lam, part=p, P=P, reps=zo_reps, form=zo_form, params=x, grad=g, seed=seed)
                c.set(var.key(var.ZO_MSE, p), e)
                bar.step(f"zo {p}")
    finally:
        bar.close()
    given = partition if isinstance(clients, int) else ("given" if clients is not None else "none")
    c.meta = {
        "model": type(model).__name__,
        "data": data_name,
        "n": obj.n,
        "input_shape": list(shape) if shape else None,
        **_setting(obj, sp, cl, given, groups),
        "batch": batch,
        **_conventions(obj),
        "engine": engine,
        "seed": seed,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return c


def _check_options(
    groups: set[str], batch: int | None, probes: int, tol: float, lam: float | None, zo_form: str
) -> None:
    """The precision options of :func:`measure`, each refused with its name."""
    if batch is not None and batch < 1:
        raise ParameterError("batch", f"must be a positive mini-batch size, got {batch}")
    if probes < 3:
        raise ParameterError("probes", f"needs at least 3 Hessian-vector products for the trace, got {probes}")
    if not 0 < tol < 1:
        raise ParameterError("tol", f"must be a relative tolerance in (0, 1), got {tol}")
    if "zo" in groups:
        if lam is None:
            raise ParameterError("lam", "the zeroth-order error (what=zo) needs a smoothing radius lam")
        if zo_form not in FORMS:
            raise ParameterError("zo_form", f"must be one of {', '.join(FORMS)}, got '{zo_form}'")


def _counts(c: Constants, obj: Objective, parts: list[str]) -> None:
    """d, and d_c, d_s where the split has a client and a server part."""
    sizes = {p: obj.size(p) for p in parts}
    c.d = Estimate(float(obj.size()), method="count of trainable parameters")
    if "client" in sizes:
        c.d_c = Estimate(float(sizes["client"]), method="count of client-side parameters")
    if "server" in sizes:
        c.d_s = Estimate(float(sizes["server"]), method="count of server-side parameters")


def _clients_top(
    c: Constants, obj: Objective, cl: list[Tensor], x: Params, tol: float, seed: int, bar: Progress
) -> None:
    """``L[clients]``: the largest over clients of the top Hessian eigenvalue of f_m (one Lanczos run each)."""
    tops = []
    for idx in cl:
        tops.append(extreme_eigenvalue(obj, None, "largest", tol=tol, seed=seed, params=x, idx=idx))
        bar.step("L per client")
    worst = max(tops, key=lambda e: e.value)
    c.set(var.key("L", var.CLIENTS), Estimate(worst.value, interval=(worst.value - worst.residual, worst.value +
          worst.residual), n=obj.n, probes=sum(e.matvecs for e in tops),
          method=f"max over {len(cl)} clients of the top Hessian eigenvalue of f_m (Lanczos)"))  # fmt: skip


def _gap(c: Constants, fobj: Objective, x: Params, fstar: float, bar: Progress) -> None:
    """F = f(x0) - f*, refusing an f* above f(x0)."""
    f0 = fobj.value(x)
    if f0 < fstar:
        raise ParameterError("fstar", f"f* = {fstar:g} exceeds f(x0) = {f0:.6g}: it must be a lower bound")
    how = "f* = 0, a lower bound for a non-negative loss" if fstar == 0 else f"f* = {fstar:g} given"
    c.F = Estimate(f0 - fstar, n=fobj.n, method=f"f(x0) - f*, {how}; {fobj.description}",
                   note="an upper bound on the true gap")  # fmt: skip
    bar.step("F")


def _setting(obj: Objective, sp: Split, cl: list[Tensor], partition: str, groups: set[str]) -> dict[str, Any]:
    """The record's meta: who holds what (clients, split, part sizes) and what was measured."""
    return {
        "clients": len(cl),
        "client_sizes": [int(i.numel()) for i in cl],
        "partition": partition,
        "split": {p: list(v) for p, v in sp.parts.items()},
        "cut": sp.cut,
        "part_sizes": {p: obj.size(p) for p in sp.names},
        "what": sorted(groups),
    }


def _conventions(obj: Objective) -> dict[str, str]:
    """The record's meta: the objective, loss, mode and precision the constants are of."""
    return {
        "objective": "f = (1/M) sum_m f_m, f_m the mean loss on client m's samples",
        "loss": "mean of per-sample losses (reduction='none' summed and divided by n)",
        "mode": "eval (batch norm uses running statistics; dropout off)",
        "dtype": str(obj.dtype).replace("torch.", ""),
        "device": str(obj.device),
    }


def _variance(
    c: Constants,
    obj: Objective,
    x: Params,
    cl: list[Tensor],
    gm: list[Params],
    parts: list[str],
    batch: int | None,
    engine: str,
    bar: Progress,
) -> None:
    """sigma^2 (and its part and variant keys) and the gradient bounds G^2, from every client's per-sample
    gradient norms centred at its own gradient."""
    cent: dict[str, list[Tensor]] = {p: [] for p in parts}
    raw: dict[str, list[Tensor]] = {p: [] for p in parts}
    used = ""
    for idx, g in zip(cl, gm, strict=True):
        r = persample_norms(obj, x, center=g, idx=idx, engine=engine)
        used = r.engine
        for p in parts:
            cent[p].append(r.centred[p])
            raw[p].append(r.raw[p])
        bar.step("per-sample gradients")
    views: list[tuple[str, list[Tensor], list[Tensor]]] = [
        (p, cent[p], raw[p]) for p in parts if not (p == "all" and len(parts) == 1)
    ]
    total_c = [torch.stack(cs).sum(0) for cs in zip(*cent.values(), strict=True)]
    total_r = [torch.stack(rs).sum(0) for rs in zip(*raw.values(), strict=True)]
    views.append(("all", total_c, total_r))
    n = sum(int(i.numel()) for i in cl)
    how = f"exact per-sample gradients ({used} engine), centred at each client's gradient"
    for p, cs, rs in views:
        name = "sigma2" if p == "all" else _PART_SIGMA.get(p, var.key("sigma2", p))
        _set_variance(c, name, cs, n, batch, how)
        _set_gradient_bound(c, p, torch.cat(rs), n)


def _set_variance(c: Constants, name: str, cs: list[Tensor], n: int, batch: int | None, how: str) -> None:
    """``name`` (the worst client's mean of ||g_i - grad f_m||^2) and its ``max``, ``pooled`` and ``batch``
    variants, from each client's centred norms ``cs``."""
    means = [float(t.mean()) for t in cs]
    worst = max(range(len(cs)), key=lambda m: means[m])
    t = cs[worst]
    se = float(t.std() / math.sqrt(t.numel())) if t.numel() > 1 else None
    within = "max over clients of the mean within a client" if len(cs) > 1 else "mean over samples"
    c.set(name, Estimate(means[worst], se=se, n=n, method=f"{within}; {how}"))
    allc = torch.cat(cs)
    c.set(with_variant(name, var.MAX), Estimate(float(allc.max()), n=n, method=f"max over samples; {how}",
          note="a max over the data: the sup over the distribution may be larger"))  # fmt: skip
    c.set(with_variant(name, var.POOLED), Estimate(float(allc.mean()), n=n, method=f"mean over all samples; {how}"))
    if batch is not None:
        vals = []
        for t in cs:
            k = t.numel()
            b = min(batch, k)
            vals.append(float(t.mean()) / b * ((k - b) / (k - 1) if k > 1 else 0.0))
        why = f"mini-batch of {batch} without replacement (finite-population correction), max over clients"
        c.set(with_variant(name, var.BATCH), Estimate(max(vals), n=n, method=f"{why}; {how}"))


def _set_gradient_bound(c: Constants, p: str, allr: Tensor, n: int) -> None:
    """The bounded-gradient constants of part ``p`` from the raw norms ``allr`` of every sample:
    ``G2[gradient]`` for the whole model, ``G_c2``/``G_s2`` (``G2[part]``) with their ``mean`` for a part."""
    if p == "all":
        c.set(var.key("G2", var.GRADIENT), Estimate(float(allr.mean()), n=n, method="mean over samples of ||g_i||^2"))
        c.set(
            var.key("G2", var.GRADIENT, var.MAX),
            Estimate(float(allr.max()), n=n, method="max over samples of ||g_i||^2"),
        )
        return
    gname = _PART_G.get(p, var.key("G2", p))
    c.set(gname, Estimate(float(allr.max()), n=n, method=f"max over samples of ||g_i,{p}||^2"))
    mean = Estimate(float(allr.mean()), n=n, method=f"mean over samples of ||g_i,{p}||^2")
    c.set(with_variant(gname, var.MEAN), mean)


def _heterogeneity(c: Constants, obj: Objective, gm: list[Params], g: Params, parts: list[str]) -> None:
    M = len(gm)
    views = [None] if parts == ["all"] else [None, *parts]
    for p in views:
        d = [sqdist(obj, gk, g, p) for gk in gm]
        part = () if p is None else (p,)
        key_max = var.key("eps2", *part)
        c.set(key_max, Estimate(max(d), n=M, method="max over clients of ||grad f_m - grad f||^2, exact"))
        c.set(
            var.key("eps2", var.MEAN, *part),
            Estimate(sum(d) / M, n=M, method="mean over clients of ||grad f_m - grad f||^2"),
        )
    A = sum(sqdist(obj, gk, None, None) for gk in gm) / M
    fit = Dissimilarity((A,), (sqdist(obj, g, None, None),))
    c.B2 = Estimate(1.0, method="B^2 = 1 (the least possible), with the least G^2 for it",
                    note="at one point; verify.constants.track fits (B^2, G^2) over a trajectory")  # fmt: skip
    c.G2 = Estimate(fit.G2(1.0), n=M, method="least G^2 with B^2 = 1: (1/M) sum ||grad f_m||^2 - ||grad f||^2")
    c.set(
        var.key("B2", var.ZERO),
        Estimate(fit.B2_zero, n=M, method="least B^2 with G^2 = 0: (1/M) sum ||grad f_m||^2 / ||grad f||^2"),
    )


def _curvature(
    c: Constants,
    obj: Objective,
    x: Params,
    parts: list[str],
    groups: set[str],
    probes: int,
    tol: float,
    seed: int,
    bar: Progress,
) -> None:
    """L, L[min] and kappa of the whole model and of each part, on ``obj``'s objective (measure passes
    f = (1/M) sum_m f_m, clients weighing equally).

    One Lanczos run per view (whole model, each part's diagonal block) finds both ends of its spectrum, and its
    Krylov basis deflates the view's trace: ``probes // 3`` Hutchinson products on the rest (Hutch++ spends the
    other two thirds on the sketch that the Lanczos basis replaces). Estimating every part's trace from the
    whole-model products instead (``trace.block_traces``: no product per part) had 3-4x the standard error on
    the README example (client part 2.2-3.2 against 0.5-0.7, server 3.4-3.9 against 2.1-2.4, 10 probes), from the
    off-diagonal blocks. The products' method is measured on one chunk (``HessianOperator(retain="auto")``,
    ``verify.ops.hvp.product_speeds``): first-order graphs kept between products and shared by the views when they
    fit in 2 GiB and a product through them beats forward-over-reverse, else the faster of forward-over-reverse and
    a double backward rebuilding each chunk's graph.
    """
    views: list[str | None] = [None] if parts == ["all"] else [None, *parts]
    ends = tuple(e for e, gs in (("largest", {"L", "kappa"}), ("smallest", {"L_min", "kappa"})) if groups & gs)
    whole = HessianOperator(obj, None, x, retain="auto")
    of = obj.description
    specs = {}
    ops = {}
    for p in views:
        name = p or "all"
        part = () if p is None else (p,)
        ops[p] = whole.restrict(p)
        spec = lanczos(ops[p], tol=tol, seed=seed, which=ends)
        specs[p] = spec
        if "L" in groups or "kappa" in groups:
            c.set(var.key("L", *part), _eig(spec.top, obj.n, f"top Hessian eigenvalue of {of}"))
            bar.step(f"Lanczos {name}")
        if "L_min" in groups or "kappa" in groups:
            c.set(var.key("L", var.MIN, *part), _eig(spec.bottom, obj.n, f"most negative Hessian eigenvalue of {of}"))
            bar.step(f"Lanczos {name}")
    if "kappa" in groups:
        note = "tr(H)/||H||_2 at the point; a proxy for HERON-SFL's kappa where H is indefinite"
        for p in views:
            tr = hessian_trace(ops[p], probes=max(2, probes // 3), seed=seed, basis=specs[p])
            lam = specs[p].norm
            norm = abs(lam.value)
            if norm == 0:
                why = "has a zero Hessian block: its effective rank is undefined"
                raise ParameterError("part", f"'{p or 'all'}' {why}")
            kappa = tr.value / norm
            se = abs(kappa) * math.hypot(tr.se / abs(tr.value) if tr.value else 0.0, lam.residual / norm)
            how = f"tr(H) by {tr.method} / ||H||_2 = max(|lambda_max|, |lambda_min|) by {lam.method}; {of}"
            est = Estimate(kappa, se=se, n=obj.n, probes=tr.probes + specs[p].matvecs, method=how, note=note)
            c.set(var.key("kappa", *(() if p is None else (p,))), est)
            bar.step(f"trace {p or 'all'}")


def _eig(e: Any, n: int, what: str) -> Estimate:
    note = "" if e.converged else "Lanczos did not converge: the residual interval is wide"
    return Estimate(e.value, interval=(e.value - e.residual, e.value + e.residual), n=n, probes=e.matvecs,
                    method=f"{what} ({e.method})", note=note)  # fmt: skip
