"""Formats compiled once per tool set: the turn grammar and the checked `Tools` of a
(format, starting channel, tool set), shared by every session that declares that tool set.

A session is only state: it runs the shared grammar over its own input (`Run`), and what a
run learns about its input stays in the run (see `combinators.stream.Learned`), so a
session gives the same result whether the grammar is fresh or has served other sessions,
on this thread or others. The grammar's caches (glances, choice plans) are pure memos of
the grammar, shared: threads racing to fill one at worst work an entry out twice (a
dict's get, set and clear are each atomic in CPython; each reader looks an entry up once),
and none sees an entry half worked out (`combinators.stream.Running.pending`).

Tool sets repeat (an agent declares the same tools on every turn), so compiled grammars
are kept in a bounded cache, least recently used first out, keyed by the format's grammar
(`Format.grammar`), the starting channel and the tools' content: their JSON text, as
given (names, descriptions and schemas, in their order), or, for a `Tools` (tools checked
already, immutable), its identity: a caller that declares the same tools on every turn
may keep one `Tools` and skip writing their JSON (about 0.2–0.3 µs per tool). `cache_info()`
tells its size, `set_cache_size` bounds it, `clear_cache` empties it. Tools that are not
JSON data (an object orjson cannot write) are compiled for the one session, uncached.

A grammar for a new tool set reuses what depends on the format's marker texts alone: a
marker set's tables, `loose` layouts and closers are built once per text and shared by
the grammars that hold them (parsers are immutable in meaning, and their caches are memos
of themselves), in bounded least-recently-used memos that `clear_cache` leaves alone. The
first grammar a process builds for a format pays for them, and for compiling its regular
expressions.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, NamedTuple, Protocol

import orjson

from ..combinators import Parser, UsageError
from ..tools import Tool, Tools, normalize_tools

ToolsArgument = Iterable[Mapping[str, Any] | Tool] | Tools | None


@dataclass(frozen=True)
class Compiled:
    """A format's turn grammar for one tool set and starting channel, and the tools checked
    (validators compiled). Immutable in meaning: sessions only run it."""

    grammar: Parser[Any]
    tools: Tools | None


class CacheInfo(NamedTuple):
    """The compiled-format cache: `entries` held (at most `capacity`), lookups that found
    one (`hits`) and that compiled one (`misses`)."""

    entries: int
    capacity: int
    hits: int
    misses: int


DEFAULT_CAPACITY = 256
"""Compiled formats kept by default (each a grammar of a few hundred parsers and their
caches; a tool set of many tools costs its `Tools`)."""


class _Cache:
    """A least-recently-used map from keys to `Compiled`, thread-safe (one lock around the
    map; compiling happens outside it, so two threads that miss the same key at once may
    both compile it: both results are equivalent, the first stored is kept)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.entries: OrderedDict[tuple[Any, ...], Compiled] = OrderedDict()
        self.lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple[Any, ...], compile: Callable[[], Compiled]) -> Compiled:
        with self.lock:
            found = self.entries.get(key)
            if found is not None:
                self.entries.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        compiled = compile()
        with self.lock:
            kept = self.entries.setdefault(key, compiled)
            self.entries.move_to_end(key)
            while len(self.entries) > self.capacity:
                self.entries.popitem(last=False)
        return kept


_CACHE = _Cache(DEFAULT_CAPACITY)


class Grammared(Protocol):
    """What is compiled: a format's `grammar(tools, start)` (`Format.grammar`)."""

    @property
    def grammar(self) -> Callable[[Tools | None, str | None], Parser[Any]]: ...


def compiled(fmt: Grammared, tools: ToolsArgument, start: str | None) -> Compiled:
    """`fmt`'s grammar for `tools` starting in channel `start`: from the cache when this
    tool set was compiled before, else compiled now (tools checked: a bad schema is a
    `UsageError`) and kept."""
    key: _Text | int | None
    if type(tools) is list or tools is None:  # the common case: no abstract class to ask
        key = _tools_key(tools)
    elif isinstance(tools, Tools):
        key = id(tools)
    else:
        if not isinstance(tools, tuple):
            tools = list(tools)  # read once: the key and the compilation read it
        key = _tools_key(tools)
    if key is None:
        return _compile(fmt, tools, start)
    # Keyed by the format's grammar function (which formats derived by `replace` share),
    # held by the key; a `Tools` keyed by identity is held by the entry (its `tools`), so
    # its id is not reused while the entry lives.
    return _CACHE.get((fmt.grammar, start, key), lambda: _compile(fmt, tools, start))


def _compile(fmt: Grammared, tools: ToolsArgument, start: str | None) -> Compiled:
    declared = normalize_tools(tools)
    return Compiled(fmt.grammar(declared, start), declared)


def _tools_key(tools: ToolsArgument) -> _Text | None:
    """The tools' content as JSON text (the cache key), or None when it is not JSON data."""
    if tools is None:
        return _Text(b"null")
    try:
        return _Text(orjson.dumps(tools, default=_data))
    except (TypeError, orjson.JSONEncodeError):
        return None


class _Text:
    """JSON text as a cache key, hashed by its length and a few hundred of its bytes (its
    ends and a sample spread over it) rather than all of them, which cost a lookup more
    than the rest of it (a 50-tool set writes some 15 KB); keys are equal when their
    texts are, so texts that share a hash only share a slot."""

    __slots__ = ("hash", "text")

    def __init__(self, text: bytes) -> None:
        self.text = text
        step = len(text) // _SAMPLE + 1
        self.hash = hash((len(text), text[:_SAMPLE], text[-_SAMPLE:], text[::step]))

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return type(other) is _Text and other.text == self.text


_SAMPLE = 128
"""Bytes hashed at each end of a key's text, and sampled in between."""


def _data(value: Any) -> Any:
    """What orjson writes for a `Tool` whose parameters are some other mapping than a dict
    (or a dataclass inside a schema), or a mapping that is not a dict."""
    if is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name) for field in fields(value)}
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError


def cache_info() -> CacheInfo:
    """How full the compiled-format cache is, and how often it was used."""
    with _CACHE.lock:
        return CacheInfo(len(_CACHE.entries), _CACHE.capacity, _CACHE.hits, _CACHE.misses)


def set_cache_size(capacity: int) -> None:
    """Keep at most `capacity` compiled formats (0: compile for every session), dropping
    the least recently used ones beyond it now."""
    if capacity < 0:
        raise UsageError(f"the cache size must be 0 or more, not {capacity}")
    with _CACHE.lock:
        _CACHE.capacity = capacity
        while len(_CACHE.entries) > capacity:
            _CACHE.entries.popitem(last=False)


def clear_cache() -> None:
    """Drop every compiled format (and reset the counts of `cache_info`)."""
    with _CACHE.lock:
        _CACHE.entries.clear()
        _CACHE.hits = _CACHE.misses = 0


__all__ = ["CacheInfo", "Compiled", "cache_info", "clear_cache", "compiled", "set_cache_size"]
