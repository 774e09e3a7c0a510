"""The vmappable recurrent layers (issue 23) against torch's own fused kernels: outputs, final states and gradients
(with respect to the input, the initial states and every parameter) for every configuration, in float32 and
float64, batched and unbatched; under ``vmap`` over clients with per-client weights against a loop over the
clients through the original module; names and parameters kept; bad input refused in one line.

The reference everywhere is an untouched deep copy of the module, run by torch's ``aten::rnn_tanh``/``gru``/
``lstm`` kernels, which are independent of the code under test (``F.linear`` and elementwise ops)."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest

torch = pytest.importorskip("torch")
from torch import Tensor, nn  # noqa: E402
from torch.func import functional_call, grad, vmap  # noqa: E402
from torch.nn.utils.rnn import pack_padded_sequence  # noqa: E402

from sfltheory.errors import ParameterError  # noqa: E402
from verify.models.recurrent import VmappableGRU, VmappableLSTM, VmappableRNN, vmappable_rnns_  # noqa: E402

torch.set_num_threads(1)  # tiny layers: a second thread only adds contention on a shared machine

IN, HID, L, N = 3, 5, 4, 2
TOL = {torch.float32: {"rtol": 1e-5, "atol": 1e-6}, torch.float64: {"rtol": 1e-12, "atol": 1e-13}}

# (class, extra constructor arguments)
CELLS = {
    "rnn_tanh": (nn.RNN, {}),
    "rnn_relu": (nn.RNN, {"nonlinearity": "relu"}),
    "gru": (nn.GRU, {}),
    "lstm": (nn.LSTM, {}),
    "lstm_proj": (nn.LSTM, {"proj_size": 2}),
}
SHAPES = list(itertools.product((1, 2), (False, True), (False, True), (True, False)))  # layers, bidir, bf, bias


def build(cell: str, layers: int = 1, bidir: bool = False, bf: bool = False, bias: bool = True, **kw: Any) -> nn.Module:
    cls, extra = CELLS[cell]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return cls(IN, HID, num_layers=layers, bidirectional=bidir, batch_first=bf, bias=bias, **extra, **kw)


def pair(ref: nn.Module, dtype: torch.dtype) -> tuple[nn.Module, nn.Module]:
    """(the original in ``dtype``, a converted deep copy of it)."""
    ref = ref.to(dtype)
    new = copy.deepcopy(ref)
    assert vmappable_rnns_(new) == [""]
    return ref, new


def states(m: nn.Module, n: int | None, dtype: torch.dtype, gen: torch.Generator) -> Any:
    """Random initial states of the documented shapes (n None: unbatched)."""
    D = 2 if m.bidirectional else 1
    h_out = m.proj_size if getattr(m, "proj_size", 0) else m.hidden_size
    batch = () if n is None else (n,)
    h0 = torch.randn(D * m.num_layers, *batch, h_out, generator=gen, dtype=torch.float64).to(dtype)
    if not isinstance(m, nn.LSTM):
        return h0
    c0 = torch.randn(D * m.num_layers, *batch, m.hidden_size, generator=gen, dtype=torch.float64).to(dtype)
    return (h0, c0)


def flat(out: Any) -> list[Tensor]:
    """output, h_n[, c_n] as a list."""
    o, h = out
    return [o, *h] if isinstance(h, tuple) else [o, h]


def outputs_and_grads(m: nn.Module, x: Tensor, hx: Any, cot_seed: int) -> list[Tensor]:
    """The outputs and the gradient of sum_k <w_k, out_k> (random w_k) with respect to x, hx and every parameter."""
    x = x.detach().clone().requires_grad_(True)
    given = () if hx is None else hx if isinstance(hx, tuple) else (hx,)
    hs = [t.detach().clone().requires_grad_(True) for t in given]
    arg = None if hx is None else (tuple(hs) if isinstance(hx, tuple) else hs[0])
    outs = flat(m(x) if arg is None else m(x, arg))
    g = torch.Generator().manual_seed(cot_seed)
    val = sum((o * torch.randn(o.shape, generator=g, dtype=torch.float64).to(o.dtype)).sum() for o in outs)
    grads = torch.autograd.grad(val, [x, *hs, *m.parameters()])
    return [o.detach() for o in outs] + list(grads)


@pytest.mark.parametrize("cell", list(CELLS))
@pytest.mark.parametrize(("layers", "bidir", "bf", "bias"), SHAPES)
def test_matches_torch_kernels(cell: str, layers: int, bidir: bool, bf: bool, bias: bool) -> None:
    for dtype, given, batched in itertools.product((torch.float32, torch.float64), (False, True), (True, False)):
        ref, new = pair(build(cell, layers, bidir, bf, bias), dtype)
        gen = torch.Generator().manual_seed(1)
        shape = ((N, L) if bf else (L, N)) if batched else (L,)
        x = torch.randn(*shape, IN, generator=gen, dtype=torch.float64).to(dtype)
        hx = states(ref, N if batched else None, dtype, gen) if given else None
        want = outputs_and_grads(ref, x, hx, 2)
        got = outputs_and_grads(new, x, hx, 2)
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            assert a.shape == b.shape and a.dtype == b.dtype
            torch.testing.assert_close(a, b, **TOL[dtype], msg=f"{dtype} given={given} batched={batched}")


@pytest.mark.parametrize("cell", ["gru", "lstm_proj", "rnn_tanh"])
def test_vmap_over_clients_matches_a_loop_of_the_original(cell: str) -> None:
    # M = 3 clients, each with its own weights (stacked), its own batch and its own initial state: the vmapped
    # converted layer against the original module run client by client with functional_call
    M = 3
    ref = build(cell, 2, True, True).double()
    new = copy.deepcopy(ref)
    vmappable_rnns_(new)
    gen = torch.Generator().manual_seed(3)
    params = {k: torch.randn(M, *v.shape, generator=gen, dtype=torch.float64) * 0.5 for k, v in ref.named_parameters()}
    X = torch.randn(M, N, L, IN, generator=gen, dtype=torch.float64)
    H = states(ref, N, torch.float64, gen)
    H = tuple(t.expand(M, *t.shape) + torch.randn(M, *t.shape, generator=gen, dtype=torch.float64)
              for t in (H if isinstance(H, tuple) else (H,)))  # fmt: skip
    hx_of = (lambda hs: tuple(hs)) if isinstance(ref, nn.LSTM) else (lambda hs: hs[0])

    def loss(m: nn.Module, p: dict[str, Tensor], x: Tensor, *hs: Tensor) -> Tensor:
        return sum((o.sin()).sum() for o in flat(functional_call(m, p, (x, hx_of(hs)))))

    got_out = vmap(lambda p, x, *hs: flat(functional_call(new, p, (x, hx_of(hs)))))(params, X, *H)
    got_grad = vmap(grad(lambda p, x, *hs: loss(new, p, x, *hs)))(params, X, *H)
    for m in range(M):
        pm = {k: v[m] for k, v in params.items()}
        hs = [t[m] for t in H]
        want = flat(functional_call(ref, pm, (X[m], hx_of(hs))))
        for a, b in zip(got_out, want, strict=True):
            torch.testing.assert_close(a[m], b, rtol=1e-12, atol=1e-13)
        q = {k: v.clone().requires_grad_(True) for k, v in pm.items()}
        gw = torch.autograd.grad(loss(ref, q, X[m], *hs), list(q.values()))
        for k, b in zip(q, gw, strict=True):
            torch.testing.assert_close(got_grad[k][m], b, rtol=1e-12, atol=1e-13)


def test_names_parameters_and_mode_are_kept() -> None:
    model = nn.Sequential(nn.Linear(3, 3), nn.Sequential(nn.GRU(3, 4), nn.LSTM(4, 4, proj_size=2)), nn.RNN(3, 2))
    model.eval()
    before = {k: (v, v.shape) for k, v in model.named_parameters()}
    hook_calls: list[int] = []
    model[2].register_forward_hook(lambda *a: hook_calls.append(1))
    assert vmappable_rnns_(model) == ["1.0", "1.1", "2"]
    assert [type(model[1][0]), type(model[1][1]), type(model[2])] == [VmappableGRU, VmappableLSTM, VmappableRNN]
    after = dict(model.named_parameters())
    assert list(after) == list(before)  # same names, same order
    assert all(after[k] is v for k, (v, _) in before.items())  # the same tensors, not copies
    assert not model[1][0].training
    model[2](torch.randn(5, 3))
    assert hook_calls == [1]
    assert vmappable_rnns_(model) == []  # already converted


def test_subclasses_are_left_alone() -> None:
    class Mine(nn.GRU):
        def forward(self, x: Tensor, hx: Any = None) -> Any:  # type: ignore[override]
            return super().forward(x * 2, hx)

    m = nn.Sequential(Mine(3, 4))
    assert vmappable_rnns_(m) == [] and type(m[0]) is Mine


@pytest.mark.parametrize("cell", ["gru", "lstm", "rnn_relu"])
def test_dropout_between_layers(cell: str) -> None:
    # eval: no dropout, equal to torch; training: the same draws as torch's CPU kernel from the same seed
    ref, new = pair(build(cell, 3, True, dropout=0.4), torch.float64)
    x = torch.randn(L, N, IN, dtype=torch.float64)
    for mode in (False, True):
        ref.train(mode)
        new.train(mode)
        torch.manual_seed(9)
        want = flat(ref(x))
        torch.manual_seed(9)
        got = flat(new(x))
        for a, b in zip(got, want, strict=True):
            torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-13)
    torch.manual_seed(10)
    other = flat(new(x))[0]
    assert not torch.allclose(other, got[0])  # training mode does drop


def test_packed_sequence_refused_naming_the_module() -> None:
    client = nn.Sequential(nn.LSTM(IN, HID))
    vmappable_rnns_(client, prefix="client")
    packed = pack_padded_sequence(torch.randn(L, N, IN), torch.tensor([4, 2]))
    with pytest.raises(ParameterError, match=r"^parameter 'client\.0\.input': a PackedSequence is not supported"):
        client[0](packed)


def test_bad_shapes_refused_in_one_line() -> None:
    m = nn.GRU(IN, HID, num_layers=2)
    vmappable_rnns_(m)
    x = torch.randn(L, N, IN)
    with pytest.raises(ParameterError, match=r"h_0 must have shape \(2, 2, 5\) \(got \(1, 2, 5\)\)"):
        m(x, torch.zeros(1, N, HID))
    with pytest.raises(ParameterError, match="must have 3 features"):
        m(torch.randn(L, N, IN + 1))
    with pytest.raises(ParameterError, match=r"2-D \(unbatched\) or 3-D"):
        m(torch.randn(L))
    with pytest.raises(ParameterError, match="at least one time step"):
        m(torch.randn(0, N, IN))
    lstm = nn.LSTM(IN, HID)
    vmappable_rnns_(lstm)
    with pytest.raises(ParameterError, match=r"a tuple \(h_0, c_0\)"):
        lstm(x, torch.zeros(1, N, HID))
    with pytest.raises(ParameterError, match=r"^parameter 'module': must be a torch\.nn\.Module"):
        vmappable_rnns_(lambda x: x)  # type: ignore[arg-type]
