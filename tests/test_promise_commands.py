"""Issue 24: the property-based guard of the one-line promise, extended to the commands that run work -- ``train``,
``verify``, ``sweep``, ``audit``, ``figs``, ``measure``, ``which``, ``errata`` and ``--results`` files.

Hypothesis combines a command, a destination (a new path, a file, a folder, under a file, a read-only place, a full
disk), a data file (NaN, inf, wrong shapes, odd labels, not a data file), a model (one with the wrong number of
outputs, one whose forward raises), sweep and theorem files (malformed, binary, empty, non-finite formulas) and
name=value numbers from the theory guard's NUMBERS/TEXT_JUNK. The promise (:func:`tests.promise_strategies.
assert_promise`): never a traceback; exit 0/1 with no inf/NaN reported; or exit 2 with one line ``sfltheory: error:
...``, nothing on stdout and nothing written, changed or removed in the work folder. Where the input breaks a rule
the test knows independently (a non-finite number, a destination that is a file, data with NaN, an option the
command would ignore), exit 2 is required. Every cause listed in issue 24 is a named ``@example``.

Default example counts keep the file under 90 s on a shared 2-core machine; SFLTHEORY_PROPERTY_EXAMPLES raises them.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import torch
from hypothesis import example, given
from hypothesis import strategies as hs

from tests.promise_strategies import (
    BAD_FORMULAS,
    BAD_MODELS,
    DATA_KINDS,
    DEST_KINDS,
    GOOD_FORMULAS,
    JUNK,
    MODELS,
    OK_DEST,
    RAW_SWEEPS,
    TOKENS,
    Outcome,
    assert_promise,
    bad_rounds,
    broken,
    destination,
    examples,
    first_line,
    hostile_places,
    rounds,
    run,
    snapshot,
    sweep_text,
    theorem_text,
    write_data,
)

CUDA = torch.cuda.is_available()
QUAD_SWEEP: dict[str, dict[str, Any]] = {
    "sweep": {"name": "s"},
    "base": {"algorithm": "fedavg", "problem": "quadratic", "T": 2},
}


def check(argv: list[str], work: Path, *, refuse: bool = False, names: tuple[str, ...] = ()) -> Outcome:
    """Run ``argv`` in ``work`` and assert the promise; return what it did (for extra checks)."""
    before = snapshot(work)
    o = run(argv, work)
    assert_promise(o, argv, work=work, before=before, refuse=refuse, names=names)
    return o


def data_verdict(kind: str, model: str) -> str:
    """ "ok", "refuse" or "either" for data ``kind`` on ``model`` (mlp sizes itself to the data; the factories take
    8 features and have 3 outputs)."""
    if model.endswith(":three_outputs"):  # three outputs fit the three classes of "good" data only
        return "ok" if kind == "good" else "refuse"
    if model in BAD_MODELS:
        return "refuse"
    if kind == "good" or (kind == "labels10" and model == "mlp"):
        return "ok"
    if kind in ("three_d", "float_labels"):  # float labels: a regression (--loss auto is mse for them)
        return "either" if model == "mlp" else "refuse"
    return "refuse"


# ---- output destinations -------------------------------------------------------------------------------------------
def output_argv(cmd: str, work: Path, dest: Path) -> list[str]:
    data = write_data(work, "good")
    if cmd == "sweep":
        (work / "s.toml").write_text(sweep_text(QUAD_SWEEP, "toml"))
    return {
        "verify": ["verify", "mu_splitfed/thm4.1", "--T", "2", "--seeds", "2", "--out", str(dest)],
        "audit": ["audit", "mu_splitfed/thm4.1", "--markdown", str(dest)],
        "measure": ["measure", "--model", "mlp", "--data", str(data), "--cut", "1", "--quiet", "--what", "L",
                    "--out", str(dest)],
        "measure-run-dir": ["measure", "--model", "mlp", "--data", str(data), "--cut", "1", "--quiet", "--what", "L",
                            "--steps", "1", "--every", "1", "--run-dir", str(dest)],
        "train": ["train", "fedavg", "--problem", "quadratic", "T=2", "--quiet", "--out", str(dest)],
        "train-tensorboard": ["train", "fedavg", "--problem", "quadratic", "T=1", "--quiet", "--tensorboard",
                              str(dest)],
        "figs": ["figs", "--small", "--out", str(dest), "terms_mu_splitfed"],
        "sweep": ["sweep", "s.toml", "--executor", "serial", "--quiet", "--out", str(dest)],
    }[cmd]  # fmt: skip


FOLDER_OPTION = {"verify", "measure-run-dir", "train", "train-tensorboard", "figs", "sweep"}
SLOW = {"audit", "figs"}  # seconds per run: drawn with a bad destination only (a named example runs each once)
OUTPUT_CMDS = ["verify", "audit", "measure", "measure-run-dir", "train", "train-tensorboard", "figs", "sweep"]
OUTPUTS = hs.sampled_from(OUTPUT_CMDS).flatmap(
    lambda c: hs.tuples(hs.just(c), hs.sampled_from([k for k in DEST_KINDS if c not in SLOW or k not in OK_DEST]))
)


@examples(12)
@given(case=OUTPUTS)
@example(case=("verify", "file"))  # causes: every output option onto a file, a folder, unwritable, a full disk
@example(case=("verify", "unwritable"))
@example(case=("verify", "full_disk"))
@example(case=("audit", "existing_dir"))  # --markdown into a folder that exists (a file in it): written
@example(case=("audit", "file"))  # --markdown onto a folder
@example(case=("audit", "under_file"))
@example(case=("audit", "unwritable"))
@example(case=("audit", "full_disk"))
@example(case=("measure", "file"))
@example(case=("measure", "unwritable"))
@example(case=("measure", "full_disk"))
@example(case=("train", "file"))
@example(case=("train", "under_file"))
@example(case=("train", "unwritable"))
@example(case=("train", "full_disk"))
@example(case=("figs", "new"))
@example(case=("figs", "file"))
@example(case=("figs", "unwritable"))
@example(case=("figs", "full_disk"))
@example(case=("sweep", "file"))
@example(case=("sweep", "unwritable"))
@example(case=("sweep", "full_disk"))
@example(case=("train-tensorboard", "full_disk"))
def test_output_destinations(case: tuple[str, str]) -> None:
    cmd, kind = case
    with tempfile.TemporaryDirectory() as t:
        work = Path(t)
        suffix = {"audit": ".md", "measure": ".json"}.get(cmd, "")
        dest = destination(work, kind, folder=cmd in FOLDER_OPTION, suffix=suffix)
        argv = output_argv(cmd, work, dest)
        folder_ok = kind == "no_parent" and cmd in FOLDER_OPTION  # a folder option creates the missing folders
        with hostile_places(work, kind):
            if kind == "full_disk":
                full_disk(argv, work)
            else:
                check(argv, work, refuse=kind not in OK_DEST and not folder_ok)


def full_disk(argv: list[str], work: Path) -> None:
    """A full disk (ENOSPC): no traceback; either refused before the work (exit 2, one line: the free-space
    estimate of the output check), or the work done and its write failed (exit 1, one error line naming where
    the result was kept, and it is there)."""
    before = snapshot(work)
    o = run(argv, work)
    cmd = " ".join(argv)
    if o.rc != 1:
        assert_promise(o, argv, work=work, before=before, refuse=True)
        return  # refused before any work: nothing computed, nothing to keep
    errors = [x for x in o.err.splitlines() if x.startswith("sfltheory: error: ")]
    assert len(errors) == 1, f"FULL DISK, EXIT 1 WITHOUT ONE ERROR LINE: {cmd} -> {o.err!r}"
    saved = re.search(r"saved in (\S+)", o.err)
    assert saved, f"FULL DISK, NO FALLBACK NAMED: {cmd} -> {first_line(o)}"
    assert Path(saved.group(1).rstrip(";,.)")).exists(), f"FALLBACK MISSING: {cmd} -> {o.err!r}"


# ---- train ---------------------------------------------------------------------------------------------------------
TRAIN_PARAMS = hs.dictionaries(
    hs.sampled_from(["eta_l", "eta_g", "K", "n", "batch", "seed", "aggregation", "nope"]),
    hs.one_of(hs.sampled_from(["1", "0.05", "2", "0"]), JUNK, hs.just("bogus")),
    max_size=2,
)
TRAIN_FLAGS = hs.fixed_dictionaries(
    {},
    optional={
        "--device": hs.sampled_from(["cpu", "auto", "cuda", "tpu", "cuda:7", ""]),
        "--partition": hs.sampled_from(["iid", "dirichlet:-1", "dirichlet:nan", "shards:0", "sorted", "nope:1"]),
        "--client-time": hs.sampled_from(["=-1,2", "=1,2", "=nan,1", "=1", "=1,1,1"]),
        "--clients": hs.sampled_from(["2", "0", "-1", "1e9", "2.5", "nan"]),
        "--cut": hs.sampled_from(["1", "0", "99", "nope"]),
        "--eval-samples": hs.sampled_from(["4", "0", "-3"]),
    },
)


def bad_flag(flag: str, value: str) -> bool:
    """Values these flags' rules exclude (the test's own reading of the rules in the help)."""
    bad = {
        "--device": value in ("tpu", "") or (value.startswith("cuda") and (not CUDA or value == "cuda:7")),
        "--partition": value not in ("iid", "sorted"),
        "--client-time": value not in ("=1,2",),  # one time per client (2 clients), each finite > 0
        "--clients": value != "2",
        "--cut": value in ("0", "99", "nope"),
        "--eval-samples": value in ("0", "-3"),
    }
    return bad[flag]


def bad_param(name: str, value: str) -> bool:
    if name in ("aggregation", "nope") or broken(value):
        return True
    v = float(value)
    if name in ("K", "batch", "n"):
        return v != int(v) or v < (0 if name == "n" else 1)
    if name == "seed":
        return v != int(v) or v < 0
    return v <= 0  # a step size


@examples(12)
@given(
    data=hs.sampled_from(DATA_KINDS),
    model=hs.sampled_from(MODELS + BAD_MODELS),
    t=rounds(),
    params=TRAIN_PARAMS,
    flags=TRAIN_FLAGS,
    dup=hs.sampled_from(["", "--quiet", "--model", "T"]),
)
@example(data="good", model="mlp", t="1e20", params={}, flags={}, dup="")  # cause: T = 1e20
@example(data="nan", model="mlp", t="1", params={}, flags={}, dup="")  # cause: NaN data
@example(data="inf", model="mlp", t="1", params={}, flags={}, dup="")  # cause: inf data
@example(data="labels100", model="mlp", t="1", params={}, flags={}, dup="")  # cause: labels 100..109
@example(data="labels10", model="tests.promise_strategies:three_outputs", t="1", params={}, flags={}, dup="")
@example(data="good", model="tests.promise_strategies:raising", t="1", params={}, flags={}, dup="")  # forward raises
@example(data="good", model="mlp", t="1", params={}, flags={"--device": "cuda"}, dup="")  # cause: no CUDA here
@example(data="good", model="mlp", t="1", params={}, flags={"--device": "tpu"}, dup="")
@example(data="good", model="mlp", t="1", params={}, flags={"--partition": "dirichlet:-1"}, dup="")
@example(data="good", model="mlp", t="1", params={}, flags={"--client-time": "=-1,2"}, dup="")
@example(data="good", model="mlp", t="1", params={"aggregation": "bogus"}, flags={}, dup="")
@example(data="good", model="mlp", t="1", params={"eta_l": "1e308"}, flags={}, dup="")  # diverges: no NaN shown
@example(data="y_length", model="mlp", t="1", params={}, flags={}, dup="")
@example(data="x_1d", model="mlp", t="1", params={}, flags={}, dup="")
@example(data="good", model="mlp", t="1", params={}, flags={}, dup="--model")  # --model twice: one is ignored
def test_train(data: str, model: str, t: str, params: dict[str, str], flags: dict[str, str], dup: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = write_data(work, data)
        argv = ["train", "fedavg", "--model", model, "--data", str(path), f"T={t}", "--clients", "2", "--quiet"]
        argv += [f"{k}={v}" for k, v in params.items()]
        for k, v in flags.items():
            argv += [k + v] if v.startswith("=") else [k, v]
        if "--clients" in flags:
            argv[argv.index("--clients") : argv.index("--clients") + 2] = []  # the drawn count replaces the default
        if dup == "--model":
            argv += ["--model", "mlp"]
        elif dup == "T":
            argv += ["T=1"]
        elif dup:
            argv += [dup]
        refuse = (
            data_verdict(data, model) == "refuse"
            or bad_rounds(t)
            or any(bad_param(k, v) for k, v in params.items())
            or any(bad_flag(k, v) for k, v in flags.items())
            or dup in ("--model", "T")  # a value given twice: one of them would be silently ignored
        )
        if data_verdict(data, model) == "either" and not refuse:
            check(argv, work)
        else:
            check(argv, work, refuse=refuse)


@examples(6)
@given(first=hs.sampled_from(["1", "2"]), second=rounds(("1", "2", "3")), truncate=hs.booleans())
@example(first="2", second="1", truncate=False)  # cause: resuming a finished run with a smaller T: refused, kept
@example(first="2", second="1", truncate=True)  # --truncate writes beside it
def test_train_resume(first: str, second: str, truncate: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        base = ["train", "fedavg", "--problem", "quadratic", "--quiet", "--out", "run"]
        assert run([*base, f"T={first}"], work).rc == 0
        argv = [*base, f"T={second}", *(["--truncate"] if truncate else [])]
        smaller = not bad_rounds(second) and float(second) < float(first)
        check(argv, work, refuse=bad_rounds(second) or (smaller and not truncate) or (truncate and not smaller))


# ---- verify on the exact quadratic ---------------------------------------------------------------------------------
@examples(10)
@given(
    rid=hs.sampled_from(["mu_splitfed/thm4.1", "sl_noniid/thm1", "nope/x", ""]),
    t=rounds(("2", "3")),
    seeds=hs.one_of(hs.sampled_from(["2"]), JUNK),
    changes=hs.dictionaries(hs.sampled_from(["L", "sigma_c2", "F", "eta", "lam", "nope"]), TOKENS, max_size=2),
    as_json=hs.booleans(),
)
@example(rid="mu_splitfed/thm4.1", t="3", seeds="2", changes={"L": "-1"}, as_json=False)  # cause: L = -1
@example(rid="mu_splitfed/thm4.1", t="3", seeds="2", changes={"sigma_c2": "nan"}, as_json=False)  # cause
@example(rid="mu_splitfed/thm4.1", t="3", seeds="2", changes={"sigma_c2": "1e308"}, as_json=False)  # cause
@example(rid="mu_splitfed/thm4.1", t="1e14", seeds="2", changes={}, as_json=False)  # cause: T = 1e14
@example(rid="mu_splitfed/thm4.1", t="3", seeds="2", changes={"sigma_c2": "1e308"}, as_json=True)
def test_verify_quadratic(rid: str, t: str, seeds: str, changes: dict[str, str], as_json: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        argv = ["verify", rid, "--T", t, "--seeds", seeds, *(f"{k}={v}" for k, v in changes.items())]
        argv += ["--json"] if as_json else []
        s = None if broken(seeds) else float(seeds)
        refuse = (
            rid in ("nope/x", "")
            or bad_rounds(t)
            or s is None
            or s != int(s)
            or s < 1
            or s > 1e7  # more seeds than rounds ever allowed: hours of Monte Carlo
            or any(broken(v) or float(v) < 0 for v in changes.values())
            or "nope" in changes
            or float(changes.get("L", "1") if not broken(changes.get("L", "1")) else "nan") <= 0
        )
        check(argv, work, refuse=refuse)


# ---- verify on a model ---------------------------------------------------------------------------------------------
@examples(5)
@given(
    data=hs.sampled_from(DATA_KINDS),
    model=hs.sampled_from(MODELS + BAD_MODELS),
    cut=hs.sampled_from(["1", "absent", "", "99"]),
)
@example(data="good", model="mlp", cut="absent")  # cause: a missing --cut (the middle cut, said so, or refused)
@example(data="nan", model="mlp", cut="1")  # cause: NaN data
@example(data="good", model="tests.promise_strategies:raising", cut="1")  # cause: a model whose forward raises
@example(data="labels10", model="tests.promise_strategies:three_outputs", cut="1")  # cause: 3 outputs, 10 classes
@example(data="good", model="mlp", cut="1")  # an ordinary run: no NaN in its table
def test_verify_model(data: str, model: str, cut: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = write_data(work, data)
        argv = ["verify", "sl_noniid/thm2", "--model", model, "--data", str(path), "--T", "2", "--seeds", "1"]
        argv += ["--clients", "2", "--points", "2", "--batch", "8"]
        argv += [] if cut == "absent" else ["--cut", cut]
        verdict = data_verdict(data, model)
        check(argv, work, refuse=verdict == "refuse" or cut in ("", "99"))


# ---- measure -------------------------------------------------------------------------------------------------------
@examples(8)
@given(
    data=hs.sampled_from(DATA_KINDS),
    model=hs.sampled_from(MODELS + BAD_MODELS),
    state=hs.sampled_from(["", "data", "binary", "folder", "absent"]),
    flags=hs.fixed_dictionaries(
        {},
        optional={
            "--device": hs.sampled_from(["cpu", "cuda", "tpu"]),
            "--partition": hs.sampled_from(["iid", "dirichlet:-1"]),
            "--probes": hs.sampled_from(["3", "2", "nan", "-1"]),
            "--what": hs.sampled_from(["L", "sigma2", "nope", ""]),
        },
    ),
    as_json=hs.booleans(),
)
@example(data="good", model="mlp", state="data", flags={}, as_json=False)  # cause: --state on a non-checkpoint
@example(data="nan", model="mlp", state="", flags={}, as_json=False)
@example(data="inf", model="mlp", state="", flags={}, as_json=True)
@example(data="labels100", model="mlp", state="", flags={}, as_json=False)
@example(data="labels10", model="tests.promise_strategies:three_outputs", state="", flags={}, as_json=False)
@example(data="good", model="tests.promise_strategies:raising", state="", flags={}, as_json=False)
@example(data="good", model="mlp", state="", flags={"--device": "cuda"}, as_json=False)
@example(data="good", model="mlp", state="", flags={"--device": "tpu"}, as_json=False)
@example(data="good", model="mlp", state="", flags={"--probes": "2"}, as_json=False)  # names --probes
def test_measure(data: str, model: str, state: str, flags: dict[str, str], as_json: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        path = write_data(work, data)
        argv = ["measure", "--model", model, "--data", str(path), "--cut", "1", "--quiet", "--what", "L"]
        if state:
            spath = {"data": path, "binary": write_data(work, "binary"), "folder": work, "absent": work / "no.pt"}
            argv += ["--state", str(spath[state])]
        for k, v in flags.items():
            if k == "--what":
                argv[argv.index("--what") + 1] = v
            else:
                argv += [k, v]
        argv += ["--json"] if as_json else []
        refuse = (
            data_verdict(data, model) == "refuse"
            or bool(state)
            or flags.get("--device", "cpu") in ("tpu", "cuda" if not CUDA else "tpu")
            or flags.get("--partition", "iid") != "iid"
            or flags.get("--probes", "3") != "3"
            or flags.get("--what", "L") in ("nope", "")
        )
        check(argv, work, refuse=refuse)


# ---- sweep files ---------------------------------------------------------------------------------------------------
SWEEP_BASE = hs.fixed_dictionaries(
    {"algorithm": hs.sampled_from(["fedavg", "fedavg", "nope"]), "problem": hs.sampled_from(["quadratic", "q.json"])},
    optional={
        "T": hs.one_of(hs.sampled_from([1, 2]), hs.sampled_from([1e12, 0, -1, 2.5, float("nan"), float("inf")])),
        "aggregation": hs.just("bogus"),
        "eta_l": hs.sampled_from([0.05, float("nan"), -1.0, "x"]),
    },
)
SWEEP_CONTENT = hs.one_of(
    hs.tuples(
        SWEEP_BASE,
        hs.sampled_from([[], ["gradnorm2_avg"], ["nonexistent"]]),
        hs.sampled_from([{}, {"seed": [0]}, {"seed": []}, {"seed": 3}, {"nope": [1]}]),
        hs.sampled_from(["toml", "yaml", "json"]),
    ),
    hs.sampled_from(RAW_SWEEPS),
)


@examples(10)
@given(content=SWEEP_CONTENT, executor=hs.sampled_from(["serial", "serial", "ray"]))
@example(content=({"algorithm": "fedavg", "problem": "quadratic", "T": 1e12}, [], {}, "toml"), executor="serial")
@example(content=({"algorithm": "fedavg", "problem": "quadratic"}, ["nonexistent"], {}, "toml"), executor="serial")
@example(content=({"algorithm": "fedavg", "problem": "q.json"}, [], {}, "toml"), executor="serial")  # missing file
@example(content=({"algorithm": "fedavg", "problem": "quadratic", "aggregation": "bogus"}, [], {}, "yaml"),
         executor="serial")  # fmt: skip
@example(content=b"\x00\xff\xfe\x01binary", executor="serial")  # cause: a binary sweep file
@example(content=b"", executor="serial")  # cause: an empty sweep file
@example(content=({"algorithm": "fedavg", "problem": "quadratic", "T": 2}, [], {}, "toml"), executor="ray")
def test_sweep(content: Any, executor: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        names: tuple[str, ...] = ()
        if isinstance(content, bytes):
            f = work / "s.toml"
            f.write_bytes(content)
            refuse = True
        else:
            base, series, grid, fmt = content
            base = {"T": 2, **base}
            sections: dict[str, dict[str, Any]] = {"sweep": {"name": "s", "series": series}, "base": base}
            if grid:
                sections["grid"] = grid
            f = work / f"s.{fmt}"
            f.write_text(sweep_text(sections, fmt))
            t = base["T"]
            refuse = (
                base["algorithm"] == "nope"
                or base["problem"] == "q.json"
                or "aggregation" in base
                or series == ["nonexistent"]
                or grid not in ({}, {"seed": [0]})
                or not (isinstance(t, int) and 1 <= t <= 2)
                or base.get("eta_l", 0.05) != 0.05
            )
            names = tuple(f"{sec}.{k}" for sec, body in sections.items() for k in body)
            names += tuple(base) + tuple(grid) + ("problem.file",)
        argv = ["sweep", f.name, "--executor", executor, "--quiet", "--out", "res"]
        if executor == "ray":  # never a real cluster here: an address that does not parse
            argv += ["--address", "nonsense:abc"]
        check(argv, work, refuse=refuse or executor == "ray", names=names)


# ---- theorem files (--results) -------------------------------------------------------------------------------------
@examples(8)
@given(
    formula=hs.sampled_from(BAD_FORMULAS + GOOD_FORMULAS),
    cmd=hs.sampled_from(["list", "show", "bound", "verify", "check-lr"]),
    binary=hs.booleans(),
)
@example(formula=r"\frac{1}{L-L}", cmd="list", binary=False)  # causes: non-finite formulas
@example(formula=r"\log(0)", cmd="bound", binary=False)
@example(formula=r"\sqrt{-L}", cmd="bound", binary=False)
@example(formula=r"\infty", cmd="verify", binary=False)
@example(formula=r"\frac{F}{T}", cmd="list", binary=True)
def test_results_files(formula: str, cmd: str, binary: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        f = work / "mine.toml"
        if binary:
            f.write_bytes(b"\x00\xff" + theorem_text(formula).encode())
        else:
            f.write_text(theorem_text(formula))
        tail = {
            "list": [],
            "show": ["mine/t"],
            "bound": ["mine/t", "L=2", "F=1", "T=10", "sigma2=0.5", "eta=0.1"],
            "verify": ["mine/t", "--T", "2", "--seeds", "1"],
            "check-lr": ["mine/t", "L=2", "eta=0.1"],
        }[cmd]
        check(["--results", str(f), cmd, *tail], work, refuse=binary or formula in BAD_FORMULAS)


# ---- which, figs, errata, train --list: options a command would ignore ---------------------------------------------
SMALL = [
    (["which", "--client", "zeroth", "--algorithm", "fedavg"], True),  # cause: --client ignored by --algorithm
    (["which", "--algorithm", "fedavg"], False),
    (["which", "--algorithm", "nope"], True),
    (["which", "--client", "zeroth", "--json"], False),
    (["train", "sl", "--list"], True),  # cause: sl ignored by --list
    (["train", "--list"], False),
    (["train", "--list", "T=3"], True),
    (["figs", "--list", "NAME"], True),  # cause: NAME ignored by --list
    (["figs", "--list"], False),
    (["figs", "--list", "--small"], True),
    (["errata", "--paper", "nope"], True),  # cause: an unknown paper prints nothing, exit 0
    (["errata", "--paper", ""], True),
    (["errata", "--paper", "mu_splitfed"], False),
    (["verify", "--list", "mu_splitfed/thm4.1"], True),
    (["sweep", "s.toml", "--address", "auto"], True),  # --address without --executor ray
    (["audit", "nope/x"], True),
]


@examples(len(SMALL))
@given(case=hs.sampled_from(SMALL))
@example(case=SMALL[0])
@example(case=SMALL[4])
@example(case=SMALL[7])
@example(case=SMALL[10])
@example(case=SMALL[11])
def test_ignored_options(case: tuple[list[str], bool]) -> None:
    argv, refuse = case
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "s.toml").write_text(sweep_text(QUAD_SWEEP, "toml"))
        check(argv, work, refuse=refuse)


# ---- measured constants: a variant the result needs ----------------------------------------------------------------
@examples(4)
@given(
    keys=hs.sets(hs.sampled_from(["sigma_c2", "sigma_c2[max]", "sigma_s2", "sigma_s2[max]"]), min_size=1),
    cmd=hs.sampled_from(["bound", "check-lr", "plan"]),
)
@example(keys={"sigma_c2", "sigma_s2"}, cmd="bound")  # cause: sigma_c2 where sigma_c2[max] is needed
def test_constants_variants(keys: set[str], cmd: str) -> None:
    import json

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        consts = {"L": {"value": 1.0}, "F": {"value": 1.0}, **{k: {"value": 2.0} for k in keys}}
        (work / "c.json").write_text(json.dumps({"format": "sfltheory.constants/1", "constants": consts}))
        argv = [cmd, "mu_splitfed/thm4.1", "--constants", "c.json", "T=10", "eta=1e-3", "d_c=1", "lam=1e-3"]
        argv += ["d_s=1"] + (["tau=1"] if cmd != "plan" else [])
        o = check(argv, work)
        err = o.err
        for part in ("sigma_c2", "sigma_s2"):
            if (
                o.rc != 2 and part in keys and f"{part}[max]" not in keys
            ):  # the mean in the place of the max: never silently
                assert f"{part}[max]" in err, f"SILENT VARIANT ({part} for {part}[max]): {' '.join(argv)} -> {err!r}"
