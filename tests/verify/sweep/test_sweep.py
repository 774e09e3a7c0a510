"""Sweeps (issue 17), in this process: declaring (TOML, YAML, Python), canonical keys, the serial executor against a
loop of `verify.train.run` written out here, resume after a kill, a failing configuration, a changed configuration,
the table (CSV, pandas), verify sweeps and their report, the tau trend check run as a sweep, and bad input.
The process pool and Ray are in tests/test_sweep_executors.py."""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from sfltheory.cliargs import Parser
from verify.sweep import Sweep, load, load_table, make_config, run_sweep
from verify.sweep.cli import register
from verify.sweep.runner import Progress
from verify.sweep.spec import config_key

SWEEP_TOML = """
[sweep]
name = "tiny"
series = ["gradnorm2"]

[base]
algorithm = "sl"
problem = "quadratic"
L = 1
sigma2 = 0.1
eps2 = 1
d = 10
M = 4
T = 6
batch = 8
K = 2

[grid]
eta_l = [0.05, 0.1]
seed = [0, 1]
"""


def write(tmp_path: Path, text: str, name: str = "tiny.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def reference(eta_l: float, seed: int, T: int = 6) -> object:
    """What `sfltheory train sl --problem quadratic ... seed=S` does, written out with the trainer's API."""
    from verify.problems import QuadraticProblem
    from verify.train import get, run

    p = QuadraticProblem.from_targets(L=1.0, sigma2=0.1, eps2=1.0, d=10, M=4, seed=seed)
    return run(get("sl")(eta_l=eta_l, K=2), p, T=T, batch=8, seed=seed, progress=False)


def values(rows) -> list[dict]:
    """Rows without what depends on the clock."""
    return [{k: v for k, v in r.items() if k not in ("seconds", "wall_time")} for r in rows]


def cli(argv: list[str], capsys) -> tuple[int, str, str]:
    from sfltheory.errors import SflTheoryError

    p = Parser(prog="sfltheory")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    register(sub)
    args = p.parse_args(argv)
    try:
        code = int(args.func(args))
    except SflTheoryError as e:  # what sfltheory.cli.main does
        print(f"sfltheory: error: {e}", file=sys.stderr)
        code = 2
    out, err = capsys.readouterr()
    return code, out, err


# --- declaring --------------------------------------------------------------------------------------------------


def test_grid_and_configs_expand_in_order_with_canonical_keys(tmp_path) -> None:
    sw = load(write(tmp_path, SWEEP_TOML + '\n[[configs]]\norder = "fixed"\n[[configs]]\norder = "random"\n'))
    assert sw.name == "tiny" and sw.out == tmp_path / "tiny.results"
    cs = sw.expand()
    assert len(cs) == 8 and len({c.key for c in cs}) == 8
    # configs outer, grid inner, the last grid name fastest
    assert [(c.params["order"], c.params["eta_l"], c.params["seed"]) for c in cs[:3]] == [
        ("fixed", 0.05, 0), ("fixed", 0.05, 1), ("fixed", 0.1, 0)]  # fmt: skip
    assert cs[0].params["L"] == 1 and isinstance(cs[0].params["L"], int)
    # 1 and 1.0 are the same configuration; any other change is another
    a = make_config("train", {"algorithm": "sl", "L": 1.0, "T": 6.0}, ["gradnorm2"])
    b = make_config("train", {"T": 6, "L": 1, "algorithm": "sl"}, ["gradnorm2"])
    assert a.key == b.key and len(a.key) == 20
    assert make_config("train", {"algorithm": "sl", "L": 1.0, "T": 7}, ["gradnorm2"]).key != a.key
    assert make_config("train", {"algorithm": "sl", "L": 1.0, "T": 6}).key != a.key  # other series recorded
    # duplicates (the same key) run once
    dup = Sweep(name="d", base={"algorithm": "sl"}, grid={"seed": [0, 0.0, 1]})
    assert [c.params["seed"] for c in dup.expand()] == [0, 1]


def test_yaml_python_and_json_declare_the_same_sweep(tmp_path) -> None:
    toml_keys = [c.key for c in load(write(tmp_path, SWEEP_TOML)).expand()]
    base = {"algorithm": "sl", "problem": "quadratic", "L": 1, "sigma2": 0.1, "eps2": 1, "d": 10, "M": 4, "T": 6,
            "batch": 8, "K": 2}  # fmt: skip
    raw = {"sweep": {"name": "tiny", "series": ["gradnorm2"]}, "base": base,
           "grid": {"eta_l": [0.05, 0.1], "seed": [0, 1]}}  # fmt: skip
    yaml_text = "sweep: {name: tiny, series: [gradnorm2]}\nbase: " + json.dumps(base) + (
        "\ngrid:\n  eta_l: [0.05, 0.1]\n  seed: [0, 1]\n")  # fmt: skip
    for name, text in [("s.yaml", yaml_text), ("s.json", json.dumps(raw)), ("s.py", f"SWEEP = {raw!r}\n")]:
        assert [c.key for c in load(write(tmp_path, text, name)).expand()] == toml_keys, name
    obj = write(tmp_path, f"from verify.sweep import Sweep\nSWEEP = Sweep(name='tiny', base={base!r}, "
                f"grid={{'eta_l': [0.05, 0.1], 'seed': [0, 1]}}, series=('gradnorm2',))\n", "o.py")  # fmt: skip
    assert [c.key for c in load(obj).expand()] == toml_keys


def test_the_key_names_the_package_version(monkeypatch) -> None:
    import sfltheory

    k = config_key("train", {"algorithm": "sl"})
    monkeypatch.setattr(sfltheory, "__version__", "99.0")
    assert config_key("train", {"algorithm": "sl"}) != k


# --- running: serial, against the trainer -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    d = tmp_path_factory.mktemp("serial")
    f = write(d, SWEEP_TOML)
    return f, run_sweep(f, executor="serial")


def test_serial_sweep_equals_the_trainer_run_by_hand(serial) -> None:
    _f, s = serial
    assert (s.total, s.skipped, s.finished, s.failed) == (4, 0, 4, 0)
    t = s.table
    assert t.column("status") == ["ok"] * 4
    assert t.columns[:6] == ("key", "status", "error", "seconds", "eta_l", "seed")  # what varies first
    for row, series in zip(t.rows, t.series("gradnorm2"), strict=True):
        ref = reference(row["eta_l"], row["seed"])
        last = ref.records[-1]
        assert row["run_status"] == "complete" and row["t"] == 6
        for name in ("gradnorm2", "gradnorm2_avg", "gradnorm2_min", "loss", "sim_time", "bytes_up"):
            assert row[name] == getattr(last, name), name  # exactly: the same computation, stored losslessly
        assert series == ref.series("gradnorm2").tolist()
    # the different step sizes and seeds really give different runs
    assert len(set(t.column("gradnorm2"))) == 4


def test_table_csv_pandas_and_reading_from_the_folder(serial) -> None:
    f, s = serial
    folder = f.parent / "tiny.results"
    again = load_table(folder)  # from sweep.json + results/, no sweep file needed
    assert again.rows == s.table.rows and load_table(f).rows == s.table.rows
    with open(folder / "table.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["key"] for r in rows] == s.table.column("key")
    assert [float(r["gradnorm2"]) for r in rows] == s.table.column("gradnorm2")
    pd = pytest.importorskip("pandas")
    df = s.table.to_pandas()
    assert isinstance(df, pd.DataFrame) and list(df.columns) == list(s.table.columns)
    assert df["gradnorm2"].tolist() == s.table.column("gradnorm2")
    assert df.groupby("eta_l")["gradnorm2_avg"].mean().index.tolist() == [0.05, 0.1]


def test_rerun_skips_everything_done(serial, capsys) -> None:
    f, _ = serial
    ran: list[str] = []
    s = run_sweep(f, executor="serial", on_result=lambda c, r: ran.append(c.key))
    assert ran == [] and (s.skipped, s.finished) == (4, 0)


def test_resume_after_a_kill_runs_only_the_rest(tmp_path) -> None:
    f = write(tmp_path, SWEEP_TOML)
    done: list[str] = []

    def killed_after_two(c, rec) -> None:
        done.append(c.key)
        if len(done) == 2:
            raise KeyboardInterrupt  # the sweep is killed after its second result is stored

    with pytest.raises(KeyboardInterrupt):
        run_sweep(f, executor="serial", on_result=killed_after_two)
    results = tmp_path / "tiny.results" / "results"
    assert sorted(p.stem for p in results.glob("*.json")) == sorted(done)
    before = {p.name: p.read_bytes() for p in results.glob("*.json")}
    (results / ".half-written.json.tmp").write_text("{")  # what a kill mid-write would leave: never read
    t = load_table(f)
    assert t.counts == {"ok": 2, "failed": 0, "pending": 2}
    ran: list[str] = []
    s = run_sweep(f, executor="serial", on_result=lambda c, r: ran.append(c.key))
    assert (s.skipped, s.finished) == (2, 2) and set(ran).isdisjoint(done) and len(ran) == 2
    assert all((results / n).read_bytes() == b for n, b in before.items())  # done results untouched
    for row in s.table.rows:  # and the resumed sweep equals the uninterrupted one
        assert row["gradnorm2"] == reference(row["eta_l"], row["seed"]).records[-1].gradnorm2


def test_a_failing_configuration_is_recorded_and_the_rest_go_on(tmp_path, capsys) -> None:
    f = write(tmp_path, SWEEP_TOML.replace("[grid]", "[[configs]]\nn = 2\n[[configs]]\nn = 8\n\n[grid]"))
    code, out, _err = cli(["sweep", str(f), "--executor", "serial", "--quiet"], capsys)
    assert code == 1  # some failed
    t = load_table(f)
    assert t.counts == {"ok": 4, "failed": 4, "pending": 0}
    bad = t.where(n=8)
    assert set(bad.column("status")) == {"failed"}
    assert all("parameter 'n': must be <= M = 4 clients (got 8)" in e for e in bad.column("error"))
    assert bad.column("gradnorm2") == [None] * 4
    assert "failed" in out and "must be <= M = 4" in out
    rec = json.loads((f.parent / "tiny.results" / "results" / f"{bad.rows[0]['key']}.json").read_text())
    assert rec["status"] == "failed" and "Traceback" in rec["traceback"]
    # the good ones are right
    good = t.where(n=2)
    for row in good.rows:
        from verify.problems import QuadraticProblem
        from verify.train import get, run

        p = QuadraticProblem.from_targets(L=1.0, sigma2=0.1, eps2=1.0, d=10, M=4, seed=row["seed"])
        ref = run(get("sl")(eta_l=row["eta_l"], K=2, n=2), p, T=6, batch=8, seed=row["seed"], progress=False)
        assert row["gradnorm2"] == ref.records[-1].gradnorm2
    # a rerun retries only the failed ones
    ran: list[str] = []
    s = run_sweep(f, executor="serial", on_result=lambda c, r: ran.append(r["status"]))
    assert s.skipped == 4 and ran == ["failed"] * 4


def test_a_changed_configuration_is_recomputed_never_reused(serial, tmp_path) -> None:
    _f0, s0 = serial
    f = write(tmp_path, SWEEP_TOML)
    run_sweep(f, executor="serial")
    old = load_table(f)
    assert values(old.rows) == values(s0.table.rows)
    f.write_text(SWEEP_TOML.replace("K = 2", "K = 3"))  # one shared parameter changes: every configuration
    ran: list[str] = []
    s = run_sweep(f, executor="serial", on_result=lambda c, r: ran.append(c.key))
    assert len(ran) == 4 and s.skipped == 0
    assert set(s.table.column("key")).isdisjoint(old.column("key"))
    assert len(list((tmp_path / "tiny.results" / "results").glob("*.json"))) == 8  # the old ones stay, unused
    for row in s.table.rows:
        from verify.problems import QuadraticProblem
        from verify.train import get, run

        p = QuadraticProblem.from_targets(L=1.0, sigma2=0.1, eps2=1.0, d=10, M=4, seed=row["seed"])
        ref = run(get("sl")(eta_l=row["eta_l"], K=3), p, T=6, batch=8, seed=row["seed"], progress=False)
        assert row["K"] == 3 and row["gradnorm2"] == ref.records[-1].gradnorm2
    # a stored file that does not match its configuration (edited, or a hash collision) is not trusted
    key = s.table.rows[0]["key"]
    path = tmp_path / "tiny.results" / "results" / f"{key}.json"
    rec = json.loads(path.read_text())
    rec["params"]["K"] = 2
    path.write_text(json.dumps(rec))
    assert load_table(f).rows[0]["status"] == "pending"


# --- verify sweeps, trend sweeps, progress ----------------------------------------------------------------------


def test_verify_sweep_records_verdicts_and_builds_the_report(tmp_path, capsys) -> None:
    from verify.pipeline.check import check
    from verify.spec import CheckSpec

    f = write(tmp_path, '[sweep]\nname = "v"\nkind = "verify"\n[base]\nresult = "sl_noniid/thm1@proof"\nT = 4\n'
              "[grid]\npractical = [true, false]\n", "v.toml")  # fmt: skip
    code, out, _ = cli(["sweep", str(f), "--executor", "serial", "--quiet"], capsys)
    assert code == 0 and "report written to" in out
    t = load_table(f)
    v = check(CheckSpec(result="sl_noniid/thm1@proof", T=4))
    assert len(v.legs) == 2 and t.column("practical") == [True, False]
    for row in t.rows:
        leg = v.legs[0]
        assert row["verdict"] == v.verdict and row["step"] == leg.step
        assert row["tightness"] == pytest.approx(leg.tightness, rel=1e-12)
        assert row["decay_measured"] == pytest.approx(leg.slope_lhs, rel=1e-12)
    assert t.column("practical_verdict") == [v.legs[1].verdict, None]
    assert t.rows[0]["practical_step"] == v.legs[1].step
    report = tmp_path / "v.results" / "report"
    md = (report / "report.md").read_text()
    assert "sl_noniid/thm1@proof" in md and (report / "report.html").exists()
    assert len(json.loads((report / "report.json").read_text())["results"]) == 2


def test_the_tau_trend_check_runs_as_a_sweep_and_equals_the_direct_check(tmp_path, capsys) -> None:
    from verify.pipeline import trends

    tiny = {"taus": (1, 4), "T": 4, "seeds": 2, "batch": 2, "d": 4, "d_c": 2, "M": 2, "client_time": (1.0, 2.0)}
    direct = trends.tau_sweep.check(**tiny).to_dict()
    f = write(tmp_path, '[sweep]\nname = "tau"\ntrend = "tau_sweep"\n[settings]\n'
              + "\n".join(f"{k} = {json.dumps(list(v) if isinstance(v, tuple) else v)}" for k, v in tiny.items()),
              "tau.toml")  # fmt: skip
    code, out, _ = cli(["sweep", str(f), "--executor", "serial", "--quiet"], capsys)
    assert code == 0 and "tau_sweep" in out
    got = json.loads((tmp_path / "tau.results" / "trend.json").read_text())
    direct.pop("seconds"), got.pop("seconds")
    assert got == json.loads(json.dumps(direct))
    assert (tmp_path / "tau.results" / "report" / "trend_tau_sweep.png").exists()
    t = load_table(tmp_path / "tau.results")  # the sweep's table: one row per (tau, seed) run
    assert len(t) == 4 and sorted(set(t.column("tau"))) == [1, 4] and t.column("problem_seed") == [0] * 4
    assert all(len(s or []) == 5 for s in t.series("gradnorm2_avg"))
    # a second run trains nothing
    code, out, _ = cli(["sweep", str(f), "--executor", "serial", "--quiet"], capsys)
    assert code == 0 and "4 done before, 0 finished" in out


def test_progress_line_counts_and_eta() -> None:
    import io
    import time

    buf = io.StringIO()
    p = Progress("demo", total=10, done_before=2, stream=buf)
    assert p.eta() is None and "ETA ?" in p.line()
    p.t0 = time.perf_counter() - 8.0  # 8 s for the 4 finished now: 2 s each, 4 left
    p.finished, p.failed, p.running = 3, 1, 2
    assert p.eta() == pytest.approx(8.0, abs=0.1)
    p.show(force=True)
    line = buf.getvalue()
    assert "5/10 finished, 2 running, 1 failed" in line and "ETA 0:08" in line


def test_list_and_json(serial, capsys) -> None:
    f, _ = serial
    code, out, _ = cli(["sweep", str(f), "--list"], capsys)
    assert code == 0 and out.count(" ok ") == 4 and "eta_l=0.05 seed=0" in out
    code, out, _ = cli(["sweep", str(f), "--json", "--executor", "serial"], capsys)
    raw = json.loads(out)
    assert code == 0 and raw["skipped"] == 4 and len(raw["rows"]) == 4 and math.isfinite(raw["rows"][0]["gradnorm2"])


# --- bad input: one line naming the parameter ---------------------------------------------------------------------

BAD = [
    ("[swep]\nname = 'x'\n", "parameter 'swep': unknown section"),
    ("[sweep]\nexecutor = 'ray'\n", "parameter 'sweep.executor': unknown setting"),
    ("[sweep]\nkind = 'plan'\n", "parameter 'sweep.kind': must be one of train, verify"),
    ("[sweep]\nname = 'a b'\n", "parameter 'sweep.name'"),
    ("[base]\nalgorithm = 'sl'\n[grid]\nseed = 3\n", "parameter 'grid.seed': must be a non-empty list"),
    ("[base]\nalgorithm = 'sl'\n[grid]\nseed = []\n", "parameter 'grid.seed': must be a non-empty list"),
    ("[base]\nproblem = 'quadratic'\n", "parameter 'algorithm': every train configuration names its algorithm"),
    ("[base]\nalgorithm = 'nope'\n", "parameter 'algorithm': unknown algorithm 'nope'"),
    (
        "[base]\nalgorithm = 'sl'\nproblem = 'quadratic'\neta_1 = 0.1\n",
        "parameter 'eta_1': algorithm 'sl' does not take it",
    ),
    (
        "[base]\nalgorithm = 'sl'\nproblem = 'quadratic'\n[grid]\neta_l = [0.1, -1]\n",
        "parameter 'eta_l': must be a positive number",
    ),
    ("[base]\nalgorithm = 'sl'\nloss = 'ce'\n", "parameter 'loss': names a column of the table"),
    ("[base]\nalgorithm = 'sl'\nT = 0\n", "parameter 'T': must be an integer >= 1"),
    ("[base]\nalgorithm = 'sl'\nseed = 1.5\n", "parameter 'seed': must be an integer >= 0"),
    (
        "[base]\nalgorithm = 'sl'\nproblem = 'quadratic'\nmodel = 'cnn'\n",
        "parameter 'model': describes a model problem",
    ),
    ("[base]\nalgorithm = 'sl'\nx = {a = 1}\n", "parameter 'base.x': must be a number, string, boolean or list"),
    ("[base]\nalgorithm = 'sl'\nx = nan\n", "parameter 'base.x': must be a finite number"),
    (
        "[sweep]\nkind = 'verify'\n[base]\nresult = 'sl_noniid/thm1@proof'\nzz = 1\n",
        "parameter 'zz': result 'sl_noniid/thm1@proof' does not use it",
    ),
    (
        "[sweep]\ntrend = 'tau_sweep'\n[grid]\nseed = [1]\n",
        "parameter 'grid': a trend sweep builds its own configurations",
    ),
    ("[sweep]\ntrend = 'tau_sweep'\n[settings]\ntau = [1]\n", "parameter 'settings.tau': tau_sweep does not take it"),
    ("[sweep]\ntrend = 'speed'\n", "parameter 'sweep.trend': must be one of tau_sweep, cut_sweep"),
    ("[sweep]\nnum_gpus = -1\n", "parameter 'sweep.num_gpus': must be a finite number >= 0"),
    ("[sweep\nname = 'x'\n", "bad.toml is not valid TOML: Expected ']' at the end of a table declaration (at line 1"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m.split(":")[0][11:] + str(i) for i, (_, m) in enumerate(BAD)])
def test_bad_sweep_files_are_one_line(tmp_path, capsys, text, message) -> None:
    f = write(tmp_path, text, "bad.toml")
    code, out, err = cli(["sweep", str(f), "--executor", "serial", "--quiet"], capsys)
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert not (tmp_path / "bad.results" / "results").exists()  # checked before any work


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("s.yaml", "sweep: [1,\n  2\n", "s.yaml is not valid YAML"),
        ("s.py", "raise RuntimeError('boom\\nsecond line')\n", "s.py raised RuntimeError: boom second line"),
        ("s.py", "X = 1\n", "parameter 'SWEEP': s.py must define SWEEP"),
        ("s.txt", "", "a sweep file is .toml, .yaml, .yml, .json or .py"),
    ],
)
def test_bad_files_of_every_format_are_one_line(tmp_path, capsys, name, text, message) -> None:
    code, _, err = cli(["sweep", str(write(tmp_path, text, name))], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, err


def test_bad_options_are_one_line(tmp_path, capsys) -> None:
    code, _, err = cli(["sweep", str(tmp_path / "none.toml")], capsys)
    assert code == 2 and "parameter 'FILE': no sweep file" in err
    f = write(tmp_path, SWEEP_TOML)
    code, _, err = cli(["sweep", str(f), "--address", "auto"], capsys)
    assert code == 2 and "parameter '--address': joins a Ray cluster" in err
    with pytest.raises(SystemExit) as e:
        cli(["sweep", str(f), "--max-parallel", "0"], capsys)
    assert e.value.code == 2
    assert "--max-parallel': must be an integer >= 1" in capsys.readouterr().err


def test_series_are_nan_where_a_run_diverged(tmp_path) -> None:
    f = write(tmp_path, SWEEP_TOML.replace("[grid]\neta_l = [0.05, 0.1]\nseed = [0, 1]", "[grid]\neta_l = [50.0]"))
    s = run_sweep(f, executor="serial")
    row = s.table.rows[0]
    assert s.failed == 0 and row["status"] == "ok" and row["run_status"] == "diverged"  # not a failure
    ser = s.table.series("gradnorm2")[0]
    assert ser is not None and len(ser) == row["t"] + 1 and np.all(np.isfinite(ser))


def test_the_example_sweep_files_are_valid() -> None:
    from verify.sweep.entries import check
    from verify.sweep.trends import check_settings

    root = Path(__file__).parents[3] / "sweeps"
    sizes = {}
    for f in sorted(root.iterdir()):
        sw = load(f)
        assert sw.out is not None and sw.out.parent == root.parent / "out" / "sweeps", f  # out/ is not tracked
        if sw.trend is not None:
            check_settings(sw.trend, sw.settings)
            sizes[f.name] = sw.trend
            continue
        cs = sw.expand()
        for c in cs:
            check(c.kind, c.params)  # every configuration is accepted (algorithm parameters, options)
        sizes[f.name] = len(cs)
    assert sizes == {"digits_cut.yaml": 72, "mu_splitfed_tau.toml": 30, "tau_trend.toml": "tau_sweep",
                     "verify_first_order.toml": 9}  # fmt: skip


def test_sfltheory_sweep_through_the_main_command(tmp_path, capsys) -> None:
    from verify.app import main

    f = write(tmp_path, SWEEP_TOML)
    try:
        code = main(["sweep", str(f), "--executor", "serial", "--quiet"])
    except SystemExit as e:  # argparse: the command is not registered (verify/cli.py does not call register yet)
        if "invalid choice: 'sweep'" in capsys.readouterr().err:
            pytest.skip("`sweep` is not wired into sfltheory's parser yet (verify.sweep.cli.register)")
        raise AssertionError(f"exit {e.code}") from None
    out = capsys.readouterr().out
    assert code == 0 and "4 finished and 0 failed" in out and load_table(f).counts["ok"] == 4
    assert main(["sweep", str(f), "--address", "auto"]) == 2
    assert "parameter '--address'" in capsys.readouterr().err
