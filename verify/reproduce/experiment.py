"""What an experiment of a seed is, as plain data: where the paper prints it, its claim, its numbers quoted, its
scales, the runs a scale makes, and what came out (the verdict).

Every value here is a frozen, keyword-only dataclass; an experiment module (one per seed experiment, e.g.
:mod:`verify.reproduce.cut_layer_tables`) builds one :class:`Experiment` and :mod:`verify.reproduce.registry` lists
them. No torch here: ``sfltheory reproduce --list`` reads only this.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

SCALES = ("tiny", "small", "paper")  # tiny: the tests' seconds-long run; small: this CPU; paper: the paper's own
VERDICTS = ("reproduces", "does not reproduce", "inconclusive")


@dataclass(frozen=True, kw_only=True)
class Quote:
    """A number (or phrase) the paper prints, verbatim: ``text`` appears on line ``line`` (1-based) of the seed
    file; ``what`` says which quantity it is (e.g. ``Table 3, CIFAR10, SFL-V1 (L_c=1)``)."""

    line: int
    text: str
    what: str


@dataclass(frozen=True, kw_only=True)
class Scale:
    """One scale of an experiment: the data, model and clients, the rounds ``T`` of mini-batches of ``batch``, the
    seeds, the algorithm parameters every run shares (``params``), the values varied (``grid``: name -> values, e.g.
    ``cut`` and ``partition``), and ``substitution``: what differs from the paper and why, in one or two sentences
    (printed in the figure's caption). ``data`` may hold ``{root}``: the ``--data-root`` folder (paper scale)."""

    name: str
    data: str
    model: str
    clients: int
    T: int
    batch: int
    seeds: tuple[int, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    grid: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    input_shape: tuple[int, ...] | None = None
    eval_samples: int | None = None
    substitution: str = ""

    def data_params(self) -> dict[str, Any]:
        """The train parameters every run of this scale carries for its data: ``input_shape`` (a flat data set's
        sample shape) and ``eval_samples`` where the scale sets them."""
        out: dict[str, Any] = {}
        if self.input_shape is not None:
            out["input_shape"] = list(self.input_shape)
        if self.eval_samples is not None:
            out["eval_samples"] = self.eval_samples
        return out


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One run of an experiment: ``labels`` name it in the experiment's terms (algorithm, cut, partition, seed),
    ``params`` are its flat train parameters (a sweep's train configuration, :mod:`verify.sweep.entries`)."""

    labels: Mapping[str, Any]
    params: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class Finding:
    """A verdict on the claim: one of :data:`VERDICTS` and the sentence that gives the numbers it rests on."""

    verdict: str
    sentence: str


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What one experiment gave at one scale: the verdict, the numbers it rests on (``numbers``: JSON-ready), the
    reproduced table (``rows``: the labels of each run and its final test accuracy in %), how many runs were found
    done and run now, the seconds taken and the files written (relative to ``--out``); ``theory``: each analysed
    algorithm's theorem against a representative run (:meth:`verify.reproduce.theory.Theory.to_dict`), and
    ``theory_files`` its figure (both added to the summary entry after the fields above, which keep their names)."""

    id: str
    scale: str
    finding: Finding
    numbers: Mapping[str, Any]
    rows: tuple[Mapping[str, Any], ...]
    runs_before: int
    runs_now: int
    failed: int
    seconds: float
    files: tuple[str, ...] = ()
    theory: tuple[Mapping[str, Any], ...] = ()
    theory_files: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-ready data (the summary's entry)."""
        return {
            "id": self.id,
            "scale": self.scale,
            "verdict": self.finding.verdict,
            "sentence": self.finding.sentence,
            "numbers": dict(self.numbers),
            "rows": [dict(r) for r in self.rows],
            "runs_before": self.runs_before,
            "runs_now": self.runs_now,
            "failed": self.failed,
            "seconds": round(self.seconds, 2),
            "files": list(self.files),
            "theory": [dict(t) for t in self.theory],
            "theory_files": list(self.theory_files),
        }


# judge(scale, rows) -> (finding, numbers); draw(experiment, scale, finding, numbers, rows) -> a matplotlib figure
Judge = Callable[[Scale, tuple[Mapping[str, Any], ...]], tuple[Finding, dict[str, Any]]]
Draw = Callable[["Experiment", Scale, Finding, Mapping[str, Any], tuple[Mapping[str, Any], ...]], Any]
Plan = Callable[[Scale, str], tuple[Cell, ...]]


@dataclass(frozen=True, kw_only=True)
class Experiment:
    """One experiment of a seed: ``id`` (``cut_layer/tables3-4``), the ``seed`` file, its ``location`` in the paper
    and the ``lines`` it spans, the paper's ``claim`` in one sentence, its numbers ``quotes`` (verbatim, with line
    numbers), the ``algorithms`` (registered names) and the paper's ``settings`` in words, the :class:`Scale` per
    name, and three functions: ``plan`` (the runs of a scale on a device), ``judge`` (the verdict from the runs'
    rows) and ``draw`` (the figure); ``series``: recorded quantities whose values at every recorded round each row
    carries (as ``<name>_recorded``: [t, value] pairs), e.g. ``test_acc`` to tell a plateau from a rise."""

    id: str
    paper: str
    seed: str
    location: str
    lines: tuple[int, int]
    claim: str
    quotes: tuple[Quote, ...]
    algorithms: tuple[str, ...]
    settings: str
    scales: Mapping[str, Scale]
    plan: Plan
    judge: Judge
    draw: Draw
    series: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        """The experiment's folder name under ``--out``: its id with ``/`` as ``__``."""
        return self.id.replace("/", "__")


__all__ = ["SCALES", "VERDICTS", "Cell", "Draw", "Experiment", "Finding", "Judge", "Outcome", "Plan", "Quote", "Scale"]
