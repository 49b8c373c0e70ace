"""The switch: shortcuts installed onto the core's classes, and taken off again.

A shortcut is a class attribute of a core class (a method such as `Alt.step`, or any other
attribute) that `install` replaces with a faster one doing the same. The registry remembers
the core's own attribute (or that the class had none) so `disabled` can put it back.

Shortcuts are on from import, unless the environment variable `PROTOCALL_SHORTCUTS` is `0`.
Switching is process-wide and not synchronised: `disabled` is for tests and benchmarks that
compare the two, not for use while other threads parse.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from .cache import clear_all


def analysis(cls: type, name: str, fn: Any) -> None:
    """Give `cls` attribute `name` for good: an analysis of the grammar (`glance`, `reach`,
    ...), which no core step calls, so it changes nothing while the shortcuts are off (a
    grammar compiler may ask it then too, and gets the same answer)."""
    _named(cls, name, fn)
    setattr(cls, name, fn)


def _named(cls: type, name: str, attribute: Any) -> None:
    """Tell a descriptor (such as `functools.cached_property`) its name, as a class
    statement would."""
    set_name = getattr(attribute, "__set_name__", None)
    if set_name is not None:
        set_name(cls, name)


class Shortcut(NamedTuple):
    """Attribute `name` of `cls`: `fast` while shortcuts are on, else `own`, the class's
    own (`ABSENT`: it has none, it inherits it)."""

    cls: type
    name: str
    fast: Any
    own: Any


ABSENT: Any = object()
"""The `own` of a shortcut for an attribute the core class does not define itself."""

_shortcuts: list[Shortcut] = []
_on = os.environ.get("PROTOCALL_SHORTCUTS", "1") != "0"


def install(cls: type, name: str, fast: Any) -> None:
    """Register `fast` as attribute `name` of `cls` while shortcuts are on (at once, if
    they are). Each attribute of a class has at most one shortcut. A `cached_property`
    gives each instance state of its own (a cache) from its first use, at no cost after."""
    if any(shortcut.cls is cls and shortcut.name == name for shortcut in _shortcuts):
        raise ValueError(f"{cls.__name__}.{name} already has a shortcut")
    _shortcuts.append(Shortcut(cls, name, fast, cls.__dict__.get(name, ABSENT)))
    _named(cls, name, fast)
    if _on:
        setattr(cls, name, fast)


def enabled() -> bool:
    """Whether the shortcuts are installed."""
    return _on


def _switch(on: bool) -> None:
    global _on
    _on = on
    clear_all()  # nothing worked out with one setting serves the other
    for shortcut in _shortcuts if on else reversed(_shortcuts):
        if on:
            setattr(shortcut.cls, shortcut.name, shortcut.fast)
        elif shortcut.own is ABSENT:
            delattr(shortcut.cls, shortcut.name)
        else:
            setattr(shortcut.cls, shortcut.name, shortcut.own)


@contextmanager
def disabled() -> Iterator[None]:
    """Within the block, every core class has its own attributes back (the shortcuts
    are off, process-wide); on exit, the shortcuts are reinstalled if they were on. For
    tests and benchmarks: parsers running meanwhile in other threads see the switch."""
    was = _on
    if was:
        _switch(False)
    try:
        yield
    finally:
        if was:
            _switch(True)
