"""The plain-data files users write -- TOML, YAML, JSON -- read one way, with one-line errors.

Shared by the user's result files (:mod:`sfltheory.userresults`) and sweep files (``verify.sweep.spec``); each
caller puts the file's name and its own error type around the message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import ParameterError

SUFFIXES: tuple[str, ...] = (".toml", ".yaml", ".yml", ".json")


class DataFileError(ValueError):
    """The text is not valid in its format; the message (one line) says so: ``not valid TOML: ...``."""


class MissingReader(DataFileError):
    """The package that reads the format is not installed; the message says how to install it."""


def _one_line(s: str) -> str:
    return " ".join(str(s).split())


def parse(text: str, suffix: str) -> Any:
    """``text`` as plain data, read as its ``suffix`` says (``.toml``, ``.yaml``/``.yml``, ``.json``)."""
    suffix = suffix.lower()
    if suffix == ".toml":
        try:
            import tomllib
        except ImportError:  # Python 3.10
            try:
                import tomli as tomllib  # type: ignore[no-redef]
            except ImportError:
                raise MissingReader("reading TOML on Python 3.10 needs tomli: pip install tomli") from None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise DataFileError(f"not valid TOML: {_one_line(str(e))}") from None
    if suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise MissingReader("reading YAML needs PyYAML: pip install pyyaml") from None
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise DataFileError(f"not valid YAML: {_one_line(str(e))}") from None
    if suffix == ".json":
        try:
            return json.loads(text)
        except ValueError as e:
            raise DataFileError(f"not valid JSON: {_one_line(str(e))}") from None
    raise DataFileError(f"not a data file: a {', '.join(SUFFIXES)} file (got {suffix or 'no suffix'!r})")


def json_file(path: str | Path, name: str) -> Any:
    """A JSON file's data; a missing, unreadable or invalid file is one line naming ``name`` (a ParameterError)."""
    p = Path(path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParameterError(name, f"no such file: {p}") from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ParameterError(name, f"{p} is not a readable JSON file ({type(e).__name__})") from None
