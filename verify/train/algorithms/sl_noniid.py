r"""Split learning and FedAvg with a global learning rate (sl_noniid, Algorithms 1 and 2).

Reference: Pengchao Han, Chao Huang, Geng Tian, Ming Tang, Xin Liu, "Convergence Analysis of Split Learning on
Non-IID Data", 2023 (seed ``002_56e5daea794305d7.txt``), Sec. 2 eqs. (2)-(4) and Algorithm 1 (SL), Algorithm 2
(FedAvg, in the appendix), App. A (peer-to-peer and centralized modes).

SL (Algorithm 1): in round r a subset S of ``n`` clients is sampled and ordered; client i starts from the model
the previous client finished with (eq. (2): :math:`x_i^{(r,0)} = x^r` for i = 1, else :math:`x_{i-1}^{(r,K)}`),
makes K split-SGD steps (eq. (3): :math:`x_i^{(r,k+1)} = x_i^{(r,k)} - \eta_l g_i(x_i^{(r,k)})`, the client and
the server each stepping their part), and the global update is (eq. (4))

.. math:: x^{r+1} = x^r + \eta_g\,(x_{|S|}^{(r,K)} - x^r).

FedAvg (Algorithm 2): every client of S starts from :math:`x^r`, makes K local SGD steps on the whole model,
and :math:`x^{r+1} = x^r + \eta_g \frac{1}{|S|}\sum_{i\in S}(x_i^{(r,K)} - x^r)`.

The peer-to-peer and centralized modes of SL (App. A) compute the same iterates; they differ only in who
sends the client-side model to whom, which is what ``mode`` changes in the byte counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import torch
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops import tree
from verify.ops.batch import Batch
from verify.ops.clients import over_clients
from verify.ops.splitgrad import grads, grads_eager
from verify.ops.tree import Params
from verify.problems import Problem

from ..base import Context, ParamSpec, SplitAlgorithm, State, count, eta


def local_sgd(
    problem: Problem, pc: Params, ps: Params, batches: Batch, eta_l: float | Tensor, *, eager: bool = False
) -> tuple[Params, Params, Tensor]:
    """K split-SGD steps (the batches carry a leading K axis); returns the new parts and the K losses.

    A pure function of its arguments: the batched path vmaps it over clients; the per-client loop calls it
    with ``eager=True`` (plain autograd, see :func:`verify.ops.splitgrad.grads_eager`)."""
    oracle = grads_eager if eager else grads
    losses = []
    for k in range(batches.x.shape[0]):
        b = batches[k]
        loss, gc, gs = oracle(problem, pc, ps, b)
        pc = tree.add(pc, gc, -eta_l)
        ps = tree.add(ps, gs, -eta_l)
        losses.append(loss)
    return pc, ps, torch.stack(losses)


class _Shared(SplitAlgorithm):
    """What SL and FedAvg share: parameters, participation, the global step."""

    paper = "sl_noniid"
    takes: ClassVar[tuple[ParamSpec, ...]] = (
        eta("eta_l", 0.05, "local learning rate (each client/server SGD step)"),
        eta("eta_g", 1.0, "global learning rate (eq. (4))"),
        count("K", 1, "local steps per client per round"),
        ParamSpec(name="n", default=0, kind="int", low=0, help="clients per round (0: all M)"),
        ParamSpec(
            name="order",
            default="random",
            kind="choice",
            choices=("random", "fixed"),
            help="SL visiting order: a random permutation per round, or 1..M",
        ),
        ParamSpec(
            name="mode",
            default="centralized",
            kind="choice",
            choices=("centralized", "p2p"),
            help="who hands the client model on (App. A); changes bytes only",
        ),
    )

    def init_state(self, problem: Problem, x0: Mapping[str, Params]) -> State:
        n = self.p["n"] or problem.M
        if n > problem.M:
            raise ParameterError("n", f"must be <= M = {problem.M} clients (got {n})")
        return {"client": tree.clone(x0["client"]), "server": tree.clone(x0["server"])}

    def participants(self, t: int, problem: Problem, ctx: Context) -> list[int]:
        """The clients of round t, in visiting order (eq. (2)): a random subset of n, shuffled unless fixed."""
        n = self.p["n"] or problem.M
        order = self.p.get("order", "fixed")
        if order == "fixed" and n == problem.M:
            return list(range(problem.M))
        chosen = torch.randperm(problem.M, generator=ctx.rng("participants"))[:n].tolist()
        return sorted(chosen) if order == "fixed" else chosen

    def global_step(self, state: State, pc: Params, ps: Params) -> None:
        """x^{r+1} = x^r + eta_g (x_end - x^r) on both parts (eq. (4))."""
        g = self.p["eta_g"]
        state["client"] = tree.add(state["client"], tree.sub(pc, state["client"]), g)
        state["server"] = tree.add(state["server"], tree.sub(ps, state["server"]), g)


class SplitLearning(_Shared):
    """Split learning with a global learning rate: clients one after another (sl_noniid Algorithm 1)."""

    name = "sl"
    title = "Split learning with a global learning rate"
    source = "Algorithm 1, eqs. (2)-(4)"
    batchable = False  # sequential by definition

    def round(self, t: int, state: State, ctx: Context) -> dict[str, float]:
        """Algorithm 1, round r: the sampled clients in order, each making K split-SGD steps from the model its
        predecessor finished with (eqs. (2)-(3)), then the global step (eq. (4)); returns the clients' mean drift."""
        problem = ctx.problem
        pc, ps = state["client"], state["server"]
        K = self.p["K"]
        order = self.participants(t, problem, ctx)
        act_bytes = problem.activation_bytes
        drift = []
        for pos, m in enumerate(order):
            if pos > 0:
                self.hand_over(ctx, pc)
            b = Batch.stack([ctx.batch(m, k) for k in range(K)])
            pc, ps, _ = local_sgd(problem, pc, ps, b, self.p["eta_l"], eager=True)
            n = int(b.w.sum())
            ctx.work("client", forward=n, backward=n)
            ctx.work("server", forward=n, backward=n)
            ctx.upload(n * act_bytes)  # activations up
            ctx.download(n * act_bytes)  # their gradients down
            drift.append(float(tree.sqnorm(tree.sub(pc, state["client"])) + tree.sqnorm(tree.sub(ps, state["server"]))))
        ctx.download(tree.nbytes(state["client"]))  # the last client requests x_c^r (step 13)
        self.global_step(state, pc, ps)
        return {"drift": sum(drift) / len(drift)}

    def hand_over(self, ctx: Context, pc: Params) -> None:
        """The next client gets the client-side model: from the previous client (p2p) or via the server."""
        ctx.upload(tree.nbytes(pc))
        if self.p["mode"] == "centralized":
            ctx.download(tree.nbytes(pc))


class FedAvg(_Shared):
    """FedAvg with a global learning rate (sl_noniid Algorithm 2): the whole model on each client, in parallel."""

    name = "fedavg"
    title = "FedAvg with a global learning rate"
    source = "Algorithm 2 (appendix)"
    takes = tuple(s for s in _Shared.takes if s.name not in ("order", "mode"))

    def round(self, t: int, state: State, ctx: Context) -> dict[str, float]:
        """Algorithm 2, round r: every sampled client makes K SGD steps on the whole model from :math:`x^r`, in
        parallel, then the global step on their mean; returns the clients' mean drift."""
        problem = ctx.problem
        K = self.p["K"]
        clients = sorted(self.participants(t, problem, ctx))
        x_c, x_s = state["client"], state["server"]
        whole = tree.nbytes(x_c) + tree.nbytes(x_s)
        if ctx.batched:
            # one gather for every client's K batches (axes client, step, sample), the clients vmapped in chunks
            # that fit the device, the drift and the average on the stacked trees: no per-client Python work
            b = ctx.batch_grid(clients, K)

            def sums(out: tuple[Params, Params, Tensor]) -> tuple[Params, Params, Tensor]:
                """A chunk's end models summed, and its drifts: the average is taken chunk by chunk."""
                pcs, pss, _ = out
                drifts = tree.sqnorm_batched(tree.sub(pcs, x_c)) + tree.sqnorm_batched(tree.sub(pss, x_s))
                return {k: v.sum(0) for k, v in pcs.items()}, {k: v.sum(0) for k, v in pss.items()}, drifts.sum()

            sum_c, sum_s, drift_sum = over_clients(
                lambda x, y, w: local_sgd(problem, x_c, x_s, Batch(x, y, w), self.p["eta_l"]),
                b.x, b.y, b.w, owner=problem, purpose="fedavg", randomness="different", reduce=sums,
            )  # fmt: skip
            samples = [int(n) for n in b.w.sum(dim=(1, 2)).tolist()]
            n = len(clients)
            drift = float(drift_sum) / n
            mean_c = {k: v / n for k, v in sum_c.items()}
            mean_s = {k: v / n for k, v in sum_s.items()}
        else:
            ends_c, ends_s, samples, drifts = [], [], [], []
            for m in clients:
                bm = Batch.stack([ctx.batch(m, k) for k in range(K)])
                pc, ps, _ = local_sgd(problem, x_c, x_s, bm, self.p["eta_l"], eager=True)
                ends_c.append(pc)
                ends_s.append(ps)
                samples.append(int(bm.w.sum()))
                drifts.append(float(tree.sqnorm(tree.sub(pc, x_c)) + tree.sqnorm(tree.sub(ps, x_s))))
            drift = sum(drifts) / len(drifts)
            mean_c, mean_s = tree.mean(ends_c), tree.mean(ends_s)
        for n in samples:
            ctx.work("client", forward=n, backward=n)
            ctx.download(whole)
            ctx.upload(whole)
        self.global_step(state, mean_c, mean_s)
        return {"drift": drift}
