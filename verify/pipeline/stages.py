"""The main job's stages as it goes: "stage i of n", what the stage does, and an estimate of the time left.

Each stage carries the seconds it took on the reference machine (two shared CPU cores, a fresh output folder);
the estimate scales the stages still to come by how the finished ones compared with their reference, so a faster
or busier machine, or a rerun that finds its caches, corrects it as the job goes.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TextIO

PRIOR = 20.0  # seconds of the reference pace the estimate starts from


@dataclass(frozen=True, kw_only=True)
class Stage:
    """One stage: a short name, what it does (one line), and its seconds on the reference machine."""

    name: str
    does: str
    seconds: float


def duration(seconds: float) -> str:
    """``75.3`` -> ``"1 min 15 s"``; under a minute ``"40 s"``."""
    s = max(0, round(seconds))
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


@dataclass(kw_only=True)
class Progress:
    """Prints each stage of ``stages`` as it starts and the job's elapsed time as it ends (to ``stream``)."""

    stages: Sequence[Stage]
    stream: TextIO = field(default_factory=lambda: sys.stdout)
    clock: Callable[[], float] = time.perf_counter
    done: dict[str, float] = field(default_factory=dict)  # stage name -> seconds it took
    start: float | None = None

    def left(self, upcoming: Sequence[Stage]) -> float:
        """Seconds the ``upcoming`` stages should take: their reference, scaled by the finished stages' pace."""
        ref_done = sum(s.seconds for s in self.stages if s.name in self.done)
        # damped: a stage of a second or two says little about the pace, so PRIOR seconds at the reference pace
        # weigh in until the finished stages outweigh them
        pace = (sum(self.done.values()) + PRIOR) / (ref_done + PRIOR)
        return pace * sum(s.seconds for s in upcoming)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Announce stage ``name``, run the body, record its time."""
        names = [s.name for s in self.stages]
        i = names.index(name)
        if self.start is None:
            self.start = self.clock()
        left = self.left(self.stages[i:])
        print(f"[stage {i + 1} of {len(self.stages)}] {self.stages[i].does} (about {duration(left)} left)",
              file=self.stream, flush=True)  # fmt: skip
        t0 = self.clock()
        yield
        self.done[name] = self.clock() - t0

    def finish(self) -> str:
        """The closing line: the job's total time."""
        total = 0.0 if self.start is None else self.clock() - self.start
        each = ", ".join(f"{name} {duration(t)}" for name, t in self.done.items())
        line = f"[done] {len(self.done)} stages in {duration(total)} ({each})"
        print(line, file=self.stream, flush=True)
        return line


__all__ = ["PRIOR", "Progress", "Stage", "duration"]
