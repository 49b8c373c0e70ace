"""The one cache type of the shortcuts: a bounded mapping, and one registry of them all.

Every cache that a shortcut keeps (a parser's glances by window, a choice's plans by
character, a repetition's skips, what a run learned) is a `Cache`. Its one eviction rule:
a cache holding `size` entries is emptied before it takes another (the windows a grammar
meets are few, and a cleared cache only costs the work of filling it again). Caches hold
only what the grammar (or one run's input) determines, so `clear_all` never changes an
outcome, only the work of the next parses.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..combinators.parser import Parser

K = TypeVar("K")
V = TypeVar("V")

_caches: weakref.WeakValueDictionary[int, Cache[Any, Any]] = weakref.WeakValueDictionary()
_numbers = itertools.count()


class Cache(dict[K, V]):
    """A mapping of at most `size` entries, emptied when full (see the module docstring);
    read with the mapping's own methods, written with `keep`."""

    __slots__ = ("__weakref__", "registered", "size")

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size
        self.registered = False  # in the registry from its first entry on

    def keep(self, key: K, value: V) -> V:
        """Store `value` under `key` (emptying the cache first when it is full); `value`."""
        if len(self) >= self.size:
            self.clear()
        elif not self.registered:  # most of a grammar's caches never hold an entry
            _caches[next(_numbers)] = self  # by number: a mapping is not hashable
            self.registered = True
        self[key] = value
        return value


def clear_all() -> None:
    """Empty every cache there is (for tests and benchmarks that start cold, and for the
    switch: nothing worked out with shortcuts on serves a parse with them off). The caches
    leave the registry as they are emptied, and enter it again with their next entry: the
    next `clear_all` walks the caches filled since, not every one a process ever filled."""
    for cache in list(_caches.values()):
        cache.clear()
        cache.registered = False
    _caches.clear()


def built_once(build: Callable[[Any], Parser[Any]]) -> Callable[[Any], Parser[Any]]:
    """`build`, whose parser for a value is built once and kept (a small cache, cleared
    when full), for a `bind` whose values recur, such as tool names: the parser built for
    a name, and what its caches learn (glances, choice plans, marker outcomes), then serve
    every call of that name in every run of the grammar, instead of a new parser with
    empty caches per call. `build` must be pure (the grammar's own); an unhashable value
    is built anew each time."""
    built: Cache[Any, Parser[Any]] = Cache(BUILT)

    def once(value: Any) -> Parser[Any]:
        try:
            parser = built.get(value)
        except TypeError:  # unhashable
            return build(value)
        if parser is None:
            parser = built.keep(value, build(value))
        return parser

    return once


BUILT = 64
"""Values whose parser `built_once` keeps."""
