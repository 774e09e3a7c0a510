r"""SplitFed with auxiliary networks and partial participation (CSE-SFL as analysed in sfl_aux, Algorithm 1).

Reference: Amirreza Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker
Participation and Auxiliary Networks", Preprints.org, posted 4 September 2024,
doi:10.20944/preprints202409.0335.v1 (seed ``004_1446912755864da9.txt``): Sec. 3 (setting, participation
strategies), Algorithm 1 (CSE-SFL of Mu and Shen [4]), App. A (A3), (A24), (A38)-(A39), (A50).

Notation (paper -> canonical): m -> ``M`` clients, n -> ``n`` sampled clients, l -> ``l`` server period, K ->
``K`` local steps, :math:`\mu_L` (client and auxiliary step) -> ``eta_l``, :math:`\mu` (server step) -> ``eta``.
:math:`x = (x_C, x_A)` is the client part with its auxiliary head; :math:`x_S` the single server model.

Round t (Algorithm 1):

1. the server samples :math:`S_t` (line 4; ``n = 0``: every client, full participation -- the first strategy of
   Sec. 3; otherwise n draws, by default uniform *with replacement* as Sec. 3 defines the second strategy) and
   broadcasts :math:`\bar x_C^t, \bar x_A^t` (line 7); each participant starts from them (line 23);
2. if :math:`t \equiv 0 \pmod l` and :math:`t \neq 0` (line 8), for each :math:`i\in S_t` in sequence
   (lines 9-17): client i sends :math:`z_{f,i} = x_{C,i}^0(\xi)` and its labels (lines 25-26, its first
   mini-batch), the server computes :math:`F_i^s(x_S; z_{f,i}, y_i)`, sends :math:`z_{b,i} = \partial F_i^s/\partial z`
   back (line 15) and steps :math:`x_S \leftarrow x_S - \mu\,\nabla F_i^s(x_S; z_{f,i}, y_i)`; the client's first
   local step is then split back-propagation with that :math:`z_{b,i}` (lines 27-29), the head not moving
   (line 30), followed by K - 1 auxiliary steps (lines 31-36);
3. otherwise each participant makes K auxiliary steps (lines 38-43):
   :math:`x_{C,i}^{k+1} = x_{C,i}^k - \mu_L\nabla_{x_C}F_i^c(x_i^k;\xi^k)`,
   :math:`x_{A,i}^{k+1} = x_{A,i}^k - \mu_L\nabla_{x_A}F_i^c(x_i^k;\xi^k)`, with :math:`F_i^c` the loss of the
   head on the client's output (both at the same point, first order);
4. the participants return :math:`x_{C,i}^K, x_{A,i}^K` (lines 45, 5) and
   :math:`\bar x^{t+1} = \frac1n\sum_{i\in S_t} x_i^K` (client part and head).

Variants, where the pseudocode and the analysis differ (defaults: the analysis, so that ``eta`` and ``eta_l``
are the theorems' :math:`\mu` and :math:`\mu_L`):

* ``aggregation``: ``"over_n"`` (default; (A24): :math:`\frac1n\sum_{i\in[S_t]}`) or ``"over_m"`` (line 6:
  :math:`\frac1m\sum_{i\in[S_t]}`, which shrinks the model by n/m under partial participation). Equal under
  full participation.
* ``server_step``: ``"eta"`` (default; (A38): :math:`x_{S,i+1} = x_{S,i} - \mu\tilde\nabla F_i^s`) or
  ``"eta_over_M"`` (line 16: :math:`\mu/m`).
* ``server_round_step``: ``"server_gradient"`` (default; lines 24-30 as printed: in a server round the first
  local step back-propagates the server's :math:`z_{b,i}` and the head stays) or ``"aux"`` ((A3)/(A24) write every
  local step of every round as an auxiliary-loss step :math:`\tilde\nabla F_i^c(x_{C,i}^{t+j,k})`, k = 0..K-1,
  and no :math:`z_b` is used or sent).
* ``sampling``: ``"with_replacement"`` (default; Sec. 3, the strategy of [15, Lemma 1] that (A26) invokes) or
  ``"without_replacement"`` (line 4's "subset of n clients out of m").

With replacement :math:`S_t` is a multiset: a client drawn twice trains once (from one broadcast, with the
:math:`z_b` of its first turn) and counts once per draw in the server's sequence and in the average, as the
sums over :math:`S_t` in (A24) and (A50) count it.

* ``redraw``: the mini-batch of a repeated draw's server turn. ``"fresh"`` (default): every draw
  :math:`q_i^t` of :math:`S_t = \{q_1^t, \dots, q_n^t\}` brings its own mini-batch :math:`\xi_{q_i^t}`, i.e. its
  own smashed data :math:`z_{f,q_i^t} = x_{C}^0(\xi_{q_i^t})` (one more client forward and upload per repeated
  draw), so the server's stochastic gradients of the n turns have independent noise. ``"reuse"``: a client drawn
  again sends the smashed data of its first draw, so its server turns see the same batch (their noises are then
  correlated). The analysis assumes the former: bounding the server's term (A53) it writes

  .. math:: \mathbb{E} \left\| \sum_{i \in [S_t]} (\tilde{\nabla} F_i^s(\mathbf{x}_{S,i}^t)
            - \nabla F_i^s(\mathbf{x}_{S,i}^t)) \right\|^2 \stackrel{(b_7)}{\leq} n\sigma_L^2 + \dots

  (seed line 658: ``&\stackrel{(b_7)}{\leq} n\sigma_L^2 + \mathbb{E} \left\| \sum_{i=1}^n \nabla
  F_{q_i^t}^s(\mathbf{x}_{S,q_i^t}^t) \right\|^2``), one :math:`\sigma_L^2` per draw and no cross terms, which
  needs the n noises to be uncorrelated -- "independent random variables :math:`z_i` with zero mean" (A10, seed
  line 300, invoked again for (A29)'s :math:`\frac{lK\sigma_L^2}{n}`). With ``"reuse"`` two draws of one client
  share :math:`\xi`, and on a quadratic (noise :math:`\langle\xi, x\rangle`, the same gradient noise at every
  point) their noises coincide: the term is up to :math:`2\sigma_L^2` larger per repeated pair. The pseudocode
  does not say: line 9 loops "for each client :math:`i \in [S_t]` in sequence" and line 25 forwards one
  :math:`\xi` per client (:math:`\mathbf{z}_{f,i} \leftarrow \text{ForwardPass}(\mathbf{x}_{C,i}^0; \xi)`).
  Equal whenever no client is drawn twice (n = 0, n = 1, ``sampling="without_replacement"``).

Randomness: the participants are ``torch.randint(M, (n,), generator=ctx.rng("participants"))`` (with
replacement) or ``torch.randperm(M, generator=ctx.rng("participants"))[:n]`` (without), in drawn order; client
i's mini-batch of local step k is ``ctx.batch(i, k)`` (the smashed data of a server round are those of k = 0);
with ``redraw="fresh"`` the r-th repeated draw of client i (r = 1, 2, ...) sends the smashed data of
``ctx.batch(i, "draw", r)``.

Counted: the broadcast and the return of :math:`x_C, x_A` per participant; in a server round the smashed data
up once per participant (and once per repeated draw with ``redraw="fresh"``, with its client forward) and
:math:`z_b` down per turn (``server_gradient`` only), the client's forward (and backward) and the server's forward
and backward per turn; per auxiliary step a client forward and backward
(the head counts as client).

Discrepancies (recorded, not fixed):

* line 6 averages with 1/m, (A24) with 1/n (variant ``aggregation``); line 16 steps with :math:`\mu/m`, (A38)
  with :math:`\mu` (variant ``server_step``);
* line 4 samples "a subset of n clients", Sec. 3 samples "with replacement" (variant ``sampling``);
* with replacement, the pseudocode's one :math:`z_{f,i}` per client leaves a repeated draw's batch open; (A53)'s
  :math:`n\sigma_L^2` needs one independent batch per draw (variant ``redraw``);
* lines 24-30 take the first local step of a server round with the server's gradient and freeze the head;
  (A3) and (A24) write all K steps as client-loss gradients (variant ``server_round_step``);
* lines 32 and 39 run the forward pass "with :math:`x_{C,i}^k` and :math:`x_A^t`" (the broadcast head), while
  lines 35 and 42 update :math:`x_{A,i}^k` and line 33 evaluates :math:`F_i^c(x_i^k)` with
  :math:`x_i^k = (x_{C,i}^k, x_{A,i}^k)`: implemented with the local head :math:`x_{A,i}^k` (line 33);
* line 6 aggregates "x_{C,i}^t" of the clients of :math:`S_t` at the start of round t, i.e. models trained in an
  earlier round by clients that need not be in :math:`S_t`; (A24) likewise sums :math:`S_{t+l}`'s models. Read
  as: the clients sampled in round t train and are averaged at its end;
* line 45 returns only :math:`x_{C,i}^K`, while line 5 receives :math:`x_{A,i}^t` too: both are returned;
* no server step happens in round 0 even when l = 1 (line 8, "t != 0"): kept as printed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import torch
from torch import Tensor

from sfltheory.errors import ParameterError
from verify.ops import tree
from verify.ops.batch import Batch
from verify.ops.clients import over_clients
from verify.ops.splitgrad import aux_grads, client_backward, server_grads
from verify.ops.tree import Params
from verify.problems import Problem

from ..base import Context, ParamSpec, SplitAlgorithm, State, count, eta

FRESH, REUSE = "fresh", "reuse"


def aux_sgd(problem: Problem, pc: Params, pa: Params, batches: Batch, eta_l: float) -> tuple[Params, Params, Tensor]:
    """Auxiliary-loss SGD steps on the client part and the head (lines 34-35 / 41-42), one per batch of the
    leading axis of ``batches``; returns the new parts and the losses. A pure function: the per-client loop calls
    it per client, the batched path vmaps it over the participants."""
    losses = []
    for k in range(batches.x.shape[0]):
        loss, gc, ga = aux_grads(problem, pc, pa, batches[k])
        pc = tree.add(pc, gc, -eta_l)
        pa = tree.add(pa, ga, -eta_l)
        losses.append(loss)
    return pc, pa, torch.stack(losses)


class SflAux(SplitAlgorithm):
    """CSE-SFL as analysed by Talebi (2024): auxiliary-network clients, periodic sequential server, partial
    participation. See the module docstring for the algorithm, its variants and the discrepancies."""

    name = "sfl_aux"
    title = "SplitFed with auxiliary networks and partial participation (CSE-SFL)"
    paper = "sfl_aux"
    source = "Algorithm 1 (lines 1-46); App. A (A3), (A24), (A38)"
    takes = (
        eta("eta_l", 0.05, "client and auxiliary-head step (mu_L)"),
        eta("eta", 0.05, "server step (mu)"),
        count("K", 1, "local steps per participant per round"),
        count("l", 1, "server update period: the server trains in rounds t = 0 mod l, t != 0 (line 8)"),
        ParamSpec(name="n", default=0, kind="int", low=0, help="clients drawn per round (0: all M)"),
        ParamSpec(
            name="sampling",
            default="with_replacement",
            kind="choice",
            choices=("with_replacement", "without_replacement"),
            help="how the n clients are drawn: with replacement (Sec. 3) or a subset (line 4)",
        ),
        ParamSpec(
            name="aggregation",
            default="over_n",
            kind="choice",
            choices=("over_n", "over_m"),
            help="average of the sampled models: (1/n) sum (A24) or (1/m) sum (line 6)",
        ),
        ParamSpec(
            name="server_step",
            default="eta",
            kind="choice",
            choices=("eta", "eta_over_M"),
            help="server step per client turn: eta (A38) or eta/M (line 16)",
        ),
        ParamSpec(
            name="redraw",
            default=FRESH,
            kind="choice",
            choices=(FRESH, REUSE),
            help="a client drawn again in a round: fresh, a new mini-batch (smashed data) per draw (the independent "
            "noises of (A10), (A53) b_7), or reuse, its first draw's batch in every server turn",
        ),
        ParamSpec(
            name="server_round_step",
            default="server_gradient",
            kind="choice",
            choices=("server_gradient", "aux"),
            help="first local step of a server round: with the server's gradient, head frozen (lines 27-30), "
            "or an auxiliary step like the others ((A3), (A24))",
        ),
    )

    def server_steps(self, M: int) -> float:
        """n sequential server steps (one per participant's turn) every l rounds: n / l per round on average."""
        return (self.p["n"] or M) / self.p["l"]

    def init_state(self, problem: Problem, x0: Mapping[str, Params]) -> State:
        """Copies of :math:`x_C`, :math:`x_S` and the auxiliary head :math:`x_A`; ``n`` > M, or a problem without a
        head, is refused."""
        if self.p["n"] > problem.M:
            raise ParameterError("n", f"must be <= M = {problem.M} clients (got {self.p['n']})")
        if "aux" not in x0:
            raise ParameterError("aux", "sfl_aux needs an auxiliary head on the client (build the problem with aux)")
        return {"client": tree.clone(x0["client"]), "server": tree.clone(x0["server"]), "aux": tree.clone(x0["aux"])}

    def participants(self, problem: Problem, ctx: Context) -> list[int]:
        """:math:`S_t` in drawn order (a multiset when drawn with replacement); every client when n = 0."""
        n, M = self.p["n"], problem.M
        if n == 0:
            return list(range(M))
        g = ctx.rng("participants")
        if self.p["sampling"] == "with_replacement":
            return [int(i) for i in torch.randint(M, (n,), generator=g)]
        return [int(i) for i in torch.randperm(M, generator=g)[:n]]

    def server_inputs(
        self, S: list[int], x_c: Params, z: dict[int, Tensor], first: dict[int, Batch], ctx: Context
    ) -> list[tuple[Tensor, Batch]]:
        r"""The smashed data and batch (labels) of each server turn, in drawn order: a client's first draw sends
        :math:`z_{f,i}` of its first mini-batch at :math:`x_C^0 = \bar x_C^t`; a repeated draw the same
        (``redraw="reuse"``) or that of a fresh batch ``ctx.batch(i, "draw", r)`` (``redraw="fresh"``, counted as
        a client forward and an upload)."""
        problem = ctx.problem
        seen: Counter[int] = Counter()
        out = []
        for m in S:
            r = seen[m]
            seen[m] += 1
            if r == 0 or self.p["redraw"] == REUSE:
                out.append((z[m], first[m]))
                continue
            b = ctx.batch(m, "draw", r)
            n = int(b.w.sum())
            out.append((problem.client_forward(x_c, b.x), b))
            ctx.work("client", forward=n)
            ctx.upload(n * problem.activation_bytes)
        return out

    def is_server_round(self, t: int) -> bool:
        """Line 8: t = 0 (mod l) and t != 0."""
        return t % self.p["l"] == 0 and t != 0

    def round(self, t: int, state: State, ctx: Context) -> dict[str, float]:
        """Algorithm 1, round t: :math:`S_t` drawn and the broadcast (lines 4, 7); in a server round the server's
        sequential steps on the participants' smashed data (lines 9-17, 25-29); the local steps (lines 27-43); the
        aggregation (line 6 or (A24), ``aggregation``). Returns the drift, the participants and whether the server
        trained."""
        problem = ctx.problem
        M, K = problem.M, self.p["K"]
        eta_l = self.p["eta_l"]
        x_c, x_a, x_s = state["client"], state["aux"], state["server"]
        S = self.participants(problem, ctx)
        clients = list(dict.fromkeys(S))  # distinct participants, first-draw order
        act = problem.activation_bytes
        model_bytes = tree.nbytes(x_c) + tree.nbytes(x_a)
        for _ in clients:
            ctx.download(model_bytes)  # line 7
        server_round = self.is_server_round(t)
        first_server = server_round and self.p["server_round_step"] == "server_gradient"
        k0 = 1 if first_server else 0

        # the first mini-batch of each participant (the smashed data of a server round)
        if ctx.batched:
            b0 = ctx.batches(clients, 0)
            first = {m: b0[i] for i, m in enumerate(clients)}
        else:
            first = {m: ctx.batch(m, 0) for m in clients}

        gh: dict[int, Tensor] = {}
        if server_round:
            step = self.p["eta"] / (M if self.p["server_step"] == "eta_over_M" else 1)
            z = {}
            for m in clients:  # lines 25-26: z_f at x_C^0 = x̄_C^t, sent once
                n = int(first[m].w.sum())
                z[m] = problem.client_forward(x_c, first[m].x)
                ctx.work("client", forward=n)
                ctx.upload(n * act)
            ps = x_s
            turns = self.server_inputs(S, x_c, z, first, ctx)
            for m, (zm, bm) in zip(S, turns, strict=True):  # lines 9-17, in sequence
                n = int(bm.w.sum())
                _, gs, g = server_grads(problem, ps, zm, bm)
                gh.setdefault(m, g)
                ps = tree.add(ps, gs, -step)
                ctx.work("server", forward=n, backward=n)
                if first_server:
                    ctx.download(n * act)  # line 15: z_b to the client
            state["server"] = ps

        # the participants' local steps
        rest = [Batch.stack([ctx.batch(m, k) for k in range(k0, K)]) for m in clients] if K > k0 else []
        if ctx.batched:
            pcs = tree.stack([x_c] * len(clients))
            pas = tree.stack([x_a] * len(clients))
            if first_server:  # lines 27-29, vmapped over the participants
                ghs = torch.stack([gh[m] for m in clients])
                gcs = over_clients(lambda x, g: client_backward(problem, x_c, x, g), b0.x, ghs, owner=problem,
                                   purpose="sfl_aux backward")  # fmt: skip
                pcs = tree.add(pcs, gcs, -eta_l)
            if rest:
                b = Batch.stack(rest)
                pcs, pas, _ = over_clients(lambda pc, pa, x, y, w: aux_sgd(problem, pc, pa, Batch(x, y, w), eta_l),
                                           pcs, pas, b.x, b.y, b.w, owner=problem, purpose="sfl_aux local")  # fmt: skip
            ends_c, ends_a = tree.unstack(pcs), tree.unstack(pas)
        else:
            ends_c, ends_a = [], []
            for i, m in enumerate(clients):
                pc, pa = x_c, x_a
                if first_server:
                    pc = tree.add(pc, client_backward(problem, x_c, first[m].x, gh[m]), -eta_l)
                if rest:
                    pc, pa, _ = aux_sgd(problem, pc, pa, rest[i], eta_l)
                ends_c.append(pc)
                ends_a.append(pa)
        for i, m in enumerate(clients):
            if first_server:
                n = int(first[m].w.sum())
                ctx.work("client", backward=n)
            for k in range(K - k0):
                n = int(rest[i][k].w.sum())
                ctx.work("client", forward=n, backward=n)
            ctx.upload(model_bytes)  # line 45 (and line 5)

        drift_c = [float(tree.sqnorm(tree.sub(c, x_c))) for c in ends_c]
        drift_a = [float(tree.sqnorm(tree.sub(a, x_a))) for a in ends_a]
        mult = Counter(S)
        denom = len(S) if self.p["aggregation"] == "over_n" else M
        weights = [mult[m] / denom for m in clients]
        state["client"] = _weighted_sum(ends_c, weights)
        state["aux"] = _weighted_sum(ends_a, weights)
        return {
            "drift": sum(c + a for c, a in zip(drift_c, drift_a, strict=True)) / len(clients),
            "drift_client": sum(drift_c) / len(clients),
            "participants": float(len(clients)),
            "server_round": float(server_round),
        }


def _weighted_sum(trees: list[Params], weights: list[float]) -> Params:
    """:math:`\\sum_i w_i x_i` (weights not normalised: the 1/m aggregation of line 6 does not sum to one)."""
    out = tree.scale(trees[0], weights[0])
    for tr, w in zip(trees[1:], weights[1:], strict=True):
        out = tree.add(out, tr, w)
    return out
