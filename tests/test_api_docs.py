"""Every public name of ``sfltheory`` and ``verify`` has a docstring, so the site's API reference documents it.

The rule (the same the site applies: ``docs/conf.py`` renders every module with autodoc ``:members:``, which skips a
name without a docstring):

* every module and package has a module docstring;
* every function and class defined in a module, whose name does not start with ``_``, has its own docstring (a
  dataclass's generated ``Name(field, ...)`` signature does not count);
* every method, class/static method and property defined in such a class's body, whose name does not start with
  ``_``, has one.

A name is public where it is defined: a re-export in a package ``__init__`` is documented once, at its module.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from types import ModuleType

import pytest

PACKAGES = ("sfltheory", "verify")


def modules() -> Iterator[ModuleType]:
    """Every module of both packages, imported (torch is installed wherever the tests run ``verify``)."""
    for name in PACKAGES:
        pkg = importlib.import_module(name)
        yield pkg
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{name}."):
            if info.name.endswith("__main__"):
                continue
            yield importlib.import_module(info.name)


def own_doc(obj: object) -> str:
    """The docstring an object declares itself (a dataclass's generated signature is not one)."""
    doc = vars(obj).get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    doc = (doc or "").strip()
    if inspect.isclass(obj) and doc.startswith(f"{obj.__name__}("):
        return ""
    return doc


def undocumented(mod: ModuleType) -> Iterator[str]:
    """The qualified public names of ``mod`` (itself included) that have no docstring."""
    if not (mod.__doc__ or "").strip():
        yield mod.__name__
    for name, obj in vars(mod).items():
        if name.startswith("_") or not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if getattr(obj, "__module__", None) != mod.__name__:
            continue  # imported: documented where it is defined
        if not own_doc(obj):
            yield f"{mod.__name__}.{name}"
        if inspect.isclass(obj):
            for mname, member in vars(obj).items():
                if mname.startswith("_"):
                    continue
                if isinstance(member, property):
                    fn = member.fget
                elif isinstance(member, classmethod | staticmethod):
                    fn = member.__func__
                elif inspect.isfunction(member):
                    fn = member
                else:
                    continue
                if not (getattr(fn, "__doc__", None) or "").strip():
                    yield f"{mod.__name__}.{name}.{mname}"


def test_every_public_name_has_a_docstring() -> None:
    pytest.importorskip("torch")
    missing = [q for mod in modules() for q in undocumented(mod)]
    assert not missing, f"{len(missing)} public names without a docstring: " + ", ".join(missing)


def test_the_rule_sees_a_missing_docstring() -> None:
    # the rule on a module made here: a bare function, a dataclass with only its generated signature, a property
    import dataclasses

    mod = ModuleType("fake", "A module.")

    def bare() -> None:
        pass

    bare.__module__ = "fake"

    @dataclasses.dataclass
    class Record:
        x: int

        @property
        def twice(self) -> int:
            return 2 * self.x

    Record.__module__ = "fake"
    mod.bare = bare  # type: ignore[attr-defined]
    mod.Record = Record  # type: ignore[attr-defined]
    assert sorted(undocumented(mod)) == ["fake.Record", "fake.Record.twice", "fake.bare"]
