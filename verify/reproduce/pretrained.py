"""The pre-trained digits MLP that stands in for MU-SplitFed's pre-trained OPT-1.3B in
:mod:`verify.reproduce.mu_splitfed_fig3` (its module docstring says why and how it was chosen): a model factory a
sweep worker imports by name (``verify.reproduce.pretrained:digits_mlp_pretrained``), kept apart from the experiment
so that listing the experiments needs no torch."""

from __future__ import annotations

import functools

import torch
from torch import nn

from verify.data import train_test
from verify.models.zoo import mlp

HIDDEN = (32, 32, 32)  # blocks fc1..fc4: three cuts, as the paper varies the split layer
PRETRAIN_STEPS = 150  # full-batch Adam steps of the first-order pre-training (mu_splitfed_fig3's docstring)
PRETRAIN_LR = 0.01
HEAD_STD = 0.01  # the new head's weight scale


@functools.lru_cache(maxsize=8)
def pretrained_state(seed: int) -> dict[str, torch.Tensor]:
    """The weights of :func:`digits_mlp_pretrained` for ``seed``: an MLP initialised from ``seed``, its body trained
    first order (full-batch Adam) on the training split of digits of that seed, its head fc4 new. Cached: a sweep
    worker runs many cells of one seed, and the pre-training is the same for each."""
    gen = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng():  # the caller's generator is left as it was
        torch.manual_seed(seed)
        net = mlp(in_features=64, hidden=HIDDEN, num_classes=10)
    train, _ = train_test("digits", seed=seed)  # the run's own training split: the test split stays unseen
    X, y = train.X.reshape(len(train.y), -1), train.y
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a few small full-batch steps: one thread is fastest, more stall on a shared CPU
    try:
        opt = torch.optim.Adam(net.parameters(), lr=PRETRAIN_LR)
        for _ in range(PRETRAIN_STEPS):
            opt.zero_grad()
            nn.functional.cross_entropy(net(X), y).backward()
            opt.step()
    finally:
        torch.set_num_threads(threads)
    head = net.get_submodule(f"fc{len(HIDDEN) + 1}")
    with torch.no_grad():  # a new task head: fine-tuning starts near chance accuracy
        head.weight.normal_(0.0, HEAD_STD, generator=gen)  # type: ignore[operator]
        head.bias.zero_()  # type: ignore[operator]
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def digits_mlp_pretrained() -> nn.Module:
    """An MLP 64-32-32-32-10 (2,080 + 1,056 + 1,056 + 330 = 4,522 parameters, hand count) whose body fc1..fc3 is
    pre-trained first order on the training split of digits of the run's seed and whose head fc4 is new (module
    docstring, :func:`pretrained_state`): the stand-in for the paper's pre-trained OPT-1.3B. The seed is the one the
    problem builder set just before calling the factory (:func:`torch.initial_seed`); the model is built from the
    global generator as any factory's (so the generator moves as it would) and then takes the pre-trained weights."""
    net = mlp(in_features=64, hidden=HIDDEN, num_classes=10)
    net.load_state_dict(pretrained_state(torch.initial_seed()))
    return net


__all__ = ["HEAD_STD", "HIDDEN", "PRETRAIN_LR", "PRETRAIN_STEPS", "digits_mlp_pretrained", "pretrained_state"]
