"""Results of your own (issue: "your own theorem"): a bound declared in a TOML or YAML file, loaded with
``--results FILE`` or ``SFLTHEORY_RESULTS``, works through show, bound, check-lr, compare, plan and audit; a
file with a planted error gives one line naming the file, the result and the field, exit status 2."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

import sfltheory as st
from sfltheory import lexicon, registry
from sfltheory import vocabulary as vocab
from sfltheory.userresults import ENV, UserResultError
from verify.app import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "my_theorem.toml"
R = ["--results", str(EXAMPLE)]
# the worked example's numbers (README): L = 2, F = 1, T = 1000, sigma^2 = 1/2
NUMBERS = ["L=2", "F=1", "T=1000", "sigma2=0.5"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(autouse=True)
def _no_user_results(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(ENV, raising=False)
    yield
    assert not registry.user_results(), "a test left user results in the catalogue"


# --- the worked example, end to end through the CLI -------------------------------------------------------
def test_show_prints_the_reference_terms_and_hypotheses(capsys) -> None:
    rc, out, err = run(capsys, *R, "show", "mine/sgd")
    assert rc == 0, err
    assert "mine/sgd  (theorem) SGD with a fixed step" in out
    assert "my_theorem.toml, Theorem 4.8" in out and "Bottou, F. E. Curtis, J. Nocedal" in out
    assert "optimisation: \\frac{2 \\mathcal{F}}{T \\eta}" in out
    assert "[statement/step_size] \\eta \\le \\frac{1}{L}" in out
    assert "L-smoothness" in out and "bounded variance" in out
    rc, out, _ = run(capsys, *R, "show", "mine/sgd", "--json")
    d = json.loads(out)
    assert d["reference"].startswith("L. Bottou") and d["step"] == "eta"
    assert [a["key"] for a in d["assumptions"]] == ["smoothness", "bounded_variance"]
    assert {h["condition"] for h in d["hypotheses"]} == {"\\eta <= \\frac{1}{L}"}


def test_bound_matches_the_hand_calculation(capsys) -> None:
    # 2F/(eta T) = 2*1/(0.1*1000) = 0.02; eta L sigma^2 = 0.1*2*0.5 = 0.1; bound 0.12, and eta = 0.1 <= 1/L = 0.5
    rc, out, err = run(capsys, *R, "bound", "mine/sgd", *NUMBERS, "eta=0.1", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["value"] == pytest.approx(0.12, rel=1e-12)
    assert d["terms"] == pytest.approx({"optimisation": 0.02, "noise": 0.1}, rel=1e-12)
    assert d["applies"] is True and d["hypotheses"][0]["slack"] == pytest.approx(0.4)
    rc, out, _ = run(capsys, "bound", "mine/sgd", *NUMBERS, "eta=0.1", *R)  # --results after the command too
    # the answer first, then the table
    assert rc == 0 and out.startswith("mine/sgd: the bound is 0.12; every hypothesis holds")
    assert "mine/sgd: bound = 0.12" in out.splitlines()[1]


def test_bound_of_the_corollary_derives_its_step(capsys) -> None:
    # eta = 1/(L sqrt T) = 1/(2 sqrt 1000); bound (2FL + sigma^2)/sqrt T = 4.5/sqrt(1000) = 0.142302...
    rc, out, err = run(capsys, *R, "bound", "mine/sgd_cor", *NUMBERS, "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["value"] == pytest.approx(4.5 / 1000**0.5, rel=1e-12)
    assert d["parameters"]["eta"] == pytest.approx(1 / (2 * 1000**0.5), rel=1e-12)
    assert "eta" in d["derived"]


def test_check_lr_gives_the_largest_step(capsys) -> None:
    # the one branch eta <= 1/L: the largest step is 1/L = 0.5
    rc, out, err = run(capsys, *R, "check-lr", "mine/sgd", "L=2", "eta=0.1", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["max_step"] == pytest.approx(0.5, rel=1e-12) and d["binding"] == "eta<=1/L"
    rc, out, _ = run(capsys, *R, "check-lr", "mine/sgd", "L=2", "eta=0.6")
    assert rc == 1 and "reduce eta to <= 0.5" in out  # check-lr's exit status: the step violates the branch
    # with every constant, the bound at the largest step and at the bound-minimising one:
    # at eta = 0.5: 2/(0.5*1000) + 0.5*2*0.5 = 0.504; minimising: eta = sqrt(2F/(T L sigma^2)) = sqrt(0.002)
    rc, out, _ = run(capsys, *R, "check-lr", "mine/sgd", *NUMBERS, "--json")
    d = json.loads(out)
    assert d["bound_at"]["largest_feasible"]["bound"] == pytest.approx(0.504, rel=1e-9)
    assert d["bound_at"]["bound_minimising"]["step"] == pytest.approx(0.002**0.5, rel=1e-4)


def test_compare_with_a_built_in_result(capsys) -> None:
    # sfl_aux/thm3 (SplitFed's server side) on the same constants, with M = 4 clients, l = 1, no heterogeneity
    rc, out, err = run(capsys, *R, "compare", "mine/sgd", "mine/sgd_cor", "sfl_aux/thm3", *NUMBERS, "M=4", "l=1",
                       "eps2=0", "--require", "all", "--json")  # fmt: skip
    assert rc == 0, err
    rows = {r["result"]: r for r in json.loads(out)}
    assert set(rows) == {"mine/sgd", "mine/sgd_cor", "sfl_aux/thm3"}
    # mine/sgd at its largest step 1/L = 0.5: 2/(0.5*1000) + 0.5*2*0.5 = 0.504
    assert rows["mine/sgd"]["step"] == pytest.approx(0.5) and rows["mine/sgd"]["bound"] == pytest.approx(0.504)
    # the corollary at its own step 1/(L sqrt T): 4.5/sqrt(1000)
    assert rows["mine/sgd_cor"]["step"] == pytest.approx(1 / (2 * 1000**0.5))
    assert rows["mine/sgd_cor"]["bound"] == pytest.approx(4.5 / 1000**0.5, rel=1e-9)
    assert all("the bound applies" in r["verdict"] for r in rows.values())
    # at the bound-minimising step: eta = sqrt(2F/(T L sigma^2)) = sqrt(0.002), bound 2 sqrt(0.002)
    rc, out, err = run(capsys, *R, "compare", "mine/sgd", *NUMBERS, "--step", "joint", "--json")
    (row,) = json.loads(out)
    assert row["step"] == pytest.approx(0.002**0.5, rel=1e-4) and row["bound"] == pytest.approx(2 * 0.002**0.5)


def test_plan_over_the_rounds(capsys) -> None:
    rc, out, err = run(capsys, *R, "plan", "mine/sgd", "L=2", "F=1", "sigma2=0.5", "--over", "T", "--grid",
                       "10,100,1000", "--json")  # fmt: skip
    assert rc == 0, err
    # at the largest step 1/L = 0.5 the bound is 2/(0.5 T) + 0.5: best at the largest T of the grid
    best = json.loads(out)["best"]
    assert best["over"] == "T" and best["value"] == 1000 and best["bound"] == pytest.approx(0.504, rel=1e-9)


def test_audit_runs_on_user_results(capsys) -> None:
    rc, out, err = run(capsys, *R, "audit", "mine/sgd", "mine/sgd_cor", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["results"] == ["mine/sgd", "mine/sgd_cor"]
    # the printed statements agree with the terms, the units agree, and the corollary follows from the theorem
    assert [f for f in d["findings"] if f["check"] in ("printed", "units", "corollary")] == []


def test_audit_finds_a_statement_that_disagrees_with_the_terms(capsys, tmp_path: Path) -> None:
    # the statement halves the noise term the terms encode: the printed check reports it, constant off
    f = tmp_path / "planted.toml"
    f.write_text(EXAMPLE.read_text().replace(r"+ \eta L \sigma^2'", r"+ \frac{\eta L \sigma^2}{2}'", 1))
    rc, out, err = run(capsys, "--results", str(f), "audit", "mine/sgd", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert [(x["result"], x["check"], x["severity"]) for x in d["findings"]] == [
        ("mine/sgd", "printed", "constant off")
    ]
    assert d["summary"]["mine"]["total"] == 1


def test_list_shows_the_user_paper_with_its_reference(capsys) -> None:
    rc, out, err = run(capsys, *R, "list", "--paper", "mine")
    assert rc == 0, err
    assert out.startswith("mine: L. Bottou") and "mine/sgd_cor" in out
    rc, out, _ = run(capsys, *R, "list")
    assert "mu_splitfed/thm4.1" in out and "mine/sgd" in out


def test_verify_says_a_user_result_has_no_experiment(capsys, tmp_path: Path) -> None:
    f = tmp_path / "b.yaml"
    f.write_text(YAML)  # the heavy-ball result declares no [experiment]
    rc, _, err = run(capsys, "--results", str(f), "verify", "mine2/heavy_ball")
    assert rc == 2
    assert err.count("\n") == 1 and "mine2/heavy_ball" in err and "no experiment" in err
    assert "[results.experiment]" in err


def test_verify_runs_the_experiment_a_user_declares(capsys) -> None:
    # examples/my_theorem.toml: plain SGD = FedAvg with one client, K = 1, eta_g = 1, on the default exact quadratic
    # (its constants L = 1, sigma2 = 1, F = 1 are reported); the admissible step is 1/L = 1, where the bound is
    # 2F/(eta T) + eta L sigma2 = 2/T + 1 at every T of the grid
    rc, out, err = run(capsys, *R, "verify", "mine/sgd", "--T", "10", "--json")
    assert rc == 0, err
    v = json.loads(out)["results"][0]
    assert v["algorithm"] == "fedavg" and v["verdict"] == "holds"
    assert v["constants"] == pytest.approx({"L": 1.0, "sigma2": 1.0, "F": 1.0}, rel=1e-12)
    leg = v["legs"][0]
    assert leg["mode"] == "admissible" and leg["step"] == pytest.approx(1.0)
    T = np.asarray(leg["T"], dtype=float)
    assert np.asarray(leg["predicted"]) == pytest.approx(2 / T + 1, rel=1e-9)
    assert np.all(np.asarray(leg["measured"]) <= np.asarray(leg["predicted"]))
    # the corollary at its own step 1/(L sqrt T): bound (2FL + sigma2)/sqrt(T) = 3/sqrt(T)
    rc, out, err = run(capsys, *R, "verify", "mine/sgd_cor", "--T", "10", "--json")
    assert rc == 0, err
    leg = json.loads(out)["results"][0]["legs"][0]
    T = np.asarray(leg["T"], dtype=float)
    assert leg["verdict"] == "holds" and np.asarray(leg["predicted"]) == pytest.approx(3 / np.sqrt(T), rel=1e-9)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('algorithm = "fedavg"', 'algorithm = "fedavgg"', "experiment.algorithm': unknown algorithm 'fedavgg'"),
        ('step_to = ["eta_l"]', "step_to = []", "experiment.step_to': must name the algorithm's step parameters"),
        ("M = 1\n", "M = 0\n", "experiment.M': must be an integer >= 1"),
        ('lhs = "min"\n', 'lhs = "mean"\n', "experiment.lhs'"),
        ("params = { K = 1, eta_g = 1 }\n", 'params = { K = "one" }\n', "experiment.params.K': must be a number"),
        ('[results.experiment]\nalgorithm = "fedavg"', '[results.experiment]\nalgorithm = "fedavg"\nseed = 1',
         "experiment: unknown field 'seed'"),
    ],
)  # fmt: skip
def test_a_bad_experiment_is_one_line(capsys, tmp_path: Path, old: str, new: str, message: str) -> None:
    text = EXAMPLE.read_text()
    assert old in text
    f = tmp_path / "planted.toml"
    f.write_text(text.replace(old, new, 1))
    rc, _, err = run(capsys, "--results", str(f), "verify", "mine/sgd", "--T", "5")
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert message in err, err


def test_user_results_last_one_command_and_stay_out_of_the_docs(capsys) -> None:
    from sfltheory import report

    assert run(capsys, *R, "show", "mine/sgd")[0] == 0
    assert "mine/sgd" not in st.catalogue()  # loaded for the command only
    with registry.using([EXAMPLE]):
        assert st.get("mine/sgd").provenance.seed == "my_theorem.toml"
        assert registry.origin("mine/sgd") == str(EXAMPLE)
        assert "mine" not in report.list_markdown()  # docs/CATALOGUE.md lists the built-in papers only
    assert "mine/sgd" not in st.catalogue()


# --- the other routes: the environment variable, YAML, new vocabulary ------------------------------------
YAML = r"""
vocabulary:
  - name: beta_m
    latex: '\beta'
    meaning: "momentum parameter of the heavy-ball method"
    domain: fraction
results:
  - id: mine2/heavy_ball
    kind: theorem
    title: "a heavy-ball variant"
    reference: "Me, \"A note on momentum\", manuscript under review, 2025"
    where: {label: "Theorem 2", equation: "(7)"}
    lhs: "min over t < T of E||grad f(x^t)||^2"
    step: eta
    assumptions:
      - smoothness
      - key: mine2_momentum_noise
        name: "bounded variance of the momentum buffer"
        statement: '\mathbb{E}\|m^t-\nabla f(x^t)\|^2 \le \sigma^2'
        introduces: [sigma2]
    terms:
      - {name: gap, latex: '\frac{2(1-\beta)F}{\eta T}', meaning: "initial gap"}
      - {name: noise, latex: '\frac{\eta L sigma2}{1-\beta}', meaning: "noise, written with an ASCII name"}
    hypotheses:
      - {name: step, latex: '\frac{1-\beta}{2L} \ge \eta', kind: step_size}
      - {name: beta<1, latex: '\beta < 1', kind: domain}
"""


def test_env_var_with_a_directory_of_toml_and_yaml(capsys, tmp_path: Path, monkeypatch) -> None:
    shutil.copy(EXAMPLE, tmp_path / "a.toml")
    (tmp_path / "b.yaml").write_text(YAML)
    (tmp_path / "notes.txt").write_text("not a results file")  # other files in the directory are left alone
    monkeypatch.setenv(ENV, str(tmp_path))
    rc, out, err = run(capsys, "list", "--json")
    assert rc == 0, err
    ids = {r["id"] for r in json.loads(out)}
    assert {"mine/sgd", "mine/sgd_cor", "mine2/heavy_ball"} <= ids
    # beta = 0.5, eta = 0.1, L = 2, F = 1, T = 1000, sigma^2 = 0.5:
    # gap 2*0.5*1/(0.1*1000) = 0.01; noise 0.1*2*0.5/0.5 = 0.2; step branch eta <= (1-beta)/(2L) = 0.125
    rc, out, err = run(capsys, "bound", "mine2/heavy_ball", *NUMBERS, "eta=0.1", "beta_m=0.5", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["value"] == pytest.approx(0.21, rel=1e-12) and d["applies"] is True
    rc, out, _ = run(capsys, "check-lr", "mine2/heavy_ball", "L=2", "beta_m=0.5", "--json")
    assert json.loads(out)["max_step"] == pytest.approx(0.125, rel=1e-12)
    rc, out, _ = run(capsys, "vocabulary")
    assert "beta_m" in out and "momentum" in out
    monkeypatch.delenv(ENV)
    assert not lexicon.is_known("beta_m")  # the user's names leave with the results


def test_yaml_needs_pyyaml_and_says_how_to_get_it(capsys, tmp_path: Path, monkeypatch) -> None:
    f = tmp_path / "b.yml"
    f.write_text(YAML)
    monkeypatch.setitem(sys.modules, "yaml", None)  # as if PyYAML were not installed
    rc, _, err = run(capsys, "--results", str(f), "list")
    assert rc == 2 and err.count("\n") == 1 and "pip install pyyaml" in err


def test_a_missing_path_is_one_line(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(ENV, str(tmp_path / "nowhere"))
    rc, _, err = run(capsys, "list")
    assert rc == 2 and err.count("\n") == 1 and "SFLTHEORY_RESULTS: no such file or directory" in err
    monkeypatch.delenv(ENV)
    rc, _, err = run(capsys, "list", "--results")
    assert rc == 2 and "--results" in err


# --- planted errors -----------------------------------------------------------------------------------
BASE = r"""
[[results]]
id = "mine/thm1"
kind = "theorem"
title = "a bound"
reference = "Me, manuscript, 2025"
where = "Theorem 1"
lhs = "E||grad f||^2"
step = "eta"
assumptions = ["smoothness"]
terms = [
  { name = "a", latex = '\frac{2F}{\eta T}' },
  { name = "b", latex = '\eta L \sigma^2' },
]
hypotheses = [{ name = "h", latex = '\eta \le \frac{1}{L}', kind = "step_size" }]
"""
PLANTED = [
    # (what, replace this, with this, the message must contain)
    (
        "malformed LaTeX",
        r"'\frac{2F}{\eta T}'",
        r"'\frac{2F}{'",
        r"result 'mine/thm1': terms[0].latex: malformed LaTeX near '\frac{2F}{'",
    ),
    (
        "unknown symbol",
        r"'\eta L \sigma^2'",
        r"'zeta L \sigma^2'",
        "result 'mine/thm1': terms[1].latex: unknown symbol 'zeta' (did you mean eta",
    ),
    (
        "unknown LaTeX symbol",
        r"'\eta L \sigma^2'",
        r"'\eta L \varsigma^2'",
        "result 'mine/thm1': terms[1].latex: unknown symbol",
    ),
    ("misspelt field", "terms = [", "termz = [", "result 'mine/thm1': unknown field 'termz'; did you mean terms?"),
    (
        "unknown assumption",
        '["smoothness"]',
        '["smooth"]',
        "result 'mine/thm1': assumptions[0]: unknown assumption 'smooth'; did you mean smoothness?",
    ),
    (
        "built-in paper key",
        'id = "mine/thm1"',
        'id = "mu_splitfed/thm1"',
        "result 'mu_splitfed/thm1': id: paper key 'mu_splitfed' is a built-in paper",
    ),
    (
        "bad hypothesis relation",
        r"'\eta \le \frac{1}{L}'",
        r"'\eta \ne \frac{1}{L}'",
        r"result 'mine/thm1': hypotheses[0].latex: bad relation '\ne'",
    ),
    ("no relation", r"'\eta \le \frac{1}{L}'", r"'\frac{1}{L}'", "hypotheses[0].latex: no relation"),
    (
        "bad hypothesis kind",
        'kind = "step_size"',
        'kind = "stepsize"',
        "hypotheses[0].kind: bad kind 'stepsize' (one of step_size, smoothing, coupling, domain, validity, choice; "
        "did you mean step_size?)",
    ),
    ("bad result kind", 'kind = "theorem"', 'kind = "therom"', "result 'mine/thm1': kind: bad kind 'therom'"),
    ("step_size without step", 'step = "eta"\n', "", "result 'mine/thm1': missing field 'step'"),
    (
        "step not in its condition",
        r"'\eta \le \frac{1}{L}'",
        r"'L \le 3'",
        "hypotheses[0].latex: a step_size condition must bound the step 'eta'",
    ),
    ("a relation as a term", r"'\eta L \sigma^2'", r"'\eta \le L'", "terms[1].latex: a formula, not a relation"),
    (
        "term not a string",
        r"latex = '\eta L \sigma^2'",
        "latex = 3",
        "terms[1].latex: must be a string (got an integer)",
    ),
    ("not TOML", "[[results]]", "[[results]", "not valid TOML"),
]


def _plant(tmp_path: Path, text: str) -> Path:
    f = tmp_path / "mine.toml"
    f.write_text(text)
    return f


def _one_line_error(capsys, f: Path) -> str:
    rc, out, err = run(capsys, "--results", str(f), "show", "mine/thm1")
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"sfltheory: error: {f}: ")
    return err


def test_the_base_file_loads(capsys, tmp_path: Path) -> None:
    rc, _, err = run(capsys, "--results", str(_plant(tmp_path, BASE)), "show", "mine/thm1")
    assert rc == 0, err


@pytest.mark.parametrize(("what", "old", "new", "message"), PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_error_is_one_line_naming_the_field(capsys, tmp_path: Path, what, old, new, message) -> None:
    assert old in BASE
    assert message in _one_line_error(capsys, _plant(tmp_path, BASE.replace(old, new, 1)))


def test_missing_field(capsys, tmp_path: Path) -> None:
    text = BASE.replace('lhs = "E||grad f||^2"\n', "")
    assert "result 'mine/thm1': missing field 'lhs'" in _one_line_error(capsys, _plant(tmp_path, text))
    text = BASE.replace(r"""{ name = "a", latex = '\frac{2F}{\eta T}' }""", '{ name = "a" }')
    assert "result 'mine/thm1': terms[0]: missing field 'latex'" in _one_line_error(capsys, _plant(tmp_path, text))


def test_duplicate_id(capsys, tmp_path: Path) -> None:
    err = _one_line_error(capsys, _plant(tmp_path, BASE + BASE))
    assert "result 'mine/thm1': id: duplicate result id 'mine/thm1'" in err


def test_bad_domain_of_a_new_name(capsys, tmp_path: Path) -> None:
    text = '[[vocabulary]]\nname = "beta_m"\nlatex = \'\\beta\'\nmeaning = "momentum"\ndomain = "postive"\n' + BASE
    err = _one_line_error(capsys, _plant(tmp_path, text))
    assert "vocabulary[0].domain: bad domain 'postive' (one of positive, nonneg, count, count0, fraction, real; " \
           "did you mean positive?)" in err  # fmt: skip


def test_a_new_name_may_not_redefine_a_canonical_one(capsys, tmp_path: Path) -> None:
    text = '[[vocabulary]]\nname = "L"\nlatex = "L"\nmeaning = "my L"\ndomain = "positive"\n' + BASE
    assert "vocabulary[0].name: 'L' is already in the vocabulary" in _one_line_error(capsys, _plant(tmp_path, text))


def test_loading_from_python_raises_user_result_error(tmp_path: Path) -> None:
    f = _plant(tmp_path, BASE.replace(r"'\eta L \sigma^2'", r"'\eta L \sigma^2 +'"))
    with pytest.raises(UserResultError) as e:
        registry.load_user_results([f])
    assert e.value.field == "terms[1].latex" and e.value.result == "mine/thm1"
    assert "mine/thm1" not in st.catalogue()  # an error leaves the catalogue as it was


def test_the_shared_parser_reads_latex_and_ascii_names() -> None:
    import sympy as sp

    from sfltheory.latex import MalformedLatex, UnknownSymbol, parse_formula, parse_relation

    L, T, eta, eta_c, tau, sigma_c2, F = vocab.symbols("L T eta eta_c tau sigma_c2 F")
    assert parse_formula(r"\frac{\sigma_c^2}{\eta_c \tau}") == sigma_c2 / (eta_c * tau)
    assert parse_formula(r"sigma_c2 / (eta_c tau)") == sigma_c2 / (eta_c * tau)  # the ASCII canonical names
    assert parse_formula(r"\frac12 FL + \mathcal{F}") == F * L / 2 + F  # \frac12 is 1/2; FL is F times L
    assert parse_formula(r"\max\{L, T\}") == sp.Max(L, T)
    assert parse_relation(r"\frac{1}{4L} \ge \eta") == (1 / (4 * L), ">=", eta)
    with pytest.raises(UnknownSymbol, match=r"unknown symbol 'zeta' \(did you mean eta"):
        parse_formula("zeta L")
    with pytest.raises(MalformedLatex, match=r"near '\\frac\{1\}\{'"):
        parse_formula(r"\eta + \frac{1}{")
    with pytest.raises(MalformedLatex):
        parse_formula("L +")


# --- a new name's dimension: the audit's units check covers it -----------------------------------------------
def _units(capsys, f: Path) -> tuple[list[tuple[str, str]], list[str]]:
    rc, out, err = run(capsys, "--results", str(f), "audit", "mine2/heavy_ball", "--json")
    assert rc == 0, err
    d = json.loads(out)
    found = [(x["check"], x["found"]) for x in d["findings"] if x["check"] == "units"]
    skipped = [s["reason"] for s in d.get("skipped", []) if s.get("check") == "units"]
    return found, skipped


def test_a_declared_dimension_lets_the_audit_check_units(capsys, tmp_path: Path) -> None:
    f = tmp_path / "b.yaml"
    # beta_m undeclared: the units check skips the result (no dimension for beta_m)
    f.write_text(YAML)
    found, skipped = _units(capsys, f)
    assert found == [] and any("beta_m" in s for s in skipped), skipped
    # beta_m a number ("1"): 2(1 - beta)F/(eta T) and eta L sigma2/(1 - beta) are loss^2/param^2 like the lhs
    f.write_text(YAML.replace("    domain: fraction\n", '    domain: fraction\n    dimension: "1"\n', 1))
    found, skipped = _units(capsys, f)
    assert found == [] and skipped == []
    # beta_m declared a loss: 1 - beta adds a number to a loss, which the units check reports
    f.write_text(YAML.replace("    domain: fraction\n", '    domain: fraction\n    dimension: "loss"\n', 1))
    found, _ = _units(capsys, f)
    # 2 - 2 beta and 1 - beta in both terms and in the step condition, and beta < 1 compares a loss with a number
    assert sorted(w.split(" adds")[0].split(":")[0] for _, w in found) == [
        "condition beta<1", "condition step", "term 'gap'", "term 'noise'"]  # fmt: skip
    assert any("beta<1" in w and "loss" in w for _, w in found), found


def test_a_bad_dimension_is_one_line(capsys, tmp_path: Path) -> None:
    text = (
        '[[vocabulary]]\nname = "beta_m"\nlatex = \'\\beta\'\nmeaning = "momentum"\ndomain = "fraction"\n'
        'dimension = "metres"\n' + BASE
    )
    err = _one_line_error(capsys, _plant(tmp_path, text))
    assert "vocabulary[0].dimension: 'metres' is no dimension" in err


def test_the_experiment_fields_a_file_may_give_are_the_experiments_own() -> None:
    # sfltheory cannot import verify: the file's field list is kept equal to verify's Experiment here
    from dataclasses import fields

    from sfltheory.experiments import Experiment
    from sfltheory.userresults import EXPERIMENT_FIELDS

    own = {f.name for f in fields(Experiment)}
    assert set(EXPERIMENT_FIELDS) <= own
    # the rest are not the user's to set: the result id, and what only a model problem takes
    assert own - set(EXPERIMENT_FIELDS) == {"result", "problem", "given", "given_note", "derive"}
