r"""HERON-SFL: zeroth-order clients with an auxiliary head, a first-order server (heron_sfl, Sec. IV).

Reference: Zhoubin Kou, Zihan Chen, Jing Yang, Cong Shen, "Lean Clients, Full Accuracy: Hybrid Zeroth- and
First-Order Split Federated Learning" (University of Virginia; the seed prints no venue or arXiv id), seed
``001_e8dcbf2a405221d7.txt``: Sec. III-A (SFL with an auxiliary network), Sec. III-B eqs. (2)-(5) (the
estimator), Sec. IV steps 1-4 eqs. (6)-(8) (the algorithm), App. A eqs. (16), (44)-(45) (the analysed
updates), Lemma 5 (the direction law of Theorem 2), Table I (costs per local update).

Notation (paper -> canonical): N -> ``M`` clients, h -> ``K`` local steps, :math:`\mu` -> ``lam`` (smoothing
radius), :math:`\eta_c` (:math:`\eta_l` in (6)) -> ``eta_c``, :math:`\eta_s` -> ``eta_s``, B -> ``batch``, the
upload period k -> ``l``. The local model is :math:`\theta_l = \{\theta_c, \theta_a\}` (client part and
auxiliary head), of dimension :math:`d = |\theta_c| + |\theta_a|`.

Round t (all N clients, as in Sec. IV and the analysis; ``n`` < N draws n of them uniformly without replacement
each round, the partial participation of the experiments of Sec. VI-B5, which neither the algorithm nor the
analysis states: the steps below then run over the drawn clients, and (8) averages theirs):

1. every client starts from the broadcast :math:`\theta_{l,i}^{t,0} = \{\theta_c^t, \theta_a^t\}`;
2. it makes h zeroth-order steps on the local loss :math:`f_{l,i}(\theta_l) = \ell(\theta_a(\theta_c(\xi)))`
   through its auxiliary head (eq. (6), read as the recursion
   :math:`\theta_{l,i}^{t,m+1} = \theta_{l,i}^{t,m} - \eta_c \widehat\nabla f_{l,i}(\theta_{l,i}^{t,m};\xi_i^{t,m})`,
   m = 0..h-1, a fresh mini-batch per step), with the estimator (2) averaged over ``P`` directions,

   .. math:: \widehat\nabla f_{l,i}(\theta_l;\xi) = \frac1P\sum_{p=1}^P \frac{s}{\mu}
             \big[f_{l,i}(\theta_l + \mu u_p;\xi) - f_{l,i}(\theta_l;\xi)\big]\,u_p,

   both :math:`\theta_c` and :math:`\theta_a` perturbed jointly (the client never back-propagates: the head is
   updated by zeroth order too, as (6) updates :math:`\theta_l`);
3. at local steps m = 0, l, 2l, ... < h the client uploads the smashed data :math:`\theta_{c,i}^{t,m}(\xi_i^{t,m})`
   of that step's mini-batch (with labels; the unperturbed forward pass of the estimator computes them) and the
   server trains on them by first-order SGD (no gradient goes back to the client);
4. the Fed-Server averages the local models (eq. (8)):
   :math:`\theta_l^{t+1} = \frac1N\sum_i \theta_{l,i}^{t,h}` (client part and head); the server model needs
   no aggregation.

Direction law (``direction``), each the paper's:

* ``"unit_sphere"`` (default): :math:`u_p` uniform on the unit sphere of :math:`\mathbb R^d`, scale s = d --
  eq. (2) with Definition 1 (3) and Lemma 1 (18) (the setting of Theorem 1);
* ``"sqrt_d_sphere"``: :math:`u_p` uniform on the sphere of radius :math:`\sqrt d`, s = 1 -- Lemma 5 ("drawing
  :math:`u_i^t` uniformly from the sphere of radius :math:`\sqrt d`", the setting of Theorem 2, after [26]);
* ``"gaussian"``: :math:`u_p \sim \mathcal N(0, I_d)`, s = 1 -- the text after (2) ("drawn from either a Gaussian
  or a Uniform ball") with the representation (4) of [41], which has no factor d.

All three are unbiased for :math:`\nabla f_{l,i}` on a quadratic (the second-order term is odd in u).

Server update (``server``), where the text and the analysis differ:

* ``"sequential"`` (default; Sec. IV step 3, "each client's smashed data is processed one-by-one" (SFLV2), and
  App. A (44)(a), whose sum runs over the sequential iterates :math:`\theta_{s,i}^t`): one step
  :math:`\theta_s \leftarrow \theta_s - \eta_s \nabla_{\theta_s}\ell(\theta_s; s)` per upload, in the order
  (upload slot, client);
* ``"sum"`` (eq. (7) as printed): one step at :math:`\theta_s^t` with the *sum* over clients of each client's
  mean gradient on its uploaded samples,
  :math:`\theta_s^{t+1} = \theta_s^t - \eta_s\sum_i \frac{1}{|\xi_i|}\sum_{\xi\in\xi_i}
  \nabla\ell(\theta_s^t;\theta_{c,i}(\xi))`
  (the paper's :math:`\frac1{|\mathcal D_i|}\sum_{\xi\in\mathcal D_i}` over the whole local set becomes the
  uploaded mini-batches).

With ``l = K`` each client uploads once per round, at m = 0, i.e. the smashed data :math:`\theta_c^t(\xi)` of (7)
and (44): that is the analysed setting. Table I's per-update cost :math:`pq + 2(|\theta_c|+|\theta_a|)`
counts one smashed batch per local update, i.e. ``l = 1`` (the default).

Randomness: client m's mini-batch of local step k is ``ctx.batch(m, k)``; its P directions at step k are
regenerated from Gaussian draws (normalised jointly for the sphere laws), so the batched and per-client paths, and
a resumed run, use the same numbers; no direction is stored in the state. ``draws="device"`` (default) draws the
joint tree :math:`\theta_l` of each client in one call on the problem's device,
``ctx.randn_block(joint(theta_c, theta_a), P, [m], "zo", k)``; ``draws="cpu"`` draws
``ctx.randn_like(theta_c, "zo", m, k, p, "client")`` and ``ctx.randn_like(theta_a, "zo", m, k, p, "aux")``, one
CPU generator each, the same numbers on every device (and the curves of the runs made before device draws
existed); :mod:`verify.ops.zo` says which is which. The batched round runs the clients in chunks whose draws fit
in memory (all at once unless they do not), with the same numbers. The estimator (directions, perturbations, the
P-average) is :mod:`verify.ops.zo`'s, the form ``"forward"``.

Counted: per local step (P + 1) forward passes of the client and the head on the batch (no backward), per
upload the smashed data up and one server forward/backward; per round each client downloads and uploads
:math:`\theta_c, \theta_a`. Nothing goes down per batch (the decoupled protocol of Table I).

Discrepancies (recorded, not fixed):

* (6) sums :math:`\widehat\nabla f(\theta_{l,i}^{t,m})` over m = 1..h, one index ahead of the iterate it updates;
  implemented as the recursion above (m = 0..h-1), which is what (16) and Lemma 3 analyse.
* (6) writes the step :math:`\eta_l`, the analysis (16) :math:`\eta_c`; they are one quantity (``eta_c``).
* (2) has one direction and states u "from either a Gaussian or a Uniform ball"; Definition 1 and Lemma 1 use
  the unit sphere (with the factor d), Lemma 5 the :math:`\sqrt d`-sphere (without it), and (4) prints the
  unit-sphere gradient without the factor d that (18) has. The three laws are the variants above; ``P > 1``
  averages P independent copies of (2) (Sec. VI-B6 counts "perturbations per epoch", not per step; P = 1 is
  (2) as printed).
* (7) is a single step at :math:`\theta_s^t` with a sum over clients, while the text and (44)(a) process the
  clients sequentially: both are implemented (``server``).
* Sec. IV step 2 says "every k local steps" without giving k (nor when within the round); the analysis (7)
  uses the smashed data at :math:`\theta_c^t`, which is the first slot (m = 0) here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch import Tensor
from torch.func import vmap

from sfltheory.errors import ParameterError
from verify.ops import tree, zo
from verify.ops.batch import Batch, weighted_mean
from verify.ops.splitgrad import server_grads
from verify.ops.tree import Params
from verify.problems import Problem

from ..base import Context, ParamSpec, SplitAlgorithm, State, count, draws, eta

DIRECTIONS = zo.LAWS
# the client part and the head as one tree theta_l (the estimator perturbs them jointly), keys prefixed by part
CLIENT, AUX = "client:", "aux:"


def local_loss(problem: Problem, pc: Mapping[str, Tensor], pa: Mapping[str, Tensor], b: Batch) -> Tensor:
    """The client's local loss through its auxiliary head, :math:`f_{l,i}(\\theta_c, \\theta_a; \\xi)`."""
    return weighted_mean(problem.aux_loss(pa, problem.client_forward(pc, b.x), b.y), b.w)


def joint(pc: Mapping[str, Tensor], pa: Mapping[str, Tensor]) -> Params:
    r"""The local model :math:`\theta_l = \{\theta_c, \theta_a\}` as one tree (client tensors first)."""
    return {**{CLIENT + k: v for k, v in pc.items()}, **{AUX + k: v for k, v in pa.items()}}


def unjoint(theta: Mapping[str, Tensor]) -> tuple[Params, Params]:
    """The client part and the head of a tree made by :func:`joint`."""
    pc = {k.removeprefix(CLIENT): v for k, v in theta.items() if k.startswith(CLIENT)}
    pa = {k.removeprefix(AUX): v for k, v in theta.items() if k.startswith(AUX)}
    return pc, pa


def zo_step(
    problem: Problem,
    pc: Params,
    pa: Params,
    zc: Params,
    za: Params,
    b: Batch,
    lam: float,
    eta_c: float,
    law: str,
    batched_p: bool = True,
) -> tuple[Params, Params, Tensor, Tensor]:
    r"""One local step of eq. (6) with the estimator (2) (:mod:`verify.ops.zo`, the form ``"forward"``) averaged
    over the P directions of ``law`` drawn as ``zc``, ``za`` (normalised jointly: u is uniform on the sphere of
    :math:`\mathbb R^{|\theta_c|+|\theta_a|}` for the sphere laws).

    Returns the new client part and head, the local loss at the unperturbed point and the smashed data of the
    batch (that forward pass's cut-layer output, what the client uploads). A pure function: the per-client loop
    calls it per client (``batched_p=False`` evaluates the P perturbed losses one by one: the reference), the
    batched path vmaps it over the clients (the P perturbed losses in one vmapped forward)."""
    U, s = zo.directions(joint(zc, za), law)
    h = problem.client_forward(pc, b.x)
    f0 = weighted_mean(problem.aux_loss(pa, h, b.y), b.w)

    def loss(theta: Params) -> Tensor:
        return local_loss(problem, *unjoint(theta), b)

    fp = zo.forward_values(loss, joint(pc, pa), U, lam, batched_p)
    gc, ga = unjoint(zo.forward_estimate(fp, f0, U, lam, s))
    return tree.add(pc, gc, -eta_c), tree.add(pa, ga, -eta_c), f0, h


class HeronSFL(SplitAlgorithm):
    """HERON-SFL (Kou, Chen, Yang, Shen): zeroth-order clients with an auxiliary head, first-order server.

    See the module docstring for the algorithm, its variants and the discrepancies found in the paper."""

    name = "heron_sfl"
    title = "HERON-SFL: zeroth-order clients with auxiliary heads, first-order server"
    paper = "heron_sfl"
    source = "Sec. IV steps 1-4, eqs. (2), (6)-(8); App. A (16), (44)"
    # the batched round's memory ceiling for the draws in bytes (None: verify.ops.clients.memory_budget's); the
    # clients run in chunks that fit, with the same numbers (the draws are per client)
    memory_budget: int | None = None
    takes = (
        eta("eta_c", 1e-3, "client step of the zeroth-order local updates (eq. (6); eta_l there)"),
        eta("eta_s", 0.05, "server step (eq. (7))"),
        count("K", 1, "local zeroth-order steps per round (the paper's h)"),
        ParamSpec(name="lam", default=1e-3, help="smoothing radius of the estimator (2) (the paper's mu)"),
        count("P", 1, "directions averaged per estimate (P = 1 is eq. (2) as printed)"),
        count("l", 1, "upload period: smashed data go to the server at local steps 0, l, 2l, ... (the paper's k)"),
        ParamSpec(
            name="direction",
            default="unit_sphere",
            kind="choice",
            choices=DIRECTIONS,
            help="direction law: unit sphere with factor d (eqs. (2), (3), (18)), sqrt(d)-sphere (Lemma 5) "
            "or Gaussian (eq. (4))",
        ),
        draws("(client, step, perturbation, part)"),
        ParamSpec(
            name="server",
            default="sequential",
            kind="choice",
            choices=("sequential", "sum"),
            help="server update: one SGD step per upload in sequence (Sec. IV, (44)) or one step with the "
            "sum of the clients' gradients at theta_s^t (eq. (7))",
        ),
        ParamSpec(
            name="n",
            default=0,
            kind="int",
            low=0,
            help="clients per round, drawn uniformly without replacement (0: all N, Sec. IV and the analysis; "
            "n < N: the partial participation of Sec. VI-B5's experiments)",
        ),
    )

    def validate(self) -> None:
        """The upload period ``l`` is at most ``K``: at least one upload (at local step 0) per round."""
        if self.p["l"] > self.p["K"]:
            raise ParameterError("l", f"the upload period must be <= K = {self.p['K']} local steps (got {self.p['l']})")

    def init_state(self, problem: Problem, x0: Mapping[str, Params]) -> State:
        r"""Copies of :math:`\theta_c`, :math:`\theta_s` and the auxiliary head :math:`\theta_a` (a problem without a
        head is refused)."""
        if "aux" not in x0:
            raise ParameterError("aux", "HERON-SFL needs an auxiliary head on the client (build the problem with aux)")
        if self.p["n"] > problem.M:
            raise ParameterError("n", f"must be <= M = {problem.M} clients (got {self.p['n']})")
        return {"client": tree.clone(x0["client"]), "server": tree.clone(x0["server"]), "aux": tree.clone(x0["aux"])}

    def uploads(self) -> list[int]:
        """The local steps whose smashed data go to the server: 0, l, 2l, ... < K."""
        return list(range(0, self.p["K"], self.p["l"]))

    def messages(self) -> int:
        """Smashed-data uploads per sample per round: one per upload step 0, l, 2l, ... < K."""
        return len(self.uploads())

    def server_steps(self, M: int) -> float:
        """``sequential``: one step per participating client's upload, n (M when all take part) per upload slot;
        ``sum``: one step with the clients' sum (eq. (7))."""
        n = min(self.p["n"] or M, M)
        return float(n * len(self.uploads())) if self.p["server"] == "sequential" else 1.0

    def participants(self, M: int, ctx: Context) -> list[int]:
        """The clients of this round in increasing order: all M (``n = 0`` or ``n = M``; no draw, so the curves of
        full participation do not depend on ``n``), or n drawn uniformly without replacement from the round's
        ``"participants"`` generator."""
        n = self.p["n"] or M
        if n >= M:
            return list(range(M))
        return sorted(torch.randperm(M, generator=ctx.rng("participants"))[:n].tolist())

    def gaussians(
        self, ctx: Context, like_c: Params, like_a: Params, clients: Sequence[int], k: int
    ) -> tuple[Params, Params]:
        """The Gaussian draws of the P directions of each client of ``clients`` at local step k, on leading axes
        (client, perturbation), client part and head: device draws of the joint tree
        ``ctx.randn_block(joint(theta_c, theta_a), P, clients, "zo", k)``, or CPU draws
        ``ctx.randn_like(theta_c, "zo", m, k, p, "client")`` and ``ctx.randn_like(theta_a, "zo", m, k, p, "aux")``."""
        P = self.p["P"]
        if self.p["draws"] == zo.DEVICE_DRAWS:
            return unjoint(ctx.randn_block(joint(like_c, like_a), P, clients, "zo", k))
        zc = zo.per_client_draws(lambda m, p: ctx.randn_like(like_c, "zo", m, k, p, "client"), clients, P)
        za = zo.per_client_draws(lambda m, p: ctx.randn_like(like_a, "zo", m, k, p, "aux"), clients, P)
        return zc, za

    def chunks(
        self, problem: Problem, x_c: Params, x_a: Params, clients: Sequence[int] | None = None
    ) -> list[list[int]]:
        """The round's ``clients`` (default: all M) in chunks whose draws fit in memory
        (:func:`verify.ops.zo.client_chunks`; ``self.memory_budget`` caps it): all of them at once while they fit."""
        clients = list(range(problem.M)) if clients is None else list(clients)
        first = next(iter(x_c.values()))
        per_client = zo.DRAW_COPIES * self.p["P"] * (tree.nbytes(x_c) + tree.nbytes(x_a))
        return [[clients[i] for i in c] for c in zo.client_chunks(len(clients), per_client, first.device,
                                                                  self.memory_budget)]  # fmt: skip

    def round(self, t: int, state: State, ctx: Context) -> dict[str, float]:
        """Sec. IV steps 1-4: the broadcast, K zeroth-order local steps per client with the server trained on the
        uploaded smashed data, then the local models averaged (eq. (8)); returns the drift (whole local model and
        client part) and the mean local loss."""
        problem = ctx.problem
        M = problem.M
        x_c, x_a, x_s = state["client"], state["aux"], state["server"]
        clients = self.participants(M, ctx)
        n = len(clients)
        model_bytes = tree.nbytes(x_c) + tree.nbytes(x_a)
        for _ in clients:
            ctx.download(model_bytes)  # step 1: the broadcast of theta_c^t, theta_a^t
        smashed: dict[tuple[int, int], Batch] = {}  # (local step, client) -> uploaded smashed data with labels
        losses: list[Tensor] = []
        if ctx.batched:
            parts = [self._batched(ctx, x_c, x_a, c, smashed, losses) for c in self.chunks(problem, x_c, x_a, clients)]
            ends_c = {k: torch.cat([pc[k] for pc, _ in parts]) for k in x_c}
            ends_a = {k: torch.cat([pa[k] for _, pa in parts]) for k in x_a}
        else:
            ends = [self._client(ctx, x_c, x_a, m, smashed, losses) for m in clients]
            ends_c, ends_a = tree.stack([c for c, _ in ends]), tree.stack([a for _, a in ends])
        state["server"] = self.server_update(x_s, smashed, clients, ctx)
        drift_c = tree.sqnorm_batched(tree.sub(ends_c, x_c))
        drift_a = tree.sqnorm_batched(tree.sub(ends_a, x_a))
        state["client"] = {k: v.mean(0) for k, v in ends_c.items()}  # eq. (8)
        state["aux"] = {k: v.mean(0) for k, v in ends_a.items()}
        for _ in clients:
            ctx.upload(model_bytes)  # step 4: theta_{l,i}^{t,h} to the Fed-Server
        return {
            "drift": float((drift_c + drift_a).sum()) / n,
            "drift_client": float(drift_c.sum()) / n,
            "local_loss": float(torch.cat(losses).mean()),
        }

    def _count_step(self, ctx: Context, n: int, k: int) -> None:
        """Local step k of one client on n samples: (P + 1) forward passes, the smashed data up at an upload."""
        ctx.work("client", forward=(self.p["P"] + 1) * n)
        if k % self.p["l"] == 0:
            ctx.upload(n * ctx.problem.activation_bytes)

    def _client(
        self,
        ctx: Context,
        x_c: Params,
        x_a: Params,
        m: int,
        smashed: dict[tuple[int, int], Batch],
        losses: list[Tensor],
    ) -> tuple[Params, Params]:
        """The per-client reference: client m's K local steps, the P perturbed losses one by one."""
        lam, eta_c, law = self.p["lam"], self.p["eta_c"], self.p["direction"]
        pc, pa = x_c, x_a
        for k in range(self.p["K"]):
            b = ctx.batch(m, k)
            zc, za = (tree.unstack(z)[0] for z in self.gaussians(ctx, x_c, x_a, [m], k))
            pc, pa, f0, h = zo_step(ctx.problem, pc, pa, zc, za, b, lam, eta_c, law, batched_p=False)
            losses.append(f0.reshape(1))
            self._count_step(ctx, int(b.w.sum()), k)
            if k % self.p["l"] == 0:
                smashed[(k, m)] = Batch(h, b.y, b.w)
        return pc, pa

    def _batched(
        self,
        ctx: Context,
        x_c: Params,
        x_a: Params,
        clients: list[int],
        smashed: dict[tuple[int, int], Batch],
        losses: list[Tensor],
    ) -> tuple[Params, Params]:
        """The K local steps of the clients ``clients`` at once (vmapped over them, the P perturbed losses in one
        vmapped forward): their end points stacked on a leading client axis."""
        problem = ctx.problem
        lam, eta_c, law = self.p["lam"], self.p["eta_c"], self.p["direction"]
        n = len(clients)
        pcs: Params = {k: v.expand(n, *v.shape) for k, v in x_c.items()}  # read only: every step makes new trees
        pas: Params = {k: v.expand(n, *v.shape) for k, v in x_a.items()}

        def step(pc: Params, pa: Params, zc: Params, za: Params, x: Tensor, y: Tensor, w: Tensor) -> Any:
            return zo_step(problem, pc, pa, zc, za, Batch(x, y, w), lam, eta_c, law)

        vstep = vmap(step)
        for k in range(self.p["K"]):
            b = ctx.batches(clients, k)
            zc, za = self.gaussians(ctx, x_c, x_a, clients, k)
            pcs, pas, f0, h = vstep(pcs, pas, zc, za, b.x, b.y, b.w)
            losses.append(f0)
            for i, (m, size) in enumerate(zip(clients, b.w.sum(1).tolist(), strict=True)):
                self._count_step(ctx, int(size), k)
                if k % self.p["l"] == 0:
                    smashed[(k, m)] = Batch(h[i], b.y[i], b.w[i])
        return pcs, pas

    def server_update(
        self, x_s: Params, smashed: Mapping[tuple[int, int], Batch], clients: list[int], ctx: Context
    ) -> Params:
        """The server's first-order training on the uploaded smashed data (step 3)."""
        problem = ctx.problem
        eta_s = self.p["eta_s"]
        slots = self.uploads()
        for b in smashed.values():
            n = int(b.w.sum())
            ctx.work("server", forward=n, backward=n)
        if self.p["server"] == "sequential":
            ps = x_s
            for k in slots:
                for m in clients:
                    b = smashed[(k, m)]
                    _, gs, _ = server_grads(problem, ps, b.x, b)
                    ps = tree.add(ps, gs, -eta_s)
            return ps
        # eq. (7): one step at theta_s^t with the sum over clients of each client's mean gradient
        per = [
            Batch(
                torch.cat([smashed[(k, m)].x for k in slots]),
                torch.cat([smashed[(k, m)].y for k in slots]),
                torch.cat([smashed[(k, m)].w for k in slots]),
            )
            for m in clients
        ]
        if ctx.batched:
            b = Batch.stack(per)
            gs_all = vmap(lambda h, y, w: server_grads(problem, x_s, h, Batch(h, y, w))[1])(b.x, b.y, b.w)
            total = {k: v.sum(0) for k, v in gs_all.items()}
        else:
            grads = [server_grads(problem, x_s, b.x, b)[1] for b in per]
            total = {k: sum((g[k] for g in grads[1:]), grads[0][k]) for k in grads[0]}
        return tree.add(x_s, total, -eta_s)
