"""Measured constants as plain data: the record that crosses from ``verify`` (which measures) to the theory.

A :class:`Constants` holds one :class:`Estimate` per canonical name (``L``, ``sigma_c2``, ``eps2`` ...) and
*variants* of them under ``name[variant]`` keys: ``sigma_c2[max]`` (the supremum over samples rather than the
mean), ``L[client]`` (one part's Hessian block), ``L[min]`` (the most negative eigenvalue), ``sigma2[batch=32]``
(a mini-batch gradient) and so on. Papers state "the same" assumption differently -- for every sample or in
expectation, per client or on average, for the whole model or per part -- so :meth:`Constants.params_for`
reads a result's assumptions and picks the variant each one needs, and says which it picked.

No torch here: a saved record (``to_json``) is evaluated against any theorem by ``sfltheory`` alone.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .assumptions import Pick
from .atomic import write_atomic
from .errors import ParameterError
from .evaluate import Evaluation, evaluate
from .registry import get
from .report import text_table
from .result import Result
from .variants import ALL, BATCH, CLIENT, CLIENTS, GRADIENT, MAX, MEAN, MIN, POOLED, SECANT, SERVER, ZERO
from .variants import split as split_key

FORMAT = "sfltheory.constants/1"
CUTS_FORMAT = "sfltheory.constants.cuts/1"  # one FORMAT record per cut of a model (CutConstants)
# An unreliable estimate (se > |value|) is told the count that would bring its se to this fraction of |value|.
RELIABLE_SE = 0.5
# Keys of Estimate.to_dict computed from the fields (ignored when read back).
DERIVED = ("unreliable", "needed", "reliability")


@dataclass(frozen=True)
class Estimate:
    """A measured value with its uncertainty and how it was obtained.

    ``se`` is a standard error (Monte-Carlo probes, sampling over data); ``interval`` a bound that holds by
    construction (e.g. an eigenvalue lies within the Lanczos residual); ``n`` the samples and ``probes`` the
    Hessian-vector products, perturbations or repetitions used.
    """

    value: float
    se: float | None = None
    interval: tuple[float, float] | None = None
    n: int | None = None
    probes: int | None = None
    method: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if not math.isfinite(self.value):
            how = f" ({self.method})" if self.method else ""
            raise ParameterError("value", f"an estimate must be finite, got {self.value}{how}")

    # ---- reliability -----------------------------------------------------------------------------------------
    @property
    def unreliable(self) -> bool:
        """True when the standard error exceeds the value's modulus: the sign and size are not established."""
        return self.se is not None and self.se > abs(self.value)

    def needed(self, rel: float = RELIABLE_SE) -> int | None:
        """The probe count (or, for an estimate without probes, the sample count) that would bring the standard
        error down to ``rel * abs(value)``, assuming se scales as 1/sqrt(count) (Monte Carlo; conservative for
        Hutch++, whose error falls faster): ``ceil(count * (se / (rel |value|))^2)``. ``None`` without an se or a
        count; the current count when it already suffices."""
        count = self.probes if self.probes is not None else self.n
        if self.se is None or count is None or count < 1:
            return None
        if self.value == 0:
            return None if self.se > 0 else count
        return max(count, math.ceil(count * (self.se / (rel * abs(self.value))) ** 2))

    @property
    def reliability(self) -> str:
        """One line for an unreliable estimate (empty otherwise): how far off, and the count that would fix it."""
        if not self.unreliable:
            return ""
        unit = "probes" if self.probes is not None else "samples"
        need = self.needed()
        fix = f"; about {need:,} {unit} would bring it to |value|/{1 / RELIABLE_SE:g}" if need is not None else ""
        return f"unreliable: se {self.se:.2g} > |value| {abs(self.value):.3g}{fix}"

    # ---- serialisation ---------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The fields that are set; an unreliable estimate adds ``unreliable: true``, ``needed`` (the count of
        :meth:`needed`) and ``reliability`` (the line :meth:`__str__` prints). Those three are derived: read back,
        they are recomputed."""
        d = {k: v for k, v in asdict(self).items() if v not in (None, "")}
        if self.interval is not None:
            d["interval"] = list(self.interval)
        if self.unreliable:
            d["unreliable"] = True
            need = self.needed()
            if need is not None:
                d["needed"] = need
            d["reliability"] = self.reliability
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Estimate:
        """An estimate from its :meth:`to_dict` form: the derived keys are dropped (recomputed), an unknown field is
        refused, ``interval`` is read back as a pair."""
        d = {k: v for k, v in d.items() if k not in DERIVED}
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ParameterError("constants", f"unknown field '{sorted(unknown)[0]}' in an estimate")
        iv = d.get("interval")
        return cls(**{**d, "interval": tuple(iv) if iv is not None else None})

    def __str__(self) -> str:
        s = f"{self.value:.6g}"
        if self.se is not None:
            s += f" ± {self.se:.2g}"
        if self.interval is not None:
            s += f" in [{self.interval[0]:.6g}, {self.interval[1]:.6g}]"
        if self.unreliable:
            s += f" ({self.reliability})"
        return s


# The canonical names a measurement fills (the typed fields of Constants).
CANONICAL = ("L", "F", "sigma2", "sigma_c2", "sigma_s2", "eps2", "B2", "G2", "G_c2", "G_s2", "kappa",
             "gradnorm2_f", "d", "d_c", "d_s")  # fmt: skip


@dataclass(frozen=True)
class Choice:
    """What :meth:`Constants.choices` picked for one assumption's constant: ``key`` the variant used (``None``
    when nothing was measured), ``value`` its value. ``fallback`` is true when the variant the assumption needs
    (``pick.keys[0]``) was not measured and another stands in, e.g. ``L`` (the top eigenvalue of f) for
    ``L[clients]`` (the max over the clients' f_m) where a theorem assumes every local objective L-smooth."""

    name: str
    key: str | None
    value: float | None
    pick: Pick
    assumption: str

    @property
    def wanted(self) -> str:
        """The variant the assumption needs: the first (strongest) of the pick's keys."""
        return self.pick.keys[0]

    @property
    def fallback(self) -> bool:
        """True when a variant other than :attr:`wanted` was measured and stands in for it."""
        return self.key is not None and self.key != self.wanted


# What each variant of a key means (sfltheory.variants), for the message that a record holds another variant.
VARIANT_MEANING = {
    MAX: "the supremum over samples", POOLED: "the mean over all samples of all clients",
    BATCH: "a mini-batch gradient", MEAN: "the mean over clients", CLIENTS: "the worst client's own objective",
    CLIENT: "the client-side block", SERVER: "the server-side block", ALL: "the whole model",
    GRADIENT: "the mean squared gradient norm", MIN: "the most negative Hessian eigenvalue", ZERO: "fitted with G2 = 0",
    SECANT: "the secant along a run",
}  # fmt: skip


def _meaning(key: str) -> str:
    """``sigma_c2[max]`` -> "the supremum over samples"; a plain name is the estimate without a variant."""
    _, variants = split_key(key)
    if not variants:
        return "the estimate without a variant"
    return ", ".join(VARIANT_MEANING.get(v, f"variant '{v}'") for v in variants)


# Names no assumption introduces, filled from a measurement when a result uses them.
PLAIN = ("F", "d", "d_c", "d_s", "gradnorm2_f")


def cut_dependent(key: str) -> bool:
    """A key whose value depends on where the model is cut: d_c, sigma_s2[max], L[client], eps2[mean,server] ..."""
    base, _, rest = key.partition("[")
    variants = rest.rstrip("]").split(",") if rest else []
    return base in ("d_c", "d_s", "sigma_c2", "sigma_s2", "G_c2", "G_s2") or bool({"client", "server"} & set(variants))


def needed_keys(result: Result | str) -> list[str]:
    """The measured keys a result needs, by its assumptions: each pick's first (strongest) variant, ``|``-joined
    keys split, then the plain names it uses (``F``, ``d_c`` ...). ``sfltheory measure --for ID`` measures these."""
    r = get(result) if isinstance(result, str) else result
    used = set(r.parameters())
    out: dict[str, None] = {}
    for a in r.assumptions:
        for pick in a.picks:
            if pick.name in used:
                out.update(dict.fromkeys(pick.keys[0].split("|")))
    out.update(dict.fromkeys(n for n in PLAIN if n in used))
    return list(out)


def _estimate_from(key: str, e: Any) -> Estimate:
    """One estimate of a constants file, its errors naming the constant (``L[clients]``), not a field."""
    if not isinstance(e, Mapping):
        raise ParameterError(key, f"an estimate must be a JSON object with a 'value' (got {type(e).__name__})")
    if "value" not in e:
        raise ParameterError(key, "an estimate needs a 'value'")
    v = e["value"]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ParameterError(key, f"'value' must be a number (got {v!r})")
    for f in ("se", "n", "probes"):
        x = e.get(f)
        if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0):
            raise ParameterError(key, f"'{f}' must be a finite number >= 0 or absent (got {x!r})")
    iv = e.get("interval")
    if iv is not None and not (
        isinstance(iv, list)
        and len(iv) == 2
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in iv)
    ):
        raise ParameterError(key, f"'interval' must be a list of two finite numbers (got {iv!r})")
    for f in ("method", "note"):
        if not isinstance(e.get(f, ""), str):
            raise ParameterError(key, f"'{f}' must be a string")
    try:
        return Estimate.from_dict(e)
    except ParameterError as err:
        raise ParameterError(key, err.rule) from None
    except (TypeError, ValueError, OverflowError) as err:
        raise ParameterError(key, f"not a valid estimate ({err})") from None


@dataclass
class Constants:
    """Measured constants by canonical name, with variants, uncertainties and the conditions of the measurement.

    ``Constants.load(path).evaluate("mu_splitfed/thm4.3", T=100, tau=4, ...)`` evaluates a theorem with the
    measured constants; what you pass overrides what was measured.
    """

    L: Estimate | None = None
    F: Estimate | None = None
    sigma2: Estimate | None = None
    sigma_c2: Estimate | None = None
    sigma_s2: Estimate | None = None
    eps2: Estimate | None = None
    B2: Estimate | None = None
    G2: Estimate | None = None
    G_c2: Estimate | None = None
    G_s2: Estimate | None = None
    kappa: Estimate | None = None
    gradnorm2_f: Estimate | None = None
    d: Estimate | None = None
    d_c: Estimate | None = None
    d_s: Estimate | None = None
    variants: dict[str, Estimate] = field(default_factory=dict)  # "name[variant]" -> estimate
    meta: dict[str, Any] = field(default_factory=dict)  # model, data, split, conventions, sample sizes

    # ---- access --------------------------------------------------------------------------------------------------
    def get(self, key: str) -> Estimate | None:
        """A canonical name or a ``name[variant]`` key."""
        if key in CANONICAL:
            est: Estimate | None = getattr(self, key)
            return est
        return self.variants.get(key)

    def set(self, key: str, est: Estimate) -> None:
        """Store ``est`` under a canonical name (its field) or a ``name[variant]`` key; any other key is refused."""
        if key in CANONICAL:
            setattr(self, key, est)
        elif "[" in key and key.endswith("]"):
            self.variants[key] = est
        else:
            raise ParameterError("key", f"'{key}' is neither a canonical constant nor a name[variant] key")

    def items(self) -> list[tuple[str, Estimate]]:
        """Every estimate held as ``(key, estimate)``: canonical names in ``CANONICAL`` order, then variants sorted."""
        main = [(k, e) for k in CANONICAL if (e := getattr(self, k)) is not None]
        return main + sorted(self.variants.items())

    def _lookup(self, keys: Iterable[str]) -> tuple[str, float] | None:
        for key in keys:
            parts = key.split("|")
            ests = [self.get(p) for p in parts]
            if all(e is not None for e in ests):
                return key, max(e.value for e in ests if e is not None)
        return None

    def choices(self, result: Result | str) -> list[Choice]:
        """For each constant the result's assumptions introduce and the result uses, the variant picked: the
        first of the pick's keys that was measured (see :class:`Choice`; ``fallback`` marks a stand-in)."""
        r = get(result) if isinstance(result, str) else result
        used = set(r.parameters())
        out: dict[str, Choice] = {}  # a later assumption's pick may fill a name an earlier one found unmeasured
        for a in r.assumptions:
            for pick in a.picks:
                if pick.name not in used or (pick.name in out and out[pick.name].key is not None):
                    continue
                hit = self._lookup(pick.keys)
                if hit is not None:
                    out[pick.name] = Choice(pick.name, hit[0], hit[1], pick, a.name)
                elif pick.name not in out:
                    out[pick.name] = Choice(pick.name, None, None, pick, a.name)
        return list(out.values())

    def fallbacks(self, result: Result | str, given: Iterable[str] = ()) -> list[str]:
        """One line per constant for which another variant stands in for the one the result's assumption needs
        (``bound --constants`` prints them as warnings); names in ``given`` (set by hand) are skipped."""
        rid = result if isinstance(result, str) else result.id
        skip = set(given)
        return [
            f"{c.name}: {c.assumption} needs {c.wanted} ({c.pick.why}), which was not measured; using {c.key} "
            f"in its place, not what the assumption states (measure with `sfltheory measure --for {rid}`)"
            for c in self.choices(result)
            if c.fallback and c.name not in skip
        ]

    def variant_gaps(
        self, result: Result | str, given: Iterable[str] = (), needed: Iterable[str] | None = None
    ) -> list[str]:
        """One rule per constant the result needs whose variant this record lacks while it holds the same name
        in another form (``sigma_c2`` where the assumption needs ``sigma_c2[max]``): evaluation would otherwise
        report the name as missing although the record has it. Names in ``given`` (set by hand), names a
        result's default derives and, when ``needed`` is given, names outside it (what the caller's computation
        reads: the step-size conditions for a step check) are skipped. Each rule starts with "has": the caller
        names the record."""
        r = get(result) if isinstance(result, str) else result
        skip = set(given) | {d.name for d in r.defaults}
        out = []
        for c in self.choices(r):
            if c.key is not None or c.name in skip or (needed is not None and c.name not in set(needed)):
                continue
            held = [k for k, _ in self.items() if split_key(k)[0] == c.name]
            if held:
                out.append(
                    f"has {' and '.join(f'{k} ({_meaning(k)})' for k in held)} but {r.id} needs the "
                    f"variant {c.wanted} ({c.pick.why}, as '{c.assumption}' states), which it does not hold: "
                    f'measure it (sfltheory measure --for {r.id}), add "{c.wanted}" to its constants, or give '
                    f"{c.name}=VALUE"
                )
        return out

    def params_for(self, result: Result | str) -> tuple[dict[str, float], list[str]]:
        """The measured values a result needs, chosen by its assumptions, and one note per choice.

        Names no assumption introduces (``F``, ``d``, ``d_c``, ``d_s``, ``gradnorm2_f``) are filled when the
        result uses them. A needed constant that was not measured is left out (and noted), so evaluation
        asks for it by name. Where only another variant was measured it is used, and its note says so
        (:meth:`fallbacks` lists those alone).
        """
        r = get(result) if isinstance(result, str) else result
        used = set(r.parameters())
        out: dict[str, float] = {}
        notes: list[str] = []
        for c in self.choices(r):
            if c.key is None or c.value is None:
                notes.append(f"{c.name}: not measured ({c.assumption}: {c.pick.why}; measure {c.wanted})")
                continue
            out[c.name] = c.value
            if c.fallback:
                notes.append(f"{c.name} = {c.key} (fallback: {c.wanted} not measured): {c.pick.why} ({c.assumption})")
            else:
                notes.append(f"{c.name} = {c.key}: {c.pick.why} ({c.assumption})")
        for name in PLAIN:
            est = self.get(name)
            if name in used and name not in out and est is not None:
                out[name] = est.value
        return out, notes

    def evaluate(self, result: Result | str, params: Mapping[str, Any] | None = None, **kw: Any) -> Evaluation:
        """Evaluate a result with the measured constants; ``params``/keywords (T, tau, eta ...) override them. A
        constant held in another variant than the one the result needs is refused (:meth:`variant_gaps`)."""
        given = {**(params or {}), **kw}
        gaps = self.variant_gaps(result, given)
        if gaps:
            raise ParameterError("constants", f"the record {gaps[0]}")
        measured, _ = self.params_for(result)
        return evaluate(result, {**measured, **given})

    # ---- serialisation -------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data: ``{"format": FORMAT, "constants": {key: estimate}, "meta": {...}}``."""
        return {
            "format": FORMAT,
            "constants": {k: e.to_dict() for k, e in self.items()},
            "meta": self.meta,
        }

    def to_json(self, path: str | Path | None = None) -> str:
        """The record as JSON; written atomically to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=2, sort_keys=False) + "\n"
        if path is not None:
            write_atomic(Path(path), text)
        return text

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Constants:
        """A record from its :meth:`to_dict` form; anything else is refused in one line (``ParameterError``), an
        invalid estimate's naming the constant."""
        if not isinstance(d, Mapping):
            raise ParameterError(
                "constants", f"not a {FORMAT} record: a JSON object is needed (got {type(d).__name__})"
            )
        if d.get("format") != FORMAT:
            raise ParameterError("constants", f"not a {FORMAT} record (format: {d.get('format')!r})")
        meta, consts = d.get("meta", {}), d.get("constants", {})
        if not isinstance(meta, Mapping) or not isinstance(consts, Mapping):
            raise ParameterError("constants", "'meta' and 'constants' must be JSON objects")
        c = cls(meta=dict(meta))
        for k, e in consts.items():
            c.set(k, _estimate_from(k, e))
        return c

    @classmethod
    def load(cls, path: str | Path, cut: str | None = None) -> Constants:
        """A constants file; a file of constants per cut (:class:`CutConstants`) needs ``cut``, the record read."""
        d = read_json(path)
        if isinstance(d, Mapping) and d.get("format") == CUTS_FORMAT:
            per_cut = CutConstants.from_dict(d)
            if cut is None:
                raise ParameterError(
                    "constants", f"{path} holds constants per cut ({', '.join(per_cut.cuts)}): name the cut"
                )
            return per_cut.at(cut)
        return cls.from_dict(d)

    def __str__(self) -> str:
        rows = [[k, str(e), "" if e.n is None else str(e.n), "" if e.probes is None else str(e.probes), e.method]
                for k, e in self.items()]  # fmt: skip
        return text_table(rows, ["constant", "value", "n", "probes", "method"])


def read_json(path: str | Path) -> Any:
    """A constants file's JSON, its failures one line naming the file."""
    p = Path(path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParameterError("constants", f"no such file: {p}") from None
    except IsADirectoryError:
        raise ParameterError("constants", f"{p} is a directory, not a constants file") from None
    except UnicodeDecodeError:
        raise ParameterError("constants", f"{p} is not UTF-8 text (a constants file is JSON)") from None
    except OSError as e:
        raise ParameterError("constants", f"cannot read {p}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ParameterError("constants", f"{p} is not JSON ({e.msg}, line {e.lineno})") from None
    except RecursionError:
        raise ParameterError("constants", f"{p} is nested too deeply to be a constants file") from None


@dataclass(frozen=True, kw_only=True)
class CutConstants:
    """Constants measured at several cuts of one model (``sfltheory measure --cuts all``): one :class:`Constants`
    record per cut, each naming its cut in ``meta["cut"]``, in the model's order.

    The file: ``{"format": "sfltheory.constants.cuts/1", "meta": {...}, "cuts": [record, record, ...]}``, each
    record a ``sfltheory.constants/1`` object as :meth:`Constants.to_dict` writes it. :meth:`load` also reads a
    single record, as constants measured at one cut (``per_cut`` false); ``Constants.load(path, cut=NAME)`` reads
    one cut's record of either.
    """

    records: tuple[Constants, ...]
    meta: dict[str, Any] = field(default_factory=dict)
    per_cut: bool = True  # read from a per-cut file (False: one record, measured at one cut or none)
    # the model measured as a block list (name, params, activation): the file is then also a --model block list
    blocks: tuple[dict[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.per_cut:
            names = [r.meta.get("cut") for r in self.records]
            if not names:
                raise ParameterError("constants", "a per-cut record needs at least one cut")
            bad = [n for n in names if not isinstance(n, str) or not n]
            if bad:
                raise ParameterError(
                    "constants", f"every record of a per-cut file names its cut in meta.cut ({bad[0]!r})"
                )
            dup = sorted({str(n) for n in names if names.count(n) > 1})
            if dup:
                raise ParameterError("constants", f"cut '{dup[0]}' has two records")

    @property
    def cuts(self) -> tuple[str, ...]:
        """The cuts measured, in order (a single record measured without a cut: none)."""
        return tuple(c for r in self.records if isinstance(c := r.meta.get("cut"), str) and c)

    def at(self, cut: str) -> Constants:
        """The record measured at ``cut``."""
        for r in self.records:
            if r.meta.get("cut") == cut:
                return r
        raise ParameterError("constants", f"no record for cut '{cut}' (measured at: {', '.join(self.cuts) or 'none'})")

    def to_dict(self) -> dict[str, Any]:
        """The per-cut file as JSON-ready data: format, meta, one :meth:`Constants.to_dict` record per cut and, when
        the model's blocks are held, ``model`` and ``blocks`` (so that ``--model FILE`` reads the file as the model)."""
        out: dict[str, Any] = {"format": CUTS_FORMAT, "meta": self.meta}
        if self.blocks:  # top-level "model" and "blocks": `--model FILE` reads the file as the model measured
            out.update({"model": self.meta.get("model", "model"), "blocks": list(self.blocks)})
        return {**out, "cuts": [r.to_dict() for r in self.records]}

    def to_json(self, path: str | Path | None = None) -> str:
        """The file as JSON; written atomically to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=2) + "\n"
        if path is not None:
            write_atomic(Path(path), text)
        return text

    @classmethod
    def from_dict(cls, d: Any) -> CutConstants:
        """A per-cut file's contents, or a single record (``per_cut`` false)."""
        if not isinstance(d, Mapping) or d.get("format") != CUTS_FORMAT:  # one record (its errors as ever)
            one = Constants.from_dict(d)
            return cls(records=(one,), meta=dict(one.meta), per_cut=False)
        meta, recs, blocks = d.get("meta", {}), d.get("cuts"), d.get("blocks", [])
        if not isinstance(meta, Mapping) or not isinstance(recs, list):
            raise ParameterError("constants", "a per-cut file has 'meta' (an object) and 'cuts' (a list of records)")
        if not isinstance(blocks, list) or not all(isinstance(b, Mapping) for b in blocks):
            raise ParameterError("constants", "'blocks' must be a list of objects (name, params, activation)")
        records = tuple(Constants.from_dict(r) for r in recs)
        return cls(records=records, meta=dict(meta), blocks=tuple(dict(b) for b in blocks))

    @classmethod
    def load(cls, path: str | Path) -> CutConstants:
        """A per-cut file, or a single constants record (:meth:`from_dict`), read from ``path``."""
        return cls.from_dict(read_json(path))

    def __str__(self) -> str:
        return "\n\n".join(f"cut {r.meta.get('cut')}:\n{r}" for r in self.records)
