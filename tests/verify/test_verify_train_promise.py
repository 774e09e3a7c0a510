"""Issue 24, the ``verify`` and ``train`` commands: bad input is refused in one line (exit 2) before any run, never
an inf or NaN reported, a value starting with '-' reaches its option's own check, options that cannot combine are
refused, a full disk during ``train --out`` keeps the records (exit 1), an absurd T is refused after one round,
and the device check still holds. Each item of the issue has a test here, named after it."""

from __future__ import annotations

import errno
import json
import math
import shutil
import types
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sfltheory import outputs  # noqa: E402
from sfltheory.cliargs import Parser, options_given, parse_assignments, with_joined_values  # noqa: E402
from sfltheory.errors import ParameterError, SflTheoryError  # noqa: E402
from tests.refusal import never, refused  # noqa: E402
from verify.app import main  # noqa: E402
from verify.pipeline import job as jobs  # noqa: E402
from verify.pipeline.job import Job, run_job  # noqa: E402
from verify.pipeline.records import Leg, Verification  # noqa: E402
from verify.pipeline.verdicts import tightness  # noqa: E402
from verify.spec import CheckSpec  # noqa: E402
from verify.train import loop  # noqa: E402

QUAD = ["train", "fedavg", "--problem", "quadratic", "d=4", "M=2", "eta_l=0.1", "--quiet"]


def npz(path: Path, *, nan: bool = False) -> Path:
    """A tiny classification set of 40 samples of 64 features (an MLP's input), 10 classes; one NaN if asked."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 64)).astype(np.float32)
    if nan:
        X[3, 5] = np.nan
    np.savez(path, X=X, y=np.arange(40) % 10)
    return path


@pytest.fixture
def no_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check that starts running fails the test: bad input must be refused before."""
    monkeypatch.setattr(jobs, "cached_check", never)


# --- 1. verify refuses bad input before any run --------------------------------------------------------------------


def test_1_verify_bad_constant_refused_before_any_run(capsys: Any, no_run: None) -> None:
    line = refused(main, capsys, "verify", "mu_splitfed/thm4.1", "L=-1", "--T", "5")
    assert line == "sfltheory: error: parameter 'L': must be > 0 (got -1)"


def test_1_verify_missing_cut_refused_before_any_run(capsys: Any, no_run: None, tmp_path: Path) -> None:
    data = str(npz(tmp_path / "ok.npz"))
    line = refused(main, capsys, "verify", "cut_layer/prop1", "--model", "mlp", "--data", data, "--cut", "nonexist",
                   "--T", "2", "--seeds", "1")  # fmt: skip
    assert "parameter '--cut': 'nonexist' is not a cut" in line


def test_1_verify_nan_data_refused_before_any_run(capsys: Any, no_run: None, tmp_path: Path) -> None:
    data = str(npz(tmp_path / "nan.npz", nan=True))
    line = refused(main, capsys, "verify", "cut_layer/prop1", "--model", "mlp", "--data", data, "--T", "2",
                   "--seeds", "1")  # fmt: skip
    assert "parameter '--data'" in line and "NaN" in line


def test_1_verify_model_whose_forward_raises_refused_before_any_run(
    capsys: Any, no_run: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "boommods.py").write_text(
        "import torch.nn as nn\n"
        "class Boom(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__(); self.a = nn.Linear(64, 16)\n"
        "    def forward(self, x):\n"
        "        raise RuntimeError('boom')\n"
        "def boom():\n"
        "    return nn.Sequential(nn.Flatten(), Boom(), nn.Linear(16, 10))\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    data = str(npz(tmp_path / "ok.npz"))
    line = refused(main, capsys, "verify", "cut_layer/prop1", "--model", "boommods:boom", "--data", data, "--T", "2",
                   "--seeds", "1")  # fmt: skip
    assert "parameter '--model'" in line and "boom" in line


def test_1_every_check_prepared_before_the_first_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # the second check's bad constant is found before the first check runs
    monkeypatch.setattr(jobs, "cached_check", never)
    good = CheckSpec(result="sl_noniid/thm1@proof", T=3)
    bad = CheckSpec(result="mu_splitfed/thm4.1", T=3, overrides={"L": -1.0})
    with pytest.raises(ParameterError, match="parameter 'L': must be > 0"):
        run_job(Job(checks=(good, bad)))


def test_1_all_with_a_bad_name_refused_before_any_run(capsys: Any, no_run: None) -> None:
    line = refused(main, capsys, "verify", "--all", "--T", "3", "L=-1")
    assert "parameter 'L'" in line


def test_1_a_failure_at_run_time_stays_exit_1(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(*a: Any, **k: Any) -> None:
        raise SflTheoryError("the run failed")

    monkeypatch.setattr(jobs, "cached_check", fails)
    rc = main(["verify", "sl_noniid/thm1@proof", "--T", "3"])
    _, err = capsys.readouterr()
    assert rc == 1
    assert "sl_noniid/thm1@proof: the run failed" in err and "1 of 1 results failed" in err


# --- 2. never an inf or a NaN as a ratio ---------------------------------------------------------------------------


def test_2_bound_overflow_refused_naming_the_parameter(capsys: Any, no_run: None) -> None:
    # sigma_c2 = 1e308 makes the client-variance term about 4e308 > 1.8e308, the largest float
    line = refused(main, capsys, "verify", "mu_splitfed/thm4.1", "sigma_c2=1e308", "--T", "5")
    assert line.startswith("sfltheory: error: parameter 'sigma_c2': mu_splitfed/thm4.1's bound at these "
                           "constants is not finite")  # fmt: skip


def test_2_one_parameter_named_when_several_were_given(capsys: Any, no_run: None) -> None:
    # L = 1.17e305 alone overflows thm4.1's bound (3.4e606); sigma_c2 = 1 was given too: one name, the other said
    line = refused(main, capsys, "verify", "mu_splitfed/thm4.1", "--T", "2", "L=1.1703731346759874e+305",
                   "sigma_c2=1.0")  # fmt: skip
    assert line.startswith("sfltheory: error: parameter 'L': mu_splitfed/thm4.1's bound at these constants")
    assert "(with sigma_c2 as given) is not finite" in line


def test_2_tightness_is_nan_where_not_a_finite_ratio_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a NumPy overflow warning would fail here
        assert math.isnan(tightness(np.float64(1e308), np.float64(1e-10)))  # 1e318: past the float range
        assert math.isnan(tightness(math.inf, 1.0))
        assert math.isnan(tightness(1.0, 0.0))
        assert math.isnan(tightness(1.0, math.inf))
        assert tightness(6.0, 2.0) == 3.0


def void_verification() -> Verification:
    """A check whose bound is not finite at every T: tightness and decays NaN."""
    leg = Leg(mode="admissible", step=0.1, applies=True, failing=(), T=np.arange(1, 4), lhs=np.ones(3), lhs_se=None,
              bound=np.full(3, np.inf), verdict="void", first_violation=None, tightness=math.nan,
              slope_lhs=math.nan, slope_bound=math.nan)  # fmt: skip
    return Verification(result="mu_splitfed/thm4.1", algorithm="mu_split", method="exact", lhs="min", note="",
                        constants={}, constant_notes=[], params={}, legs=(leg,))  # fmt: skip


def test_2_a_ratio_not_finite_is_na_in_text_markdown_html_and_json() -> None:
    from verify.pipeline.job import outcome_text
    from verify.pipeline.report import document, html, jsonout, markdown

    v = void_verification()
    doc = document.build([v])
    text = outcome_text(types.SimpleNamespace(done=[v], worst=[], trends=[]))  # type: ignore[arg-type]
    for shown in (text, markdown.render(doc), html.render(doc)):
        assert "n/a (bound not finite)" in shown
        assert " inf" not in shown and ">inf<" not in shown and "nan" not in shown.lower()
    rec = jsonout.render(doc)["results"][0]["legs"][0]
    assert rec["tightness_at_T"] is None and rec["decay_exponent_measured"] is None
    json.dumps(jsonout.render(doc), allow_nan=False)  # strict JSON: no inf, no NaN


# --- 3. a choice states the values it accepts -----------------------------------------------------------------------


def test_3_choice_parameter_states_the_accepted_values(capsys: Any) -> None:
    line = refused(main, capsys, "train", "sfl_v1", "--problem", "quadratic", "aggregation=bogus", "T=2", "--quiet")
    assert line == "sfltheory: error: parameter 'aggregation': must be one of equal, dataset_size (got 'bogus')"
    line = refused(main, capsys, *QUAD, "K=abc", "T=2")
    assert line == "sfltheory: error: parameter 'K': must be a number (got 'abc')"  # train takes no list


def test_3_a_choice_is_accepted_and_used(capsys: Any) -> None:
    # sfl_aux's server_step is a choice of its own, not the time model's --server-step
    rc = main(["train", "sfl_aux", "--problem", "quadratic", "d=4", "M=2", "server_step=eta_over_M", "T=2",
               "--json"])  # fmt: skip
    out, _ = capsys.readouterr()
    assert rc == 0 and json.loads(out)["config"]["params"]["server_step"] == "eta_over_M"


def test_3_words_kept_only_for_their_names() -> None:
    assert parse_assignments(["aggregation=equal", "K=2"], words={"aggregation"}) == {"aggregation": "equal", "K": 2.0}
    with pytest.raises(ParameterError, match="must be a number or a comma-separated list of numbers"):
        parse_assignments(["K=x"])  # a sweep's rule where lists are taken


# --- 4. a value starting with '-' reaches its option's check ------------------------------------------------------


def test_4_negative_client_time_reaches_its_check(capsys: Any) -> None:
    line = refused(main, capsys, "train", "mu_splitfed", "--problem", "quadratic", "--client-time", "-1,2", "T=2")
    assert line == "sfltheory: error: parameter '--client-time': must be > 0 (got -1.0)"


def test_4_dash_value_joined_for_options_that_take_one() -> None:
    p = Parser(prog="x")
    p.add_argument("--ct")
    p.add_argument("--flag", action="store_true")
    assert with_joined_values(p, ["--ct", "-1,2", "--flag"]) == ["--ct=-1,2", "--flag"]
    assert with_joined_values(p, ["--ct", "--flag"]) == ["--ct", "--flag"]  # an option is no value
    assert with_joined_values(p, ["--", "--ct", "-1"]) == ["--", "--ct", "-1"]
    a = p.parse_args(["--ct", "-x", "--flag"])
    assert a.ct == "-x" and options_given(a) == ["--ct", "--flag"]


def test_4_argparse_errors_name_the_option_in_one_line(capsys: Any) -> None:
    with pytest.raises(SystemExit) as e:
        main(["train", "fedavg", "--clients", "0"])
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert err == "sfltheory: error: parameter '--clients': must be an integer >= 1 (got '0')\n"


# --- 5. options that cannot combine are refused -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["train", "sl", "--list"], "parameter '--list': lists the algorithms and runs nothing: not with ALGO 'sl'"),
        (["train", "fedavg", "--list", "--clients", "3"], "not with ALGO 'fedavg', --clients"),
        (["train", "--list", "--clients", "3"], "parameter '--list': lists the algorithms and runs nothing: not "
         "with --clients"),
        (["verify", "--list", "mu_splitfed/thm4.1"], "parameter '--list': lists the results with an experiment"),
        (["verify", "--list", "--all"], "not with --all"),
        (["verify", "--all", "mu_splitfed/thm4.1"], "parameter '--all': give result ids or --all, not both"),
        (["verify", "sl_noniid/thm1@proof", "--points", "5"], "parameter '--points': sets the rounds where a model's "
         "constants are measured; not on an exact quadratic"),
        (["verify", "--trends", "--trend", "tau_sweep"], "parameter '--trends': runs every trend check: not with "
         "--trend tau_sweep"),
        (["measure", "--model", "mlp", "--data", "digits", "--every", "5"], "parameter '--every': sets the SGD run "
         "of --steps N"),
        (["measure", "--model", "mlp", "--data", "digits", "--lam", "0.1"], "parameter '--lam': sets the "
         "zeroth-order estimator"),
    ],
)  # fmt: skip
def test_5_options_that_cannot_combine_are_refused(capsys: Any, argv: list[str], needle: str) -> None:
    assert needle in refused(main, capsys, *argv)


def test_5_list_alone_and_with_json_still_lists(capsys: Any) -> None:
    assert main(["train", "--list", "--json"]) == 0
    assert any(a["name"] == "fedavg" for a in json.loads(capsys.readouterr().out))


# --- 6. a full disk during train --out -------------------------------------------------------------------------------


def failing_save(monkeypatch: pytest.MonkeyPatch, nth: int, error: Exception) -> None:
    """torch.save raises ``error`` from its ``nth`` call on (a disk that fills up)."""
    real = torch.save
    calls = []

    def save(obj: Any, f: Any, *a: Any, **k: Any) -> None:
        calls.append(f)
        if len(calls) >= nth:
            raise error
        real(obj, f, *a, **k)

    monkeypatch.setattr(loop.torch, "save", save)


def test_6_full_disk_stops_the_run_keeps_the_records_and_the_checkpoint(
    capsys: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    failing_save(monkeypatch, 2, OSError(errno.ENOSPC, "No space left on device"))
    rc = main([*QUAD, "T=6", "--checkpoint-every", "2", "--out", str(out)])
    _, err = capsys.readouterr()
    assert rc == 1  # EXIT_WRITE_FAILED: work done, its write failed
    (line,) = err.splitlines()
    # checkpoints at t = 2 (written) and t = 4 (the disk is full): stopped at t = 4
    assert line.startswith(f"sfltheory: error: parameter '--out': cannot write {out}: No space left on device (the "
                           "run stopped at t = 4; the checkpoint there holds t = 2, intact); the result is saved in ")  # fmt: skip
    fallback = Path(line.rsplit("the result is saved in ", 1)[1])
    kept = json.loads((fallback / "run.json").read_text())
    assert [r["t"] for r in kept["records"]] == [0, 1, 2, 3, 4] and kept["status"] == "running"
    saved = torch.load(out / "state.pt", map_location="cpu", weights_only=False)
    assert len(saved["records"]) == 3  # t = 0, 1, 2: the last good checkpoint, intact
    assert not (out / "run.json").exists()
    shutil.rmtree(fallback)


def test_6_torch_runtime_error_on_a_full_disk_says_so(
    capsys: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    failing_save(
        monkeypatch, 1, RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 3392 vs 3286")
    )
    real = outputs.shutil.disk_usage  # write_reason reads the free space there
    monkeypatch.setattr(outputs.shutil, "disk_usage",
                        lambda p: real(p)._replace(free=0) if Path(p) == out else real(p))  # fmt: skip
    rc = main([*QUAD, "T=3", "--out", str(out)])
    _, err = capsys.readouterr()
    (line,) = err.splitlines()
    assert rc == 1 and "unexpected pos" not in line
    assert "No space left on device (the run stopped at t = 3; no checkpoint was written)" in line
    shutil.rmtree(Path(line.rsplit("the result is saved in ", 1)[1]))


# --- 7. an absurd T is refused after one round ---------------------------------------------------------------------


class Clock:
    """time.perf_counter advancing ``tick`` seconds a call (a round times itself with three: start, after the
    round, after its record)."""

    def __init__(self, tick: float) -> None:
        self.now, self.tick = 0.0, tick

    def perf_counter(self) -> float:
        self.now += self.tick
        return self.now


def test_7_train_absurd_T_refused_after_round_1_nothing_written(
    capsys: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loop, "time", Clock(0.135))  # round 1 with its record: 2 ticks = 0.27 s
    out = tmp_path / "run"
    line = refused(main, capsys, *QUAD, "T=9999999", "--record-every", "1", "--out", str(out))
    # 9999999 rounds x 0.27 s = 2.7e6 s = 31.2 days
    assert line == ("sfltheory: error: parameter 'T': T = 9999999 rounds would take about 31 days (round 1 took "
                    "0.27 s; the limit is 24 h): raise --max-hours or lower T")  # fmt: skip
    assert not out.exists()


def test_7_max_hours_raises_the_limit(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loop, "time", Clock(0.5))  # 1 s a round: T = 5 rounds take 5 s
    line = refused(main, capsys, *QUAD, "T=5", "--max-hours", "0.001")  # 3.6 s: too little
    assert "T = 5 rounds would take about 5 seconds" in line
    assert main([*QUAD, "T=5", "--max-hours", "0.01"]) == 0  # 36 s: enough


def test_7_verify_absurd_T_refused_before_any_run(capsys: Any, no_run: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # mu_splitfed is zeroth-order: Monte Carlo over 24 seeds; a probe round times the work before any run
    from verify.pipeline import check

    monkeypatch.setattr(check, "time", Clock(0.05))  # the probe's two rounds: 0.05 s, 0.025 s each
    line = refused(main, capsys, "verify", "mu_splitfed/thm4.1", "--T", "9999999")
    assert "parameter 'T': T = 9999999 rounds x 24 seeds" in line and "raise --max-hours or lower T" in line


def test_7_too_long_is_not_a_failed_check(monkeypatch: pytest.MonkeyPatch) -> None:
    def too_long(*a: Any, **k: Any) -> None:
        loop.check_budget(10**7, 1.0)

    monkeypatch.setattr(jobs, "cached_check", too_long)
    with pytest.raises(loop.TooLong, match="parameter 'T'"):
        run_job(Job(checks=(CheckSpec(result="sl_noniid/thm1@proof", T=3),)))


# --- 8. the device check still holds ---------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["tpu", "cuda:x"])
def test_8_unknown_device_refused(capsys: Any, device: str) -> None:
    line = refused(main, capsys, *QUAD, "T=2", "--device", device)
    assert line.startswith("sfltheory: error: parameter '--device': must be auto, cpu, cuda or cuda:N")


def test_8_absent_cuda_refused(capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    line = refused(main, capsys, *QUAD, "T=2", "--device", "cuda")
    assert "parameter '--device'" in line


def test_7_exact_check_absurd_T_refused_before_any_run(capsys: Any) -> None:
    # cut_layer/prop1 is first-order: exact moments; an exact round (its map reused) takes milliseconds, so 10^7
    # rounds x 2 legs take hours: over a budget of 1e-6 h (3.6 ms) whatever the machine
    line = refused(main, capsys, "verify", "cut_layer/prop1", "--T", "9999999", "--max-hours", "1e-6")
    assert "parameter 'T': T = 9999999 rounds x 2 step sizes" in line and "an exact round took" in line
