"""From a `Spec` to a `Format`: `build(spec)` derives the turn's parser and renderer from the
spec's data (`build`, `envelope`, `template_calls`, `xml_calls`, the `Format` factories of
`families`, the `loose` calls of `templates`); `Format.parser` compiles the grammar once per
(format, start, tool set) and shares it (`compiled`)."""

from __future__ import annotations

from .factory import build
from .format import Format

__all__ = ["Format", "build"]
