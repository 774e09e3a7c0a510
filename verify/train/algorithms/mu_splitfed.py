r"""MU-SplitFed and MU-Split: zeroth-order split (federated) learning with :math:`\tau` unbalanced server steps.

Reference: Dandan Liang, Jianing Zhang, Evan Chen, Zhe Li, Rui Li, Haibo Yang, "Towards Straggler-Resilient Split
Federated Learning: An Unbalanced Update Approach" (seed ``000_0fb66116fc20c956.txt``; the seed prints no year,
venue or arXiv id, only the code address https://github.com/Johnny-Zip/MU-SplitFed). Algorithm 1, eqs. (3)-(7)
(Sec. 3), the multi-perturbation estimator of App. C.2 (proof of Lemma C.2), MU-Split = the case M = 1 (Sec. 4.1),
hyper-parameters of App. F, Table 6.

The algorithm (Algorithm 1). Every client m starts round t from the global model,
:math:`x_{c,m}^t = x_c^t`, and the Split Server keeps one server copy per client, :math:`x_{s,m}^{t,0} = x_s^t`.
Client m draws a mini-batch :math:`\xi_m^t` and P directions :math:`u_{c,m,p}^t` uniform on the sphere
:math:`\sqrt{d_c}\,\mathbb S^{d_c-1}` (eq. (3)), and uploads the unperturbed and the 2P perturbed embeddings (eq. (4))

.. math:: h_m^t = h(x_c^t;\xi_m^t),\qquad h_{m,p}^{t\pm} = h(x_c^t \pm \lambda u_{c,m,p}^t;\xi_m^t).

The server makes :math:`\tau` zeroth-order steps on the unperturbed embedding (eq. (5)), with directions
:math:`u_{s,m,p}^{t,i}` on :math:`\sqrt{d_s}\,\mathbb S^{d_s-1}`:

.. math::
    \delta_{s,m,p}^{t,i} = F(x_{s,m}^{t,i}+\lambda u_{s,m,p}^{t,i}, h_m^t)
    - F(x_{s,m}^{t,i}-\lambda u_{s,m,p}^{t,i}, h_m^t),
    \quad G_{s,m}^{t,i} = \frac1P\sum_{p=1}^P \frac{\delta_{s,m,p}^{t,i}}{2\lambda}u_{s,m,p}^{t,i},
    \quad x_{s,m}^{t,i+1} = x_{s,m}^{t,i} - \eta_s G_{s,m}^{t,i},

then returns the P scalars (eq. (6)) :math:`\delta_{c,m,p}^t = F(x_{s,m}^{t,\tau}, h_{m,p}^{t+}) -
F(x_{s,m}^{t,\tau}, h_{m,p}^{t-})`, and the client steps
:math:`x_{c,m}^{t+1} = x_c^t - \eta_c \frac1P\sum_p \frac{\delta_{c,m,p}^t}{2\lambda}u_{c,m,p}^t`.
The main text writes P = 1; App. C.2 (proof of Lemma C.2) defines the average over P perturbations and the
analysis keeps P throughout before setting P = 1 at the end of App. C.1.3. F is the mini-batch mean loss, and the
two evaluations of a pair use the same mini-batch (common random numbers). Aggregation (eq. (7)) with
:math:`w_m = 1/M`, implemented as the step that descends (default ``aggregation="descent"``):

.. math:: x_c^{t+1} = x_c^t + \eta_g \frac1M\sum_m (x_{c,m}^{t+1} - x_c^t),\qquad
          x_s^{t+1} = x_s^t + \eta_g \frac1M\sum_m (x_{s,m}^{t,\tau} - x_s^t).

Discrepancies with the seed, recorded here and not silently fixed:

1. **Sign of eq. (7).** The paper prints :math:`x_c^{t+1} = x_c^t - \eta_g\sum_m w_m(x_{c,m}^{t+1}-x_{c,m}^t)`
   (and the same for :math:`x_s`). Since :math:`x_{c,m}^{t+1}-x_{c,m}^t = -\eta_c G_{c,m}^t` is a descent step,
   the printed minus sign *ascends*. Its own analysis uses the descending form:
   :math:`x_s^{t+1}-x_s^t = -\frac{\eta_g}{M}\sum_m\sum_i \eta_s G_{s,m}^{t,i}` (App. D.1.1, first line of
   :math:`\mathcal K_1`) and :math:`x_c^{t+1}-x_c^t = -\frac{\eta_g}{M}\sum_m \eta_c G_{c,m}^t` (App. D.1.2).
   The default ``aggregation="descent"`` implements the latter; ``aggregation="printed"`` is eq. (7) as printed
   (:math:`x^{t+1} = x^t - \eta_g\frac1M\sum_m(x_m - x^t)`), for the record only.
2. **Which sample the server steps use** (``server_batch``). Pseudocode and text: every one of the :math:`\tau`
   steps uses the same embedding :math:`h_m^t` of the same mini-batch :math:`\xi_m^t` (Algorithm 1 lines 8-11,
   eq. (5) and its footnote, "multiple updates using the unperturbed embedding :math:`h_m^t`"): the default
   ``server_batch="same"``. The analysis writes :math:`G_s(x^{t,i};\xi^t)` too, but its accounting needs the
   stochastic errors of the :math:`\tau` steps to be conditionally unbiased and uncorrelated: K1 of App. C.1.1 /
   D.1.1 replaces :math:`G_s(x^{t,i};\xi^t)` by :math:`\nabla_{x_s} f_\lambda(x^{t,i})` inside an expectation
   although :math:`x^{t,i}` depends on :math:`\xi^t`, and Lemma C.4 ("by the property of martingale difference
   sequence", eq. (31)) and K2 drop the cross terms between steps. That holds for a fresh mini-batch per server
   step, ``server_batch="fresh"``: step i uses :math:`\xi_m^{t,i}` (step 0 uses the client's own
   :math:`\xi_m^t`) and the client uploads the :math:`\tau-1` extra unperturbed embeddings
   :math:`h(x_c^t;\xi_m^{t,i})`.
3. **At which server model the client's loss difference is taken** (``client_delta_at``). Eq. (6) (Algorithm 1
   line 12) takes it at :math:`x_{s,m}^{t,\tau}`, after the server steps: the default
   ``client_delta_at="server_after_tau"``. Algorithm 1 line 13 writes :math:`G_{c,m}^t(\mathbf x^t)`, and the
   analysis (App. C.1.2 and D.1.2, K3: :math:`\mathbb E[G_c(\mathbf x^t;\xi^t)] = \nabla_{x_c} f_\lambda(\mathbf x^t)`)
   needs it at the round's start, :math:`x_s^t`: ``client_delta_at="server_at_start"``.
4. Sec. 5 trains with 50 % partial participation; Algorithm 1 and the analysis use every client each round,
   which is what is implemented. The analysis allows a round-dependent :math:`\eta_s^t` (App. D.2); the step
   sizes here are constant.

MU-Split (Sec. 4.1, Theorem 4.1) is the one-client case: :class:`MUSplit` requires M = 1 and has no global step
(:math:`x^{t+1}` is the client's and the server copy's end point, as App. C.1 writes it, i.e.
:math:`\eta_g = 1`); it is MU-SplitFed with M = 1, :math:`\eta_g = 1`, and no model exchange with a Fed Server.

Randomness (so the per-client loop and the batched path draw the same numbers): client m's mini-batch for server
step i is ``ctx.batch(m, i)`` (i = 0 is :math:`\xi_m^t`; with ``server_batch="same"`` only i = 0 is drawn); the
client directions are :func:`verify.ops.zo.directions` (law ``"sqrt_d_sphere"``) of client m's P Gaussian draws
of the keys ``"u_c"`` and the server directions of step i those of ``("u_s", i)``, regenerated from (seed, round,
keys), never stored. ``draws="device"`` (default) draws each client's P perturbations for one purpose in one call
on the problem's device, ``ctx.randn_block(x, P, [m], *keys)``; ``draws="cpu"`` draws
``ctx.randn_like(x, m, *keys, p)``, p = 0..P-1, one CPU generator each, the same numbers on every device (and the
curves of the runs made before device draws existed). :mod:`verify.ops.zo` says which is which. The batched round
runs the clients in chunks whose draws fit in memory (all at once unless they do not), with the same numbers. The
estimator itself (directions, perturbations, the P-average) is :mod:`verify.ops.zo`'s.

Counting per client and round (``messages()`` = 2P + 1 activation uploads per sample, 2P + :math:`\tau` with a
fresh server batch): up, the 2P + 1 embeddings of the batch (plus the extra unperturbed ones) and
:math:`x_{c,m}^{t+1}` to the Fed Server; down, the P loss differences (one scalar each) and the broadcast
:math:`x_c^{t+1}` (line 14). Forward passes only (zeroth order): client (2P + 1) n (+ the extra embeddings),
server 2P per sample per server step plus 2P n for eq. (6).

Defaults are App. F, Table 6 (:math:`\eta_g = 0.3`, :math:`\eta_s = 0.01`, :math:`\eta_c = 0.005`,
:math:`\lambda = 0.005`) and :math:`\tau = 2` (Sec. 5), P = 1 (main text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import torch
from torch import Tensor
from torch.func import vmap

from sfltheory.errors import ParameterError
from verify.ops import tree, zo
from verify.ops.batch import Batch, weighted_mean
from verify.ops.tree import Params
from verify.problems import Problem

from ..base import Context, ParamSpec, SplitAlgorithm, State, count, draws, eta

SAME, FRESH = "same", "fresh"
AFTER_TAU, AT_START = "server_after_tau", "server_at_start"
DESCENT, PRINTED = "descent", "printed"


# --- pure per-client pieces: the loop calls them per client, the batched path vmaps them over clients ----------
# The estimator (eq. (3), App. C.2) is verify.ops.zo's; these split its evaluation across the cut.


def embed(
    problem: Problem, pc: Mapping[str, Tensor], x: Tensor, U: Mapping[str, Tensor], lam: float, vec: bool
) -> tuple[Tensor, Tensor]:
    r"""Eq. (4): the unperturbed embedding :math:`h(x_c;\xi)` and the P perturbed pairs, stacked as
    ``(P, 2, n, ...)`` (index 0: :math:`x_c+\lambda u_p`, index 1: :math:`x_c-\lambda u_p`)."""
    h = problem.client_forward(pc, x)

    def pair(u: Params) -> Tensor:
        return torch.stack(
            [problem.client_forward(zo.perturb(pc, u, lam), x), problem.client_forward(zo.perturb(pc, u, -lam), x)]
        )

    return h, zo.over_perturbations(pair, U, vec)


def server_step(
    problem: Problem,
    ps: Mapping[str, Tensor],
    h: Tensor,
    y: Tensor,
    w: Tensor,
    U: Mapping[str, Tensor],
    lam: float,
    eta_s: float,
    vec: bool,
) -> tuple[Params, Tensor]:
    r"""One server step: the P loss differences of eq. (5) on the embedding ``h`` and
    :math:`x_s - \eta_s G_s`; returns the new server part and the differences."""

    def loss(p: Params) -> Tensor:
        return weighted_mean(problem.server_loss(p, h, y), w)

    deltas = zo.central_differences(loss, ps, U, lam, vec)
    return tree.add(ps, zo.spsa_estimate(deltas, U, lam), -eta_s), deltas


def client_deltas(problem: Problem, ps: Mapping[str, Tensor], pairs: Tensor, y: Tensor, w: Tensor, vec: bool) -> Tensor:
    r"""Eq. (6): :math:`\delta_{c,p} = F(x_s, h_p^+) - F(x_s, h_p^-)` for the P pairs of :func:`embed`."""

    def diff(hh: Params) -> Tensor:
        two = hh["h"]
        return weighted_mean(problem.server_loss(ps, two[0], y), w) - weighted_mean(
            problem.server_loss(ps, two[1], y), w
        )

    return zo.over_perturbations(diff, {"h": pairs}, vec)


# --- the algorithms ----------------------------------------------------------------------------------------------


class MUSplitFed(SplitAlgorithm):
    """MU-SplitFed (Algorithm 1): zeroth-order on both sides, tau server steps per round, per-client server
    copies, FedAvg-style aggregation with a global step (eq. (7), descending form; see the module docstring)."""

    name = "mu_splitfed"
    title = "MU-SplitFed: zeroth-order split federated learning with tau unbalanced server steps"
    paper = "mu_splitfed"
    source = "Algorithm 1, eqs. (3)-(7); multi-perturbation estimator of App. C.2"
    federated: ClassVar[bool] = True  # a Fed Server aggregates the client parts (model up- and downloads)
    # the batched round's memory ceiling for the draws in bytes (None: verify.ops.clients.memory_budget's); the
    # clients run in chunks that fit, with the same numbers (the draws are per client)
    memory_budget: int | None = None
    takes: ClassVar[tuple[ParamSpec, ...]] = (
        eta("eta_c", 0.005, "client step size (Alg. 1 line 13; App. F: 0.005)"),
        eta("eta_s", 0.01, "server step size (eq. (5) update; App. F: 0.01)"),
        eta("eta_g", 0.3, "global aggregation step size (eq. (7); App. F: 0.3)"),
        count("tau", 2, "server steps per round (Sec. 5 uses 2)"),
        count("P", 1, "perturbations per zeroth-order estimate (App. C.2; main text: 1)"),
        ParamSpec(name="lam", default=0.005, help="smoothing radius lambda of eq. (3) (App. F: 0.005)"),
        ParamSpec(
            name="server_batch",
            default=SAME,
            kind="choice",
            choices=(SAME, FRESH),
            help="same: every server step on h_m^t of the round's mini-batch (Alg. 1, eq. (5)); "
            "fresh: a new mini-batch per server step (what Lemma C.4 / K1-K2 of the analysis need)",
        ),
        ParamSpec(
            name="client_delta_at",
            default=AFTER_TAU,
            kind="choice",
            choices=(AFTER_TAU, AT_START),
            help="server model of the client's loss difference: x_s^{t,tau} (eq. (6)) or x_s^t "
            "(Alg. 1 line 13 G_c(x^t), App. C.1.2/D.1.2)",
        ),
        draws("(client, step, perturbation)"),
        ParamSpec(
            name="aggregation",
            default=DESCENT,
            kind="choice",
            choices=(DESCENT, PRINTED),
            help="descent: x + eta_g mean(x_m - x) (the analysis, App. D.1); "
            "printed: x - eta_g mean(x_m - x) as eq. (7) prints it (ascends)",
        ),
    )

    def init_state(self, problem: Problem, x0: Mapping[str, Params]) -> State:
        """Copies of the global models :math:`x_c^0`, :math:`x_s^0` (the server copies are made in each round)."""
        return {"client": tree.clone(x0["client"]), "server": tree.clone(x0["server"])}

    def messages(self) -> int:
        """Activation uploads per sample per round: the unperturbed embedding and 2P perturbed ones (eq. (4));
        with a fresh server batch, tau unperturbed ones."""
        P, tau = self.p["P"], self.p["tau"]
        return 2 * P + (tau if self.p["server_batch"] == FRESH else 1)

    def directions(self, ctx: Context, like: Mapping[str, Tensor], clients: Sequence[int], *keys: Any) -> Params:
        r"""The P directions of each client of ``clients``, uniform on :math:`\sqrt{d}\,\mathbb S^{d-1}` (d = the size
        of ``like``), on leading axes (client, perturbation), from the Gaussian draws of ``draws``: device draws
        ``ctx.randn_block(like, P, clients, *keys)``, or CPU draws ``ctx.randn_like(like, m, *keys, p)``."""
        P = self.p["P"]
        if self.p["draws"] == zo.CPU_DRAWS:
            z = zo.per_client_draws(lambda m, p: ctx.randn_like(like, m, *keys, p), clients, P)
        else:
            z = ctx.randn_block(like, P, clients, *keys)
        return zo.directions_batched(z, zo.SQRT_D_SPHERE)[0]

    def chunks(self, problem: Problem, x_c: Params, x_s: Params) -> list[list[int]]:
        """The clients of the batched round in chunks whose directions fit in memory
        (:func:`verify.ops.zo.client_chunks`; ``self.memory_budget`` caps it): all M at once while they fit."""
        first = next(iter(x_c.values()))
        per_client = zo.DRAW_COPIES * self.p["P"] * (tree.nbytes(x_c) + tree.nbytes(x_s))
        return zo.client_chunks(problem.M, per_client, first.device, self.memory_budget)

    @torch.no_grad()
    def round(self, t: int, state: State, ctx: Context) -> dict[str, float]:
        """Algorithm 1, round t: each client's embeddings (eq. (4)), tau zeroth-order steps of its server copy (eq.
        (5)), the client's zeroth-order step from the returned loss differences (eq. (6)), then the aggregation
        (eq. (7), in the ``aggregation`` form); returns the drift of both parts."""
        problem = ctx.problem
        M = problem.M
        x_c, x_s = state["client"], state["server"]
        steps = self.p["tau"] if self.p["server_batch"] == FRESH else 1  # distinct mini-batches per client
        batches = [[ctx.batch(m, i) for i in range(steps)] for m in range(M)]
        if ctx.batched:
            parts = [self._batched(problem, ctx, x_c, x_s, batches, c) for c in self.chunks(problem, x_c, x_s)]
            ends_c = {k: torch.cat([pc[k] for pc, _ in parts]) for k in x_c}
            ends_s = {k: torch.cat([ps[k] for _, ps in parts]) for k in x_s}
        else:
            ends = [self._client(problem, ctx, m, x_c, x_s, batches[m]) for m in range(M)]
            ends_c, ends_s = tree.stack([c for c, _ in ends]), tree.stack([s for _, s in ends])
        self._count(problem, ctx, x_c, batches)
        dc = float(tree.sqnorm_batched(tree.sub(ends_c, x_c)).sum())
        ds = float(tree.sqnorm_batched(tree.sub(ends_s, x_s)).sum())
        sign = 1.0 if self.p.get("aggregation", DESCENT) == DESCENT else -1.0
        g = sign * float(self.p.get("eta_g", 1.0))
        state["client"] = tree.add(x_c, tree.sub({k: v.mean(0) for k, v in ends_c.items()}, x_c), g)
        state["server"] = tree.add(x_s, tree.sub({k: v.mean(0) for k, v in ends_s.items()}, x_s), g)
        return {"drift": (dc + ds) / M, "drift_client": dc / M, "drift_server": ds / M}

    # -- the per-client reference ----------------------------------------------------------------------------

    def _client(
        self, problem: Problem, ctx: Context, m: int, x_c: Params, x_s: Params, batches: list[Batch]
    ) -> tuple[Params, Params]:
        """Client m's round: embeddings, tau server steps on its server copy, the client step."""
        lam, eta_s = self.p["lam"], self.p["eta_s"]
        u_c = tree.unstack(self.directions(ctx, x_c, [m], "u_c"))[0]
        b0 = batches[0]
        h0, pairs = embed(problem, x_c, b0.x, u_c, lam, False)
        ps = dict(x_s)
        for i in range(self.p["tau"]):
            if 0 < i < len(batches):  # a fresh mini-batch and its unperturbed embedding
                b, h = batches[i], problem.client_forward(x_c, batches[i].x)
            else:
                b, h = b0, h0
            u_s = tree.unstack(self.directions(ctx, x_s, [m], "u_s", i))[0]
            ps, _ = server_step(problem, ps, h, b.y, b.w, u_s, lam, eta_s, False)
        at = ps if self.p["client_delta_at"] == AFTER_TAU else x_s
        deltas = client_deltas(problem, at, pairs, b0.y, b0.w, False)
        return tree.add(x_c, zo.spsa_estimate(deltas, u_c, lam), -self.p["eta_c"]), ps

    # -- the batched path: clients vmapped (each with its server copy), perturbations vmapped inside ----------

    def _batched(
        self, problem: Problem, ctx: Context, x_c: Params, x_s: Params, batches: list[list[Batch]], clients: list[int]
    ) -> tuple[Params, Params]:
        """The round of the clients ``clients`` at once: their end points stacked on a leading client axis."""
        n = len(clients)
        lam, eta_s, eta_c = self.p["lam"], self.p["eta_s"], self.p["eta_c"]
        b0 = Batch.stack([batches[m][0] for m in clients])
        U_c = self.directions(ctx, x_c, clients, "u_c")  # (n, P, ...)
        h0, pairs = vmap(lambda x, U: embed(problem, x_c, x, U, lam, True))(b0.x, U_c)
        ps: Params = {k: v.expand(n, *v.shape) for k, v in x_s.items()}  # each client's server copy (read only)

        def step(p: Params, h: Tensor, y: Tensor, w: Tensor, U: Params) -> Params:
            return server_step(problem, p, h, y, w, U, lam, eta_s, True)[0]

        for i in range(self.p["tau"]):
            if 0 < i < len(batches[0]):
                b = Batch.stack([batches[m][i] for m in clients])
                h = vmap(lambda x: problem.client_forward(x_c, x))(b.x)
            else:
                b, h = b0, h0
            ps = vmap(step)(ps, h, b.y, b.w, self.directions(ctx, x_s, clients, "u_s", i))
        if self.p["client_delta_at"] == AFTER_TAU:
            deltas = vmap(lambda p, hh, y, w: client_deltas(problem, p, hh, y, w, True))(ps, pairs, b0.y, b0.w)
        else:
            deltas = vmap(lambda hh, y, w: client_deltas(problem, x_s, hh, y, w, True))(pairs, b0.y, b0.w)
        pc = vmap(lambda U, dlt: tree.add(x_c, zo.spsa_estimate(dlt, U, lam), -eta_c))(U_c, deltas)
        return pc, ps

    # -- counters ------------------------------------------------------------------------------------------------

    def _count(self, problem: Problem, ctx: Context, x_c: Params, batches: list[list[Batch]]) -> None:
        P, tau = self.p["P"], self.p["tau"]
        act = problem.activation_bytes
        scalar = torch.finfo(problem.dtype).bits // 8
        for bm in batches:
            n0 = int(bm[0].w.sum())
            extra = sum(int(b.w.sum()) for b in bm[1:])  # fresh server batches' unperturbed embeddings
            server_samples = n0 * tau if len(bm) == 1 else n0 + extra
            ctx.work("client", forward=(2 * P + 1) * n0 + extra)
            ctx.work("server", forward=2 * P * server_samples + 2 * P * n0)
            ctx.upload(((2 * P + 1) * n0 + extra) * act)  # eq. (4) embeddings (and the fresh ones)
            ctx.download(P * scalar)  # the P loss differences of eq. (6)
            if self.federated:
                ctx.upload(tree.nbytes(x_c))  # x_{c,m}^{t+1} to the Fed Server
                ctx.download(tree.nbytes(x_c))  # the broadcast x_c^{t+1} (line 14)


class MUSplit(MUSplitFed):
    """MU-Split (Sec. 4.1, Theorem 4.1): MU-SplitFed with one client, no global step (eta_g = 1) and no Fed
    Server; the client keeps its model between rounds."""

    name = "mu_split"
    title = "MU-Split: zeroth-order split learning with tau unbalanced server steps (one client)"
    source = "Sec. 4.1: Algorithm 1 with M = 1, eqs. (3)-(6); App. C"
    federated = False
    takes = tuple(s for s in MUSplitFed.takes if s.name not in ("eta_g", "aggregation"))

    def init_state(self, problem: Problem, x0: Mapping[str, Params]) -> State:
        """MU-SplitFed's state, on a problem of exactly one client (M = 1, Sec. 4.1); any other M is refused."""
        if problem.M != 1:
            raise ParameterError(
                "M", f"MU-Split is the one-client case (Sec. 4.1); this problem has M = {problem.M} (use mu_splitfed)"
            )
        return super().init_state(problem, x0)
