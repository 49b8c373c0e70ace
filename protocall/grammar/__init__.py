"""A format and its tools as a grammar for constrained decoding, derived from the format's
`Spec` (see `walk`): Lark for llguidance, GBNF for llama.cpp, structural tags for vLLM and
SGLang (docs/grammar.md)."""

from __future__ import annotations

from collections.abc import Iterable

from ..combinators import UsageError
from ..formats.base import Format
from ..tools import Tools
from . import lark, walk
from .walk import Options

DIALECTS = ("lark", "gbnf", "structural-tag")


def grammar(
    fmt: Format,
    tools: Tools | None,
    dialect: str = "lark",
    *,
    start: str | None = None,
    options: Options | None = None,
    special_tokens: Iterable[str] | None = None,
) -> str:
    """The grammar of one turn of `fmt` calling `tools` in `dialect`, after a generation
    prompt that left `start` open (see `Format.grammar`)."""
    if dialect not in DIALECTS:
        raise UsageError(f"a grammar dialect of {', '.join(DIALECTS)}, not {dialect!r}")
    declared = tools if tools is not None else Tools()
    built = walk.build(fmt, declared, start, options or Options(), special_tokens)
    return lark.write(built)


__all__ = ["DIALECTS", "Options", "grammar"]
