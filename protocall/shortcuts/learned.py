"""What a run learns about its input (`Learned`), and the run executing on this thread
(`running`), for the glances worked out while it executes (a glance has no input to ask).
"""

from __future__ import annotations

import threading
from typing import Any

from .cache import Cache


class Learned:
    """What one run learned about its input, and the shortcuts worked out with it: kept by
    the run (`Input.learned`), never by the grammar, which runs share (a format is compiled
    once per tool set, see `compile.compiled`). A `recurring` parser learns the headers it
    failed on more than once (`headers`, by parser); from then on, the glances of the run
    depend on them, so every cache of glances and of what they decide is the run's own
    (`caches`: by parser, its caches by name, as the grammar's are in its `__dict__`),
    while the grammar's stay pure: worked out from the grammar alone, the same for every
    run. A run that learns nothing (the common case) uses the grammar's caches only."""

    __slots__ = ("caches", "headers")

    def __init__(self) -> None:
        self.headers: dict[Any, Any] = {}
        self.caches: dict[Any, dict[str, Cache[Any, Any]]] = {}

    def cache(self, parser: Any, name: str, size: int) -> Cache[Any, Any]:
        """`parser`'s cache `name` in this run (of `size` entries, made on first use)."""
        own = self.caches.get(parser)
        if own is None:
            own = self.caches[parser] = {}
        found = own.get(name)
        if found is None:
            found = own[name] = Cache(size)
        return found


class Running(threading.local):
    """What the run executing on this thread has learned (`Learned`), while it executes and
    has learned something: the glances computed meanwhile use it (`Parser.glance` has no
    input to ask). `pending` holds the glances being worked out on this thread (a
    recursive grammar's cycle sees none), so that no other thread sees one half done."""

    learned: Learned | None = None

    def __init__(self) -> None:
        self.pending: set[tuple[int, Any]] = set()


running = Running()
