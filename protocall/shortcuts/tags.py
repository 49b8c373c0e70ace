"""The analyses of tags and dispatch: a tag's failure names it; a dispatch is decided by
its key where the key fails or waits."""

from __future__ import annotations

from typing import Any

from ..combinators.tags import AsText, Dispatch, Emit, Tag
from .glance import EMPTY, Glance, before_value
from .parser import wrapped_deciders, wrapped_glance
from .registry import analysis


def _tag_glance(self: Any, window: str) -> Glance | None:
    glance: Glance | None = self.parser.glance(window)
    return None if glance is None else glance.tagged(self.name)


analysis(Tag, "_glance", _tag_glance)
analysis(Tag, "deciders", wrapped_deciders)
analysis(AsText, "_glance", wrapped_glance)
analysis(Emit, "_glance", lambda self, window: EMPTY)
analysis(Dispatch, "_glance", lambda self, window: before_value(self.key.glance(window)))
analysis(Dispatch, "_reach", lambda self: self.key.reach())
analysis(Dispatch, "waits", lambda self: self.key.waits())
