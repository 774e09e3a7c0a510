"""TensorBoard scalars: a run's records read from an event directory, and a run's records written as one.

Reading uses TensorBoard's own reader (``tensorboard.backend.event_processing.event_accumulator``); writing, its
``SummaryWriter`` through ``torch.utils.tensorboard``. Both need the optional extra ``tensorboard``
(``pip install -e .[tensorboard]``); without it each is one line naming the extra. The scalar tags are named by
``--tags gradnorm2=TAG[,loss=TAG,test_acc=TAG]`` (default: the names ``sfltheory train --tensorboard`` writes);
a scalar's step is the round t.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sfltheory.errors import MissingExtraError, ParameterError

from .record import QUANTITIES, RunLog
from .table import from_rows

EXTRA = "tensorboard"
# what `train --tensorboard` writes, one scalar per record field, step = the round t
WRITTEN = ("gradnorm2", "gradnorm2_avg", "gradnorm2_min", "loss", "test_acc")


def missing_extra(what: str) -> MissingExtraError:
    """The error for ``what`` without TensorBoard installed, with the command that installs the extra."""
    return MissingExtraError(f"{what} needs TensorBoard, the optional extra '{EXTRA}': pip install -e .[{EXTRA}] "
                             "(or pip install tensorboard)")  # fmt: skip


def require_tensorboard(what: str) -> None:
    """Raise :class:`MissingExtraError` now, before any work, when the extra is not installed."""
    if importlib.util.find_spec("tensorboard") is None:
        raise missing_extra(what)


def is_event_dir(path: Path) -> bool:
    """Whether ``path`` is a folder holding TensorBoard event files (``events.out.tfevents.*``)."""
    return path.is_dir() and any(path.glob("events.out.tfevents.*"))


def parse_tags(text: str | Mapping[str, str] | None) -> dict[str, str]:
    """``gradnorm2=TAG,loss=TAG`` as a mapping quantity -> tag; each quantity one of :data:`QUANTITIES`."""
    if text is None:
        return {}
    items = dict(text) if isinstance(text, Mapping) else {}
    if isinstance(text, str):
        for part in (p.strip() for p in text.split(",") if p.strip()):
            name, eq, tag = part.partition("=")
            if not eq or not name or not tag:
                raise ParameterError("tags", f"each tag is QUANTITY=TAG, e.g. gradnorm2=train/grad_sq (got {part!r})")
            items[name.strip()] = tag.strip()
    for name in items:
        if name not in QUANTITIES:
            raise ParameterError("tags", f"'{name}' is not a quantity of a log ({', '.join(QUANTITIES)})")
    return items


def read_tensorboard(path: Path, tags: Mapping[str, str]) -> RunLog:
    """The scalars of an event directory: ``tags`` maps each quantity to its tag (the quantity's own name by
    default); a missing gradnorm2 tag, or rounds out of order, repeated or missing, is one line."""
    try:  # the optional extra: imported here so that the rest of verify runs without it
        from tensorboard.backend.event_processing import event_accumulator
    except ImportError:
        raise missing_extra(f"reading {path}") from None
    acc = event_accumulator.EventAccumulator(str(path), size_guidance={event_accumulator.SCALARS: 0})
    acc.Reload()
    have = acc.Tags().get("scalars", [])
    names = {q: tags.get(q, q) for q in QUANTITIES}
    if names["gradnorm2"] not in have:
        raise ParameterError("tags", f"{path} has no scalar tag '{names['gradnorm2']}' for gradnorm2 (its tags: "
                             f"{', '.join(have) or 'none'}): name it with --tags gradnorm2=TAG")  # fmt: skip
    for q, tag in tags.items():
        if tag not in have:
            raise ParameterError("tags", f"{path} has no scalar tag '{tag}' for {q} (its tags: {', '.join(have)})")
    rows: dict[int, dict[str, Any]] = {}
    order: list[int] = []
    for q, tag in names.items():
        if tag not in have:
            continue
        seen: set[int] = set()
        for ev in acc.Scalars(tag):
            if ev.step in seen:
                raise ParameterError(f"{path}, tag {tag}", f"round t = {ev.step} repeated: rounds must increase")
            seen.add(ev.step)
            if ev.step not in rows:
                rows[ev.step] = {"t": ev.step}
                order.append(ev.step)
            rows[ev.step][q] = ev.value
    steps = sorted(order)
    where = [f"{path}, step {s}" for s in steps]
    used = ", ".join(f"{q}={t}" for q, t in names.items() if t in have)
    log = from_rows(path, [rows[s] for s in steps], where, {}, f"TensorBoard scalars ({used}) in")
    unread = tuple(t for t in have if t not in names.values())
    return RunLog(t=log.t, gradnorm2=log.gradnorm2, loss=log.loss, test_acc=log.test_acc, settings={},
                  source=log.source, path=str(path), unread=unread)  # fmt: skip


def write_tensorboard(records: Iterable[Any], out: str | Path) -> Path:
    """A run's records as TensorBoard scalars in ``out`` (one per field of :data:`WRITTEN`, step = t)."""
    try:  # the optional extra, as above; torch's writer needs the tensorboard package
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise missing_extra(f"--tensorboard {out}") from None
    hook = threading.excepthook
    # the writer's background thread prints its own traceback when the disk fills; the same OSError reaches this
    # thread at close() (and the caller keeps the scalars in a fallback), so that thread's copy is not shown
    threading.excepthook = lambda a: None if issubclass(a.exc_type, OSError) else hook(a)
    try:
        w = SummaryWriter(log_dir=str(out))
        try:
            for r in records:
                for name in WRITTEN:
                    v = getattr(r, name, None)
                    if v is not None:
                        w.add_scalar(name, float(v), global_step=int(r.t))
        finally:
            w.close()
    finally:
        threading.excepthook = hook
    return Path(out)


__all__ = ["EXTRA", "WRITTEN", "MissingExtraError", "is_event_dir", "parse_tags", "read_tensorboard",
           "require_tensorboard", "write_tensorboard"]  # fmt: skip
