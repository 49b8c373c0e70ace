"""Shortcuts: how the core combinators run faster, kept apart from what they mean.

The core (`protocall.combinators`, `protocall.values`) says what each parser matches, needs
and emits; it never imports this package. Everything here only makes the same parse cheaper,
and is registered onto the core's classes from outside (`registry.install`): switched off
(`disabled()`, or `PROTOCALL_SHORTCUTS=0` in the environment), every parse gives the same
events, message and errors.

The concepts, once:
- **glance** (`glance.py`): what a parser does where a few characters decide it, worked out
  from the grammar alone (fails there, matches a part, or only waits).
- **cache** (`cache.py`): one bounded mapping type for everything worked out once, and one
  registry to clear them all.
"""

from . import cache, glance, registry
from .cache import Cache, clear_all
from .registry import disabled, enabled, install

__all__ = ["Cache", "cache", "clear_all", "disabled", "enabled", "glance", "install", "registry"]
