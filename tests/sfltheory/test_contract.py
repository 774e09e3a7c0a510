"""The constants contract between the two halves, checked over the whole catalogue.

Every assumption a result uses says which measured variant serves each constant it introduces (``picks``) or
why none can (``unmeasured``); every key a pick names is built from the shared variant names
(:mod:`sfltheory.variants`); the keys a measurement writes are built from the same names; every default is a
named rule; the papers' own vocabulary comes from their ``PARAMS``, registered by nobody at import.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from torch import nn

from sfltheory import lexicon
from sfltheory import variants as var
from sfltheory import vocabulary as vocab
from sfltheory.constants import CANONICAL, Constants
from sfltheory.registry import declared_params, results
from verify.constants.measure import measure

PART_NAMES = {var.CLIENT, var.SERVER, "aux"}


def _assumption_cases() -> list[tuple[str, str]]:
    return sorted({(r.id, a.key) for r in results() for a in r.assumptions})


@pytest.mark.parametrize(("rid", "key"), _assumption_cases())
def test_every_assumption_has_a_pick_or_a_reason(rid: str, key: str) -> None:
    a = next(a for r in results() if r.id == rid for a in r.assumptions if a.key == key)
    picked = {p.name for p in a.picks}
    for name in a.introduces:
        assert name in picked or a.unmeasured.strip(), (
            f"{rid}: assumption '{a.key}' introduces {name} but neither picks a measured variant for it nor says "
            "why none can (unmeasured=...)"
        )
    for p in a.picks:
        assert p.name in a.introduces, f"{a.key} picks {p.name}, which it does not introduce"


def _key_ok(k: str) -> bool:
    base, variants = var.split(k)
    known = lexicon.is_known(base) or base == var.ZO_MSE
    return known and all(v in var.VARIANTS or v in PART_NAMES or v.startswith("q") for v in variants)


def test_pick_keys_use_the_shared_variant_names() -> None:
    for r in results():
        for a in r.assumptions:
            for p in a.picks:
                for k in p.keys:
                    for part in k.split("|"):
                        assert _key_ok(part), f"{a.key}: key '{part}' is not built from sfltheory.variants"


def test_a_planted_unknown_variant_is_caught() -> None:
    assert not _key_ok("sigma_c2[maximum]") and not _key_ok("sigmac2[max]") and _key_ok("eps2[mean,server]")


class Tiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.client = nn.Linear(3, 4, dtype=torch.float64)
        self.server = nn.Linear(4, 2, dtype=torch.float64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.server(torch.tanh(self.client(x)))


def test_keys_a_measurement_writes_use_the_shared_variant_names() -> None:
    g = torch.Generator().manual_seed(0)
    X = torch.randn(12, 3, generator=g, dtype=torch.float64)
    y = torch.randint(0, 2, (12,), generator=g)
    clients = [torch.arange(0, 6), torch.arange(6, 12)]
    split = {"client": ["client.weight", "client.bias"], "server": ["server.weight", "server.bias"]}
    c: Constants = measure(
        Tiny(), nn.CrossEntropyLoss(reduction="none"), (X, y), split, clients=clients, batch=2, device="cpu",
        what=("L", "sigma2", "eps2", "kappa", "L_clients"), probes=4,
    )  # fmt: skip
    keys = [k for k, _ in c.items()]
    assert any("[" in k for k in keys)  # variants were written
    bad = [k for k in keys if not _key_ok(k) and var.split(k)[0] not in CANONICAL]
    assert not bad, bad


def test_every_default_is_a_named_rule() -> None:
    for r in results():
        for d in r.defaults:
            assert d.rule.strip() and "TODO" not in d.rule, f"{r.id}: default for {d.name} has no rule"


def test_every_result_carries_its_full_reference() -> None:
    for r in results():
        assert len(r.provenance.reference) > 40, f"{r.id}: provenance without the paper's reference"
        assert r.provenance.reference in r.provenance.citation


def test_paper_names_join_the_vocabulary_without_registration_at_import() -> None:
    assert not hasattr(vocab, "register")
    names = {p.name for p in declared_params()}
    assert {"sum_alpha2", "d_aux"} <= names
    assert names <= {p.name for p in lexicon.all_params()}
    # importing a paper changes nothing in the vocabulary module: its names arrive through the registry
    code = (
        "import sfltheory.vocabulary as v; before = dict(v._PARAMS); import sfltheory.papers.heron_sfl, "
        "sfltheory.papers.cut_layer, sfltheory.papers.sl_noniid; assert dict(v._PARAMS) == before; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_every_name_declares_its_dimension() -> None:
    # the audit's units check reads Param.dimension: a paper that adds a name declares it there, in one place
    for p in lexicon.all_params():
        assert p.dimension, f"{p.name}: no dimension (Param(..., dimension='loss**2/param**2' or '1'))"
        vocab.parse_dimension(p.dimension)
    assert lexicon.get("L").dimension == "loss/param**2" and lexicon.get("eta").dimension == "param**2/loss"
    with pytest.raises(ValueError):
        vocab.parse_dimension("2*loss")
    with pytest.raises(ValueError):
        vocab.parse_dimension("metres")
