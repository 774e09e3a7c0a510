"""The typed specs (verify/spec.py): one validator per spec, errors that name fields, one key, and every front end
(the command line, a sweep file) parsing into the same value."""

from __future__ import annotations

import argparse

import pytest

from sfltheory.errors import ParameterError
from verify.parse import check_spec, run_spec
from verify.spec import (
    ModelSpec,
    QuadraticSpec,
    TimeSpec,
    flag,
    name_of,
    problem_from_mapping,
)


def test_equal_specs_have_equal_keys_and_a_change_changes_the_key() -> None:
    a = run_spec({"algorithm": "fedavg", "problem": "quadratic", "L": 2.0, "eta_l": 0.1, "T": 5})
    b = run_spec({"T": 5.0, "eta_l": 0.1, "L": 2, "problem": "quadratic", "algorithm": "fedavg"})
    assert a == b and a.key() == b.key() and len(a.key()) == 16
    c = run_spec({"algorithm": "fedavg", "problem": "quadratic", "L": 2.0, "eta_l": 0.1, "T": 6})
    assert c.key() != a.key()


def test_a_problem_spec_round_trips_through_its_json_form() -> None:
    m = ModelSpec(model="mlp", input_shape=(64,), clients=3, partition="dirichlet:0.5")
    assert problem_from_mapping(m.to_dict()) == m
    q = QuadraticSpec(targets={"L": 2.0, "M": 3}, noise="rademacher", seed=4)
    assert problem_from_mapping(q.to_dict()) == q and q.M == 3


def test_the_flat_form_sorts_names_into_problem_run_and_algorithm() -> None:
    s = run_spec({"algorithm": "sl", "clients": 3, "partition": "iid", "loss_fn": "ce",
                              "input_shape": "64", "model": "mlp", "K": 2, "eta_l": 0.05, "seed": 7,
                              "client_time": "1,2,3", "loop": True})  # fmt: skip
    assert s.problem == ModelSpec(model="mlp", clients=3, partition="iid", loss="ce", input_shape=(64,), seed=7)
    assert s.params == {"K": 2, "eta_l": 0.05} and s.seed == 7 and not s.batched
    assert s.time == TimeSpec(client_time=(1.0, 2.0, 3.0)) and s.dtype == "float32"
    q = run_spec({"algorithm": "sl", "problem": "quadratic", "clients": 3, "eps2": 0.5})
    assert q.problem == QuadraticSpec(targets={"M": 3, "eps2": 0.5}) and q.dtype == "float64"


@pytest.mark.parametrize(
    ("flat", "field"),
    [
        ({"problem": "quadratic", "model": "cnn"}, "problem.model"),
        ({"clients": 0}, "problem.clients"),
        ({"problem": "f.json", "clients": 2}, "problem.clients"),
        ({"noise": "gaussian"}, "problem.noise"),
        ({"client_time": "1,x"}, "time.client_time"),
        ({"server_step": -1.0}, "time.server_step"),
        ({"T": 0}, "T"),
        ({"seed": 1.5}, "seed"),
        ({"device": "tpu"}, "device"),
        ({"eta_1": 0.1}, "eta_1"),
        ({"M": 3}, "M"),
    ],
)
def test_errors_name_the_field(flat, field) -> None:
    with pytest.raises(ParameterError) as e:
        run_spec({"algorithm": "sl", **flat})
    assert e.value.name == field


def test_fields_map_to_flags_and_sweep_names() -> None:
    assert flag("problem.clients") == "--clients" and flag("problem.loss") == "--loss" and flag("T") == "T"
    assert (
        name_of("problem.loss") == "loss_fn" and name_of("batched") == "loop" and name_of("problem.file") == "problem"
    )
    assert name_of("time.client_time") == "client_time"


def test_the_command_line_and_a_sweep_parse_to_the_same_run() -> None:
    """One parser: `sfltheory train` and a sweep configuration with the same settings are the same spec."""
    from verify.app import build_parser
    from verify.cli import train_spec
    from verify.sweep.entries import run_spec as sweep_run_spec

    argv = ["train", "sl", "K=2", "eta_l=0.05", "T=3", "--model", "mlp", "--input-shape", "64", "--clients", "3",
            "--partition", "dirichlet:0.5", "--loss", "ce", "--client-time", "1,2,3"]  # fmt: skip
    a: argparse.Namespace = build_parser().parse_args(argv)
    cli_spec = train_spec(a)
    sweep = sweep_run_spec({"algorithm": "sl", "K": 2, "eta_l": 0.05, "T": 3, "model": "mlp", "input_shape": [64],
                            "clients": 3, "partition": "dirichlet:0.5", "loss_fn": "ce",
                            "client_time": [1, 2, 3]})  # fmt: skip
    assert cli_spec == sweep and cli_spec.key() == sweep.key()


def test_the_command_line_names_the_flag_and_a_sweep_its_own_name() -> None:
    from verify.app import build_parser
    from verify.cli import train_spec
    from verify.sweep.entries import run_spec as sweep_run_spec

    a = build_parser().parse_args(["train", "sl", "--problem", "quadratic", "--model", "cnn"])
    with pytest.raises(ParameterError, match=r"parameter '--model': describes a model problem"):
        train_spec(a)
    with pytest.raises(ParameterError, match=r"parameter 'model': describes a model problem"):
        sweep_run_spec({"algorithm": "sl", "problem": "quadratic", "model": "cnn"})


def test_a_check_sorts_name_value_for_its_result() -> None:
    q = check_spec({"result": "sl_noniid/thm1", "T": 10, "L": 2.0})
    assert q.problem is None and q.overrides == {"L": 2.0} and q.batch_size(q.on_model) == 4
    m = check_spec({"result": "sl_noniid/thm1", "model": "mlp", "eta_l": 0.01, "K": 3, "order": "fixed"})
    assert m.step == 0.01 and m.params == {"K": 3, "order": "fixed"} and m.on_model and m.batch_size(True) == 32
    assert m.problem is not None and m.problem.kind == "model" and m.problem.partition == "dirichlet:0.5"
    with pytest.raises(ParameterError, match="does not use it"):
        check_spec({"result": "sl_noniid/thm1", "zz": 1.0})
    with pytest.raises(ParameterError) as e:
        check_spec({"result": "sl_noniid/thm1", "order": "fixed"})
    assert e.value.name == "params.order" and flag(e.value.name) == "--order"


def test_every_measure_field_is_printed_as_its_flag() -> None:
    # an error naming a measure field reaches the user as the flag that sets it (found missing for --cuts)
    from dataclasses import fields

    from verify.measurespec import MeasureSpec

    for f in fields(MeasureSpec):
        assert flag(f"measure.{f.name}").startswith("--"), f.name
