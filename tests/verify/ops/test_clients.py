"""The client axis in chunks (verify.ops.clients): the same numbers as one call per client, whatever the chunk."""

from __future__ import annotations

import pytest
import torch

from sfltheory.errors import ParameterError
from verify.ops.clients import chosen_chunk, chunk_for, memory_budget, over_clients


def _step(p: dict[str, torch.Tensor], x: torch.Tensor) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """One gradient step of a least-squares loss on one client's data (the gradient by hand: 2 X^T (X w - 1) / n)."""
    g = 2 * x.T @ (x @ p["w"] - 1) / x.shape[0]
    return {"w": p["w"] - 0.1 * g}, (x @ p["w"] - 1).pow(2).mean()


@pytest.mark.parametrize("chunk", [1, 3, 7, 100, None])
def test_chunks_give_the_per_client_numbers(chunk: int | None) -> None:
    gen = torch.Generator().manual_seed(0)
    M = 7
    p = {"w": torch.randn(M, 3, dtype=torch.float64, generator=gen)}
    X = torch.randn(M, 5, 3, dtype=torch.float64, generator=gen)
    owner = object.__new__(type("Owner", (), {}))
    out, losses = over_clients(_step, p, X, chunk=chunk, owner=owner, purpose="ls")
    # the reference: the function called on each client alone, no vmap
    for m in range(M):
        ref, lo = _step({"w": p["w"][m]}, X[m])
        torch.testing.assert_close(out["w"][m], ref["w"], rtol=0, atol=1e-14)
        torch.testing.assert_close(losses[m], lo, rtol=0, atol=1e-14)
    if chunk is None:  # chosen from free memory and remembered for the owner and purpose
        assert chosen_chunk(owner, "ls") is not None and chosen_chunk(owner, "ls") >= 1


def test_chunk_for_by_hand() -> None:
    # 10 GiB budget, 3 GiB a client: floor(10 / 3) = 3 clients; never below 1 or above M
    assert chunk_for(3 * 2**30, 10 * 2**30, 1000) == 3
    assert chunk_for(30 * 2**30, 10 * 2**30, 1000) == 1
    assert chunk_for(1.0, 10 * 2**30, 50) == 50


def test_budget_is_at_most_the_cap() -> None:
    assert memory_budget(torch.device("cpu"), 2**20) <= 2**20


@pytest.mark.parametrize("bad", [0, -2, 1.5, True])
def test_bad_chunk_refused(bad: object) -> None:
    with pytest.raises(ParameterError, match="client_chunk"):
        over_clients(_step, {"w": torch.zeros(2, 3)}, torch.zeros(2, 5, 3), chunk=bad)  # type: ignore[arg-type]


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
@pytest.mark.cuda
def test_cuda_chunk_from_measured_peak() -> None:
    # a budget of 40 clients' inputs: the probe measures the per-client peak and the chunk keeps under the budget
    M = 64
    p = {"w": torch.randn(M, 256, device="cuda")}
    X = torch.randn(M, 512, 256, device="cuda")
    owner = object.__new__(type("Owner", (), {}))
    out, _ = over_clients(_step, p, X, owner=owner, purpose="ls", budget=40 * 512 * 256 * 4)
    chosen = chosen_chunk(owner, "ls")
    assert chosen is not None and 1 <= chosen < M
    ref, _ = _step({"w": p["w"][5]}, X[5])
    torch.testing.assert_close(out["w"][5], ref["w"])


def test_reduced_chunks_add_up_to_the_sum_over_clients() -> None:
    # with reduce, each chunk's output is summed over its clients and the chunks added: the sum of the per-client
    # results computed one by one
    gen = torch.Generator().manual_seed(1)
    M = 10
    p = {"w": torch.randn(M, 3, dtype=torch.float64, generator=gen)}
    X = torch.randn(M, 5, 3, dtype=torch.float64, generator=gen)

    def total(out: tuple[dict[str, torch.Tensor], torch.Tensor]) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        return {"w": out[0]["w"].sum(0)}, out[1].sum()

    for chunk in (1, 3, 10):
        s, lo = over_clients(_step, p, X, chunk=chunk, reduce=total)
        ref = [_step({"w": p["w"][m]}, X[m]) for m in range(M)]
        torch.testing.assert_close(s["w"], sum(r[0]["w"] for r in ref), rtol=0, atol=1e-13)
        torch.testing.assert_close(lo, sum(r[1] for r in ref), rtol=0, atol=1e-13)
