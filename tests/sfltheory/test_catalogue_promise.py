"""Issue 24, the theory half: bad input to the catalogue commands and to a user's theorem file gets one line naming
the parameter and the rule (exit 2), never a traceback, an infinite "bound" or a silently ignored option.

1. a user's formula that is no finite real number (1/(L-L), log(0), sqrt(-L), \\infty) is refused when the file is
   loaded, not crashed on (KeyError 'ComplexInfinity', TypeError complex) or reported as an infinite bound;
2. ``errata --paper`` checks its key as ``list --paper`` does;
3. ``which --algorithm`` with a trait is refused (the trait would be ignored);
4. ``figs --list`` honours its NAMEs and refuses the drawing options it would ignore;
5. a constants file holding ``sigma_c2`` where a result needs ``sigma_c2[max]`` is told so, not "missing";
6. the library names its Python parameters (``name``, ``clients``, ``names``, ``out``); the CLI renames them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sfltheory import figs, registry
from sfltheory.algorithms import TRAITS, algorithm, results_of, which
from sfltheory.builtin import PAPERS, builtin_params, builtin_results
from sfltheory.constants import Constants
from sfltheory.errors import ParameterError
from sfltheory.userresults import UserResultError, not_real_at
from tests.refusal import never, refused
from verify.app import main

# --- 1. a user's formula must be a finite real number ---------------------------------------------------------
HEAD = """[[results]]
id = "mine/x"
kind = "theorem"
title = "t"
reference = "Me, manuscript, 2025"
where = "Theorem 1"
lhs = "E||grad f||^2"
"""


def _file(tmp_path: Path, terms: str, extra: str = "") -> Path:
    f = tmp_path / "my.toml"
    f.write_text(HEAD + f"terms = [ {{ name = 'a', latex = '\\frac{{F}}{{T}}' }}, {terms} ]\n" + extra)
    return f


# each is no real number for any L > 0: 1/(L-L) = 1/0; log(0) = -inf (SymPy: zoo); sqrt(-L) = i sqrt(L); \infty
NEVER_REAL = [
    (r"\frac{1}{L-L}", "zoo"),
    (r"\log(0)", "zoo"),
    (r"\sqrt{-L}", "I*sqrt(L)"),
    (r"\infty", "oo"),
    (r"\frac{0}{0}", "nan"),
]


@pytest.mark.parametrize(("latex", "gives"), NEVER_REAL, ids=[x[1] for x in NEVER_REAL])
def test_a_term_that_is_never_a_real_number_is_refused_at_load(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, latex: str, gives: str
) -> None:
    f = _file(tmp_path, f"{{ name = 'b', latex = '{latex}' }}")
    line = refused(main, capsys, "--results", str(f), "bound", "mine/x", "F=1", "T=10", "L=1")
    assert f"{f}: result 'mine/x': terms[1].latex: '{latex}' is not a finite real number" in line, line
    assert f"it is {gives} " in line, line


def test_a_term_not_real_at_a_valid_input_names_the_point(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # log(L - 1) at L = 1 (a valid smoothness constant) is log(0): the sampled point and the value are named
    f = _file(tmp_path, r"{ name = 'b', latex = '\log(L-1)' }")
    line = refused(main, capsys, "--results", str(f), "show", "mine/x")
    assert r"terms[1].latex: '\log(L-1)' is not a finite real number at L=1: it gives zoo" in line, line


def test_a_hypothesis_that_excludes_the_bad_values_lets_the_formula_load(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # with L > 1 stated, log(L - 1) is real wherever the hypotheses hold: the file loads and the bound is
    # F/T + log(L - 1) = 1/10 + log(e^2 + 1 - 1) = 0.1 + 2 at L = e^2 + 1
    hyp = "hypotheses = [{ name = 'L>1', latex = 'L > 1', kind = 'domain' }]\n"
    f = _file(tmp_path, r"{ name = 'b', latex = '\log(L-1)' }", hyp)
    rc = main(["--results", str(f), "bound", "mine/x", "F=1", "T=10", "L=8.38905609893065", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["value"] == pytest.approx(2.1, rel=1e-9)


def test_a_hypothesis_side_and_a_default_are_checked_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    hyp = r"step = 'eta'" + "\nhypotheses = [{ name = 'h', latex = '\\eta \\le \\frac{1}{L-L}', kind = 'step_size' }]\n"
    f = _file(tmp_path, r"{ name = 'b', latex = '\eta L' }", hyp)
    line = refused(main, capsys, "--results", str(f), "show", "mine/x")
    assert "hypotheses[0].latex: the right side of" in line and "it is zoo" in line, line
    dflt = "defaults = [{ name = 'eta', latex = '\\sqrt{-T}', rule = 'r' }]\n"
    f = _file(tmp_path, r"{ name = 'b', latex = '\eta L' }", dflt)
    line = refused(main, capsys, "--results", str(f), "show", "mine/x")
    assert "defaults[0].latex" in line and "I*sqrt(T)" in line, line


def test_a_huge_but_finite_formula_is_sampled_in_floats(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # T^(T^T) at the sampled T = 100 is 100^(10^200): finite and real, and as an exact integer it would never finish
    f = _file(tmp_path, r"{ name = 'b', latex = 'T^{T^{T}}' }")
    assert main(["--results", str(f), "show", "mine/x"]) == 0, capsys.readouterr().err


def test_loading_from_python_raises_a_user_result_error(tmp_path: Path) -> None:
    f = _file(tmp_path, r"{ name = 'b', latex = '\sqrt{-L}' }")
    with pytest.raises(UserResultError) as e:
        registry.load_user_results([f])
    assert e.value.field == "terms[1].latex" and e.value.result == "mine/x"


def test_every_builtin_result_passes_the_sampled_check() -> None:
    # the check must not refuse real theorems: every encoded bound is a finite real number at the sampled points
    # where its hypotheses hold
    params = {p.name: p for p in builtin_params()}
    assert [r.id for r in builtin_results() if not_real_at(r, params) is not None] == []


# --- 2. errata --paper --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["nope", ""])
def test_errata_refuses_an_unknown_paper(capsys: pytest.CaptureFixture[str], key: str) -> None:
    line = refused(main, capsys, "errata", "--paper", key)
    assert line.startswith(f"sfltheory: error: parameter '--paper': unknown paper key '{key}'; known: ")
    assert all(k in line for k in PAPERS)  # the built-in keys, as list --paper names them


def test_errata_of_a_known_paper_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["errata", "--paper", "mu_splitfed"]) == 0
    out = capsys.readouterr().out
    assert out and all(line.startswith("mu_splitfed: ") for line in out.splitlines())


# --- 3. which: --algorithm with a trait ---------------------------------------------------------------------------
@pytest.mark.parametrize("trait", list(TRAITS))
def test_which_refuses_algorithm_with_any_trait(capsys: pytest.CaptureFixture[str], trait: str) -> None:
    flag = f"--{trait.replace('_', '-')}"
    line = refused(main, capsys, "which", flag, TRAITS[trait][0], "--algorithm", "fedavg")
    assert line == (f"sfltheory: error: parameter '--algorithm': --algorithm names one algorithm; drop {flag} "
                    "(to match by traits) or drop --algorithm")  # fmt: skip


def test_which_traits_combine_as_filters(capsys: pytest.CaptureFixture[str]) -> None:
    # HERON-SFL is the one algorithm with zeroth-order clients and a first-order server (the papers' table)
    assert main(["which", "--client", "zeroth", "--server", "first", "--json"]) == 0
    assert [a["name"] for a in json.loads(capsys.readouterr().out)] == ["heron_sfl"]


def test_list_markdown_refuses_a_filter_it_would_ignore(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(main, capsys, "list", "--markdown", "--paper", "mu_splitfed")
    assert "parameter '--paper': --markdown writes the whole catalogue page" in line
    line = refused(main, capsys, "list", "--markdown", "--algorithm", "fedavg")
    assert "parameter '--algorithm'" in line and "drop --algorithm or drop --markdown" in line


# --- 4. figs --list -----------------------------------------------------------------------------------------------
def test_figs_list_refuses_an_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(main, capsys, "figs", "--list", "fig1")
    assert line.startswith("sfltheory: error: parameter 'NAME': unknown figure 'fig1'; figures: terms_mu_splitfed")


def test_figs_list_lists_the_named_figures_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["figs", "--list", "tau_opt", "terms_sl_noniid"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [x.split()[0] for x in out] == ["tau_opt", "terms_sl_noniid"]


@pytest.mark.parametrize(("option", "value"), [("--small", None), ("--out", "somewhere")])
def test_figs_list_refuses_the_drawing_options(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str, value: str | None
) -> None:
    args = [option] if value is None else [option, str(tmp_path / value)]
    line = refused(main, capsys, "figs", "--list", *args)
    assert line == f"sfltheory: error: parameter '{option}': --list draws nothing; drop {option} or drop --list"
    assert not (tmp_path / "somewhere").exists()


def test_figs_run_names_its_python_parameters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figs, "load", never)  # both are checked before any figure is drawn
    with pytest.raises(ParameterError) as e:
        figs.run(["nope"], tmp_path)
    assert e.value.name == "names"
    with pytest.raises(ParameterError) as e:
        figs.run("tau_opt", tmp_path)  # a string, not a list of names
    assert e.value.name == "names"
    a_file = tmp_path / "f"
    a_file.write_text("")
    with pytest.raises(ParameterError) as e:
        figs.run(["tau_opt"], a_file)
    assert e.value.name == "out" and "is a file, not a directory" in e.value.rule


# --- 5. a constants file with another variant ---------------------------------------------------------------------
def _constants(tmp_path: Path) -> Path:
    # mu_splitfed/thm4.1 states bounded variance "for every sample": it needs sigma_c2[max] and sigma_s2[max]
    consts = {k: {"value": 1.0} for k in ("L", "F", "sigma_c2", "sigma_s2")}
    f = tmp_path / "c.json"
    f.write_text(json.dumps({"format": "sfltheory.constants/1", "constants": consts, "meta": {}}))
    return f


def test_a_file_with_the_plain_name_is_told_the_variant_it_needs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = _constants(tmp_path)
    line = refused(main, capsys, "bound", "mu_splitfed/thm4.1", "--constants", str(f), "T=10", "tau=2")
    assert line.startswith(f"sfltheory: error: parameter '--constants': {f} has sigma_c2 ")
    assert "needs the variant sigma_c2[max] (stated for every sample" in line and "missing" not in line
    # given by hand, sigma_c2 is not read from the file: the next gap is sigma_s2's
    line = refused(main, capsys, "bound", "mu_splitfed/thm4.1", "--constants", str(f), "T=10", "sigma_c2=1")
    assert "has sigma_s2 " in line and "sigma_s2[max]" in line


def test_check_lr_is_not_refused_for_a_constant_of_the_bound_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Theorem 4.1's step conditions read L, tau, d_c, d_s (not the variances): check-lr runs as before
    f = _constants(tmp_path)
    rc = main(["check-lr", "mu_splitfed/thm4.1", "--constants", str(f), "tau=2", "d_c=100", "d_s=1", "eta=1e-4"])
    assert rc == 0, capsys.readouterr().err


def test_constants_evaluate_says_the_same_from_python(tmp_path: Path) -> None:
    c = Constants.load(_constants(tmp_path))
    with pytest.raises(ParameterError) as e:
        c.evaluate("mu_splitfed/thm4.1", T=10)
    assert e.value.name == "constants" and "has sigma_c2 " in e.value.rule and "sigma_c2[max]" in e.value.rule


# --- 6. Python names in library errors ----------------------------------------------------------------------------
def test_the_algorithm_table_names_python_parameters() -> None:
    with pytest.raises(ParameterError) as e:
        algorithm("nope")
    assert e.value.name == "name"
    with pytest.raises(ParameterError) as e:
        which(clients="async")
    assert e.value.name == "clients"
    with pytest.raises(ParameterError) as e:
        results_of(["fedavg", "nope"])
    assert e.value.name == "names"


def test_the_cli_renames_them_to_flags(capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(main, capsys, "which", "--algorithm", "nope")
    assert line.startswith("sfltheory: error: parameter '--algorithm': unknown algorithm 'nope'; known: ")
    line = refused(main, capsys, "list", "--algorithm", "nope")
    assert line.startswith("sfltheory: error: parameter '--algorithm': unknown algorithm 'nope'")
