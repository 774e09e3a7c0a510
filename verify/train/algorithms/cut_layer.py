r"""SFL-V1 and SFL-V2 (cut_layer: Algorithms 1 and 2, and the SFL-V1 the proof of Proposition 1 analyses).

Reference: Justin Dachille, Chao Huang, Xin Liu, "The Impact of Cut Layer Selection in Split Federated Learning"
(seed ``003_60e24e21677c19f3.txt``; year and venue are not printed in the seed text, whose references run to
2024). The round is described in Sec. 3 ("Client Forward Pass" ... "Model Aggregation"), printed as Algorithm 1
(SFL-V1, App. A.2) and Algorithm 2 (SFL-V2, App. A.3); Proposition 1 (Sec. 4, eq. (6)) and its proof (App. B:
Lemma 1 eq. (7), Lemma 2 eq. (11), the updates in B.2-B.3) analyse SFL-V1. SFL-V2 has no result ("left to
future work", Sec. 4), catalogued as ``cut_layer/sfl_v2``.

Notation (paper -> canonical, as ``sfltheory/papers/cut_layer.py``): clients :math:`K` -> ``M``; local iterations
per round :math:`\tau` -> ``K``; step :math:`\eta^t` -> ``eta`` (constant); local epochs :math:`E` ->
``E_epochs``; mini-batch :math:`B_k` -> ``batch``; client :math:`k` -> ``m``. The objective is eq. (1),
:math:`f(\theta)=\sum_k\alpha_kF_k(\theta)`, with :math:`\theta=\{\theta^C;\theta^S\}` split at the cut.

Three classes, because the printed algorithms and the analysed one differ:

**``sfl_v1``: SFL-V1 as printed (Algorithm 1, lines 12-41).** In round t every client m, in parallel, draws one
mini-batch :math:`B_m`, sends :math:`a_m=h(\theta^C;B_m)` (lines 15-17); the training server steps the client's
own server-side copy once (lines 21-24),

.. math:: \theta_m^S = \theta^S - \eta\,\nabla_{\theta^S}F_m(\theta^C,\theta^S;B_m),\qquad
          \nabla a_m = \nabla_a F_m(a_m,\theta^S;B_m),

and the client makes ``E_epochs`` updates "backpropagating using :math:`\nabla a_m(t)`" (lines 28-31),

.. math:: \theta_m^{C,e+1} = \theta_m^{C,e} - \eta\,J_{\theta^C}h(\theta_m^{C,e};B_m)^\top\nabla a_m,\quad e=0..E-1,

then both sides are averaged, :math:`\theta^C\leftarrow\sum_m\alpha_m\theta_m^{C,E}`,
:math:`\theta^S\leftarrow\sum_m\alpha_m\theta_m^S` (lines 34-35, both by the model synchronization server; in Thapa
et al.'s terms the fed server averages the client models, the main server the server copies) and broadcast (lines
36-39). One server step per round; the cut-layer gradient is reused E times.

**``sfl_v1_analysed``: SFL-V1 as the proof analyses it (App. B).** Each client and its server copy make K = tau
split-SGD steps on fresh mini-batches, then both are averaged (Lemma 1's proof, first line of (8); B.2 after (18)):

.. math:: \theta_m^{t,i+1} = \theta_m^{t,i} - \eta\,g_m(\theta_m^{t,i};B_m^{t,i}),\ \theta_m^{t,0}=\theta^t,\qquad
          \theta^{t+1}_s-\theta^t_s = -\eta\sum_m\alpha_m\sum_{i=0}^{\tau-1}g_{s,m}^{t,i}

(the same on the client block, B.3), i.e. :math:`\theta^{t+1}=\sum_m\alpha_m\theta_m^{t,\tau}`: FedAvg on the whole
model, whatever the cut (the paper's point, Sec. 4 after Proposition 1). This is what ``cut_layer/prop1``,
``prop1@proof``, ``lem1``, ``lem2`` and ``tau_def`` bound. It equals ``sfl_v1`` when K = 1 and E_epochs = 1.

**``sfl_v2``: SFL-V2 (Algorithm 2, lines 12-40).** One shared server model, stepped sequentially over the clients'
smashed data in the order of a permutation :math:`\pi` (line 20), client models averaged, server not (line 35):

.. math:: \text{for } m \in \pi:\ \nabla a_m = \nabla_a F_m(a_m,\theta^S;B_m),\ \
          \theta^S \leftarrow \theta^S - \eta\,\nabla_{\theta^S}F_m(a_m,\theta^S;B_m);\qquad
          \theta^C \leftarrow \sum_m\alpha_m\theta_m^{C,E},

with the clients' E stale updates as in SFL-V1. With ``K`` = 1 this is Algorithm 2 as printed. ``K`` > 1 repeats
the whole process on fresh mini-batches, which is Sec. 3's "This process repeats for E local epochs" and what
:math:`\tau=\lceil ED_k/B_k\rceil` counts; the interleaving of the clients' steps on the shared server is then a
choice the paper does not fix (``interleave``): ``step`` (Sec. 3: each repetition lets every client forward in
parallel and the server process them in the order :math:`\pi`) or ``client`` (the reference code: client
:math:`\pi_1` makes all its K steps, then :math:`\pi_2`, ...). With one client SFL-V2 is SFL-V1 (there is one
server copy and nothing to average): ``sfl_v2`` (M = 1) = ``sfl_v1`` (M = 1) for any E, and
= ``sfl_v1_analysed`` (M = 1) for E = 1 and any K.

Update order and optimiser state, stated explicitly. The analysis is of plain SGD with the single step
:math:`\eta^t` (App. B; the experiments of Table 2 use Adam, lr 0.001, batch 64). Reference SFL code gets both
wrong: the public SplitFed code of Thapa et al. (2022), whose SFL-V1/V2 the paper studies (github
``chandra2thapa/SplitFed-When-Federated-Learning-Meets-Split-Learning``, ``SFLV1_ResNet_HAM10000.py`` and
``SFLV2_ResNet_HAM10000.py``; the paper does not say which code its experiments ran), creates the
server's ``torch.optim.Adam`` inside ``train_server``, i.e. anew on every mini-batch, so Adam's moments are reset at
every server step (each server update is Adam's first step, about lr times the sign of the gradient) while each
client's Adam lives for one client's local training in one round; and its SFL-V2 runs each client's whole local
epoch against the shared server before the next client (client-major), in the order of ``np.random.choice`` (a
random permutation per round), not Algorithm 2's one-mini-batch-per-client passes. Here there is no optimiser
state at all (SGD: the state is the global model only); ``order`` = ``random`` draws :math:`\pi` per round from
``ctx.rng("order")`` (Algorithm 2, line 20), ``fixed`` uses 1..M; ``interleave`` names the interleaving.

Choices where the paper is silent or ambiguous (recorded, not silently fixed):

* Algorithms 1-2 print "Update server model" (line 23/24) before "Compute and send gradients :math:`\nabla a_k(t)`";
  Sec. 3 words it in the same order. We compute :math:`\nabla a_m` in the same backward pass as the server gradient,
  at the pre-update server model, as one backward pass does (and the reference code: ``loss.backward()``, then
  ``optimizer.step()``).
* "Backpropagate using :math:`\nabla a_k(t)`" E times: each pass recomputes the client's forward on the same
  :math:`B_m` at its current parameters and pulls back the same (stale) :math:`\nabla a_m` (a VJP). On the quadratic
  the client Jacobian is the identity and this is E equal steps.
* Aggregation weights: Algorithms 1-2 average with :math:`|\mathcal D_m|/\sum_i|\mathcal D_i|` (Alg. 1 lines 34-35,
  Alg. 2 line 35), eq. (1) with general :math:`\alpha_k`; the loop measures :math:`f=\frac1M\sum_mf_m` and the
  reference code averages equally. ``aggregation`` = ``equal`` (default) or ``dataset_size`` (the printed weights;
  equal on a synthetic problem, whose clients have no finite dataset).
* The step :math:`\eta^t` may vary with t in the analysis; it is constant here.
* :math:`\tau=\lceil ED_k/B_k\rceil` depends on k, but the proof uses one tau for all clients; so does ``K`` here.
* Bytes: each client uploads its smashed data (and, per Alg. lines 17, its labels, not counted: activation bytes
  only, as every module counts), downloads :math:`\nabla a_m`, and exchanges its client model with the fed server
  once per round (up, then the average down). The server copies' aggregation in SFL-V1 happens between the training
  server and the model synchronization server, not on a client link, and is not counted.
* The time model's ``server_steps(M)`` is K for SFL-V1 (the copies step in parallel) and M K for SFL-V2 (the
  shared server steps once per client turn, in sequence).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from torch import Tensor

from verify.ops import tree
from verify.ops.batch import Batch
from verify.ops.clients import over_clients
from verify.ops.splitgrad import client_backward, client_backward_eager, server_grads, server_grads_eager
from verify.ops.tree import Params
from verify.problems import Problem

from ..base import Context, ParamSpec, SplitAlgorithm, State, count, eta
from .sl_noniid import local_sgd

PAPER = "cut_layer"

_ETA = eta("eta", 0.05, r"step size \eta^t of every client and server SGD update (constant)")
_AGG = ParamSpec(
    name="aggregation",
    default="equal",
    kind="choice",
    choices=("equal", "dataset_size"),
    help="averaging weights alpha_m: 1/M, or |D_m|/sum|D_i| as Alg. 1 lines 34-35 print",
)
_E = count("E_epochs", 1, "client updates per server step reusing the same cut-layer gradient (Alg. 1-2, line 28/29)")
_K = count("K", 1, "local split-SGD steps per client per round on fresh mini-batches (the paper's tau)")


# --- pure per-client steps (the loops call them with eager=True, the batched paths vmap them) -------------------


def stale_client_updates(
    problem: Problem, pc: Params, x: Tensor, gh: Tensor, eta: float, E: int, *, eager: bool = False
) -> Params:
    r"""E client updates pulling back the same cut-layer gradient ``gh`` through the client at its current
    parameters: :math:`\theta^C\leftarrow\theta^C-\eta J_{\theta^C}h(\theta^C;x)^\top\nabla a` (Alg. 1 lines 28-31)."""
    backward = client_backward_eager if eager else client_backward
    for _ in range(E):
        pc = tree.add(pc, backward(problem, pc, x, gh), -eta)
    return pc


def server_step(
    problem: Problem, ps: Params, h: Tensor, b: Batch, eta: float, *, eager: bool = False
) -> tuple[Params, Tensor, Tensor]:
    """One server SGD step on smashed data ``h``; returns the new server part, dL/dh at the pre-update server
    model, and the loss."""
    loss, gs, gh = (server_grads_eager if eager else server_grads)(problem, ps, h, b)
    return tree.add(ps, gs, -eta), gh, loss


def v1_printed_client(
    problem: Problem, pc: Params, ps: Params, b: Batch, eta: float, E: int, *, eager: bool = False
) -> tuple[Params, Params, Tensor]:
    """Algorithm 1 for one client and its server copy: smash, one server step, E stale client updates."""
    h = problem.client_forward(pc, b.x)
    ps, gh, loss = server_step(problem, ps, h, b, eta, eager=eager)
    return stale_client_updates(problem, pc, b.x, gh, eta, E, eager=eager), ps, loss


# --- shared machinery ------------------------------------------------------------------------------------------


def aggregation_weights(problem: Problem, how: str) -> list[float] | None:
    r"""alpha_m: None for equal weights; else :math:`|D_m| / \sum_i |D_i|` (equal where a problem has no finite
    datasets: :meth:`~verify.problems.base.Problem.client_sizes` is None)."""
    held = None if how == "equal" else problem.client_sizes()
    if held is None:
        return None
    sizes = [float(n) for n in held]
    return [s / sum(sizes) for s in sizes]


def average(trees: Sequence[Mapping[str, Tensor]], alpha: list[float] | None) -> Params:
    r""":math:`\sum_m\alpha_m\theta_m`, the model aggregation (Alg. 1 lines 34-35, Alg. 2 line 35): equal weights for
    ``alpha`` None."""
    return tree.mean(trees, alpha)


def _sqdist(a: Mapping[str, Tensor], b: Mapping[str, Tensor]) -> float:
    return float(tree.sqnorm(tree.sub(a, b)))


class _SFL(SplitAlgorithm):
    paper = PAPER

    def init_state(self, problem: Problem, x0: Mapping[str, Params]) -> State:
        return {"client": tree.clone(x0["client"]), "server": tree.clone(x0["server"])}

    def count_split_step(self, ctx: Context, n: int, E: int) -> None:
        """One mini-batch of n samples through the cut: smashed data up, its gradient down, E client passes."""
        act = ctx.problem.activation_bytes
        ctx.upload(n * act)
        ctx.download(n * act)
        ctx.work("client", forward=n * E, backward=n * E)
        ctx.work("server", forward=n, backward=n)

    def count_sync(self, ctx: Context, pc: Params) -> None:
        """Each client sends its client model to the fed server and receives the average (once per round)."""
        for _ in range(ctx.problem.M):
            ctx.upload(tree.nbytes(pc))
            ctx.download(tree.nbytes(pc))


# --- SFL-V1 ----------------------------------------------------------------------------------------------------


class SFLV1(_SFL):
    """SFL-V1 as printed (cut_layer Algorithm 1): one server step per client copy, E stale client updates, both sides
    averaged. See the module docstring."""

    name = "sfl_v1"
    title = "SFL-V1 as printed (per-client server copies, one server step, E stale client updates)"
    source = "Algorithm 1 (App. A.2), lines 12-41; Sec. 3"
    takes = (_ETA, _E, _AGG)

    def server_steps(self, M: int) -> float:
        """One: each client's server copy steps once per round, the copies in parallel (Alg. 1 lines 21-24)."""
        return 1.0

    def round(self, t: int, state: State, ctx: Context) -> dict[str, float]:
        """Alg. 1 lines 12-41: every client's mini-batch through the cut, one step of its server copy, E client
        updates reusing the cut-layer gradient, then both sides averaged; returns the drift and the batch loss."""
        problem = ctx.problem
        x_c, x_s = state["client"], state["server"]
        step, E = self.p["eta"], self.p["E_epochs"]
        per = [ctx.batch(m, 0) for m in range(problem.M)]
        if ctx.batched:
            b = Batch.stack(per)
            pcs, pss, losses = over_clients(
                lambda x, y, w: v1_printed_client(problem, x_c, x_s, Batch(x, y, w), step, E),
                b.x, b.y, b.w, owner=problem, purpose="sfl_v1", randomness="different",
            )  # fmt: skip
            ends_c, ends_s, loss = tree.unstack(pcs), tree.unstack(pss), float(losses.mean())
        else:
            ends_c, ends_s, ls = [], [], []
            for b in per:
                pc, ps, lo = v1_printed_client(problem, x_c, x_s, b, step, E, eager=True)
                ends_c.append(pc)
                ends_s.append(ps)
                ls.append(float(lo))
            loss = sum(ls) / len(ls)
        for b in per:
            self.count_split_step(ctx, int(b.w.sum()), E)
        self.count_sync(ctx, x_c)
        return _finish_v1(self, problem, state, ends_c, ends_s, loss)


class SFLV1Analysed(_SFL):
    """SFL-V1 as the proof of Proposition 1 analyses it (cut_layer App. B): K split-SGD steps per client and server
    copy, then both averaged (FedAvg on the whole model). See the module docstring."""

    name = "sfl_v1_analysed"
    title = "SFL-V1 as analysed (K local split-SGD steps on both sides, then averaging)"
    source = "App. B: Lemma 1 proof eq. (8), B.2 (18)-(19), B.3; Proposition 1 eq. (6)"
    takes = (_ETA, _K, _AGG)

    def server_steps(self, M: int) -> float:
        """K: each server copy makes K steps per round, the copies in parallel (App. B)."""
        return float(self.p["K"])

    def round(self, t: int, state: State, ctx: Context) -> dict[str, float]:
        """App. B (Lemma 1's proof, eq. (8); B.2-B.3): each client and its server copy make K split-SGD steps on
        fresh mini-batches, then both sides are averaged; returns the drift and the batch loss."""
        problem = ctx.problem
        x_c, x_s = state["client"], state["server"]
        step, K = self.p["eta"], self.p["K"]
        per = [Batch.stack([ctx.batch(m, i) for i in range(K)]) for m in range(problem.M)]
        if ctx.batched:
            b = Batch.stack(per)  # axes (client, step, sample)
            pcs, pss, losses = over_clients(
                lambda x, y, w: local_sgd(problem, x_c, x_s, Batch(x, y, w), step),
                b.x, b.y, b.w, owner=problem, purpose="sfl_v1_analysed", randomness="different",
            )  # fmt: skip
            ends_c, ends_s, loss = tree.unstack(pcs), tree.unstack(pss), float(losses.mean())
        else:
            ends_c, ends_s, ls = [], [], []
            for b in per:
                pc, ps, lo = local_sgd(problem, x_c, x_s, b, step, eager=True)
                ends_c.append(pc)
                ends_s.append(ps)
                ls.append(float(lo.mean()))
            loss = sum(ls) / len(ls)
        for b in per:
            for i in range(K):
                self.count_split_step(ctx, int(b.w[i].sum()), 1)
        self.count_sync(ctx, x_c)
        return _finish_v1(self, problem, state, ends_c, ends_s, loss)


def _finish_v1(
    alg: SplitAlgorithm, problem: Problem, state: State, ends_c: list[Params], ends_s: list[Params], loss: float
) -> dict[str, float]:
    """Drift before aggregation, then theta^C, theta^S <- sum_m alpha_m theta_m (Alg. 1 lines 34-35)."""
    dc = [_sqdist(c, state["client"]) for c in ends_c]
    ds = [_sqdist(s, state["server"]) for s in ends_s]
    alpha = aggregation_weights(problem, alg.p["aggregation"])
    state["client"] = average(ends_c, alpha)
    state["server"] = average(ends_s, alpha)
    M = len(dc)
    return {
        "drift": (sum(dc) + sum(ds)) / M,
        "drift_client": sum(dc) / M,
        "drift_server": sum(ds) / M,
        "batch_loss": loss,
    }


# --- SFL-V2 ----------------------------------------------------------------------------------------------------


class SFLV2(_SFL):
    """SFL-V2 (cut_layer Algorithm 2): one shared server model stepped sequentially over the clients' smashed data in
    the order of a permutation per round; client models averaged. See the module docstring."""

    name = "sfl_v2"
    title = "SFL-V2 (shared server model, sequential in a per-round order; client models averaged)"
    source = "Algorithm 2 (App. A.3), lines 12-40; Sec. 3"
    takes = (
        _ETA,
        _E,
        ParamSpec(
            name="K",
            default=1,
            kind="int",
            low=1,
            help="repetitions of the round's process on fresh mini-batches (1: Algorithm 2 as printed; Sec. 3's E)",
        ),
        ParamSpec(
            name="order",
            default="random",
            kind="choice",
            choices=("random", "fixed"),
            help="server's order over the clients: a random permutation per round (Alg. 2 line 20), or 1..M",
        ),
        ParamSpec(
            name="interleave",
            default="step",
            kind="choice",
            choices=("step", "client"),
            help="with K > 1: every client's i-th step before any (i+1)-th (Sec. 3), or client by client (ref. code)",
        ),
        _AGG,
    )

    def server_steps(self, M: int) -> float:
        """M K: the shared server steps once per client turn, in sequence (Alg. 2 line 20; K repetitions)."""
        return float(M * self.p["K"])

    def order(self, problem: Problem, ctx: Context) -> list[int]:
        r"""The server's order over the clients this round: the permutation :math:`\pi` of Alg. 2 line 20 drawn from
        ``ctx``, or 0..M-1 (``order="fixed"``)."""
        if self.p["order"] == "fixed":
            return list(range(problem.M))
        return [int(i) for i in torch.randperm(problem.M, generator=ctx.rng("order")).tolist()]

    def round(self, t: int, state: State, ctx: Context) -> dict[str, float]:
        r"""Alg. 2 lines 12-40, K times on fresh mini-batches (interleaved as ``interleave`` says): the shared server
        steps over the clients' smashed data in the order :math:`\pi`, each client makes E stale updates; the client
        models are averaged, the server model is not (line 35). Returns the drift and the batch loss."""
        problem = ctx.problem
        x_c, x_s = state["client"], state["server"]
        step, E, K = self.p["eta"], self.p["E_epochs"], self.p["K"]
        M = problem.M
        pi = self.order(problem, ctx)
        ps = x_s
        losses: list[float] = []
        pcs: list[Params] = [x_c] * M
        if self.p["interleave"] == "client" and K > 1:
            # client-major: client pi_1 makes all its K steps on the shared server, then pi_2, ... (exact loop)
            for m in pi:
                pc = x_c
                for i in range(K):
                    b = ctx.batch(m, i)
                    h = problem.client_forward(pc, b.x)
                    ps, gh, lo = server_step(problem, ps, h, b, step, eager=True)
                    pc = stale_client_updates(problem, pc, b.x, gh, step, E, eager=True)
                    losses.append(float(lo))
                    self.count_split_step(ctx, int(b.w.sum()), E)
                pcs[m] = pc
        else:
            for i in range(K):
                per = [ctx.batch(m, i) for m in range(M)]
                if ctx.batched:
                    # the clients' forward and backward passes are independent: vmapped; the server stays a loop
                    b = Batch.stack(per)
                    stacked = tree.stack(pcs)
                    H = over_clients(problem.client_forward, stacked, b.x, owner=problem, purpose="sfl_v2 forward")
                    ghs: dict[int, Tensor] = {}
                    for m in pi:
                        ps, ghs[m], lo = server_step(problem, ps, H[m], b[m], step)
                        losses.append(float(lo))
                    GH = torch.stack([ghs[m] for m in range(M)])
                    pcs = tree.unstack(
                        over_clients(lambda pc, x, gh: stale_client_updates(problem, pc, x, gh, step, E),
                                     stacked, b.x, GH, owner=problem, purpose="sfl_v2 backward")
                    )  # fmt: skip
                else:
                    hs = [problem.client_forward(pcs[m], per[m].x) for m in range(M)]
                    gl: dict[int, Tensor] = {}
                    for m in pi:
                        ps, gl[m], lo = server_step(problem, ps, hs[m], per[m], step, eager=True)
                        losses.append(float(lo))
                    pcs = [
                        stale_client_updates(problem, pcs[m], per[m].x, gl[m], step, E, eager=True) for m in range(M)
                    ]
                for bm in per:
                    self.count_split_step(ctx, int(bm.w.sum()), E)
        self.count_sync(ctx, x_c)
        dc = [_sqdist(c, x_c) for c in pcs]
        ds = _sqdist(ps, x_s)
        state["client"] = average(pcs, aggregation_weights(problem, self.p["aggregation"]))
        state["server"] = ps  # Alg. 2 line 35: the shared server model is not aggregated
        return {
            "drift": sum(dc) / M + ds,
            "drift_client": sum(dc) / M,
            "drift_server": ds,
            "batch_loss": sum(losses) / len(losses),
        }


__all__ = [
    "SFLV1",
    "SFLV2",
    "SFLV1Analysed",
    "aggregation_weights",
    "server_step",
    "stale_client_updates",
    "v1_printed_client",
]
