"""Shortcuts: how the core combinators run faster, kept apart from what they mean.

The core (`protocall.combinators`, `protocall.values`) says what each parser matches, needs
and emits; it never imports this package. Everything here only makes the same parse
cheaper, and is put onto the core's classes from outside (`registry.install`): switched off
(`disabled()`, or `PROTOCALL_SHORTCUTS=0` in the environment), every parse gives the same
events (up to how text splits into deltas), message and errors; `tests/shortcuts` checks it.

The concepts, once:

- **analysis** (`parser.py`, and each module for its combinators): what a parser tells
  about itself from the grammar alone. `glance(window)`: what it does where the input
  starts with `window`, when those characters decide it (`glance.Glance`: fails there,
  matches a part, or only waits); `reach()`: how many characters are worth a glance;
  `waits()`: with no input yet it can only wait; `deciders(window)` and `fails_at(inp,
  pos)`: parsers whose failure, told without running them, decides where a glance cannot.
  Analyses are installed for good (`registry.analysis`): no core step calls them, so they
  change nothing while the shortcuts are off.
- **fast step** (`install(cls, "step", ...)`): a combinator's step that uses the analyses.
  `choice.py`: a choice plans its branches per character and window and skips the branches
  they rule out (recording the failures they would have raised), a repetition skips the
  repetition they rule out, `separated_runs` reads on over separators, `not_followed_by`
  decides at a glance. `text.py`: a text scan reads a marker as text where the guard's
  glance rules the guard out. `recovery.py`: a `recurring` parser learns headers that fail
  again the same way, so its glance knows them (`Learned`: what a run learned, `learned.py`),
  and a run of regions failing alike remembers the text that decided the first.
  `json.py`: JSON read by regex runs over string bodies and keys, and the objects nested
  in one already read decided by that reading (`NestedObjects`); `xmlargs.py`: the
  argument waits leave absorbers (the plain parser names its waits: `wait_value`, ...).
- **absorber** (`absorbers.py`, `run.py`): a suspended parser leaves in `Input.fast` how to
  take the common delta without a resume (a marker or token still arriving, text where no
  marker can start); `Run.feed` offers it the delta first.
- **cache** (`cache.py`): one bounded mapping type (`Cache`, emptied when full) for
  everything worked out once (glances, plans, skips, windows, outcomes), and `clear_all`.

Switching (`disabled`) is process-wide and for tests and benchmarks, not for use while
other threads parse.
"""

from . import (  # noqa: F401  (each module installs its shortcuts on import)
    cache,
    choice,
    glance,
    json,
    parser,
    primitives,
    pyfunc,
    recovery,
    registry,
    run,
    tags,
    text,
    xmlargs,
)
from .cache import Cache, built_once, clear_all
from .registry import analysis, disabled, enabled, install

__all__ = [
    "Cache",
    "analysis",
    "built_once",
    "cache",
    "clear_all",
    "disabled",
    "enabled",
    "glance",
    "install",
    "registry",
]
