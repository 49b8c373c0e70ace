"""The switch and the cache type: `disabled()` puts every core attribute back and the
shortcuts again on exit; a `Cache` is emptied when full; `clear_all` empties them all."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from protocall.combinators import Alt, Run
from protocall.combinators.primitives import Literal
from protocall.combinators.text import Until
from protocall.shortcuts import Cache, clear_all, disabled, enabled
from protocall.shortcuts import cache as caching
from protocall.shortcuts import choice as planned
from protocall.shortcuts import primitives as leaves

on = pytest.mark.skipif(not enabled(), reason="PROTOCALL_SHORTCUTS=0: nothing to switch off")


@on
def test_shortcuts_are_on_at_import_and_off_inside_disabled() -> None:
    assert enabled() and Alt.step is planned.alt_step
    with disabled():
        assert not enabled()
        assert (
            Alt.step is not planned.alt_step
            and Alt.step.__module__ == "protocall.combinators.parser"
        )
        assert "plans" not in vars(Alt) and "feed" in vars(Run)
    assert enabled() and Alt.step is planned.alt_step


@on
def test_disabled_restores_the_core_attribute_and_removes_an_added_one() -> None:
    with disabled():
        assert Literal.step.__qualname__ == "Literal.step"  # the class statement's own
        assert not hasattr(Until, "starts")  # a shortcut attribute the core has none of
    assert Literal.step is leaves.literal_step
    assert hasattr(Until, "starts")


@on
def test_disabled_nests() -> None:
    with disabled():
        with disabled():
            assert not enabled()
        assert not enabled()
    assert enabled()


def test_the_environment_variable_starts_with_shortcuts_off() -> None:
    code = "import protocall.shortcuts as s, protocall.combinators as c; print(s.enabled(), "
    code += "c.Alt.step.__qualname__)"
    env = {**os.environ, "PROTOCALL_SHORTCUTS": "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "Alt.step"], out.stderr


def test_a_full_cache_is_emptied_before_it_takes_another_entry() -> None:
    cache: Cache[str, int] = Cache(2)
    assert cache.keep("a", 1) == 1
    cache.keep("b", 2)
    cache.keep("c", 3)
    assert dict(cache) == {"c": 3}


def test_clear_all_empties_every_cache() -> None:
    first: Cache[str, int] = Cache(4)
    second: Cache[int, str] = Cache(4)
    first.keep("a", 1)
    second.keep(1, "a")
    clear_all()
    assert not first and not second


def test_a_cache_refilled_after_clear_all_is_emptied_by_the_next() -> None:
    cache: Cache[str, int] = Cache(4)
    cache.keep("a", 1)
    clear_all()
    cache.keep("b", 2)
    clear_all()
    assert not cache


def test_clear_all_walks_only_the_caches_filled_since_the_last() -> None:
    """A process that switches the shortcuts often (a differential test) pays for the
    caches it used since, not for every cache it ever filled."""
    caches = [Cache[int, int](4) for _ in range(1000)]
    for number, cache in enumerate(caches):
        cache.keep(number, number)
    clear_all()
    caches[0].keep(0, 0)
    assert list(caching._caches.values()) == [caches[0]]
    clear_all()
    assert not caches[0] and not caching._caches
