"""A format and its tools as a grammar for constrained decoding, derived from the format's
`Spec` (see `walk`): Lark for llguidance, GBNF for llama.cpp, structural tags for vLLM and
SGLang (docs/grammar.md)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..combinators import UsageError
from ..tools import Tools
from . import gbnf, lark, structural_tag, walk
from .primed import after
from .walk import Described, Options

DIALECTS = ("lark", "gbnf", "gbnf-lazy", "structural-tag")


@dataclass(frozen=True)
class Export:
    """A grammar's `text`, and the JSON schema keywords it does not express (`dropped`, one
    line each, such as `parameter 'origin' of 'book': pattern "^[A-Z]{3}$"`): there the
    grammar is looser than the schema, and the parser's validation reports a violation."""

    text: str
    dropped: tuple[str, ...]


def export(
    fmt: Described,
    tools: Tools | None,
    dialect: str = "lark",
    *,
    start: str | None = None,
    options: Options | None = None,
    special_tokens: Iterable[str] | None = None,
    primed: str = "",
) -> Export:
    """The grammar of one turn of `fmt` calling `tools` in `dialect`, after a generation
    prompt that left `start` open (see `Format.decoding_grammar`), with what it dropped;
    with `primed`, the text of the turn's first marker the prompt ended with, from after
    it on (Lark and GBNF: `primed.after`; a lazy grammar's or a structural tag's triggers
    begin at a marker's start, so those are a `UsageError` there)."""
    if dialect not in DIALECTS:
        raise UsageError(f"a grammar dialect of {', '.join(DIALECTS)}, not {dialect!r}")
    declared = tools if tools is not None else Tools()
    options = options or Options()
    if primed and dialect not in ("lark", "gbnf"):
        raise UsageError(
            f"no {dialect} grammar after a generation prompt ending with {primed!r}, the "
            "start of the turn's first marker: its triggers begin at a marker's start "
            "(the lark and gbnf dialects begin after it)"
        )
    if dialect == "structural-tag":
        return Export(*structural_tag.write(fmt, declared, start, options))
    if dialect in ("lark", "gbnf"):
        special = special_tokens if dialect == "lark" else ()
        built = walk.build(fmt, declared, start, options, special)
        if primed:
            built = after(built, primed, walk.spec_of(fmt).dropped)
        text = (lark if dialect == "lark" else gbnf).write(built)
    else:
        built, triggers = walk.build_lazy(fmt, declared, start, options)
        fields = {"grammar": gbnf.write(built), "grammar_lazy": True}
        triggers_data = [{"type": "word", "value": word} for word in triggers]
        text = json.dumps({**fields, "grammar_triggers": triggers_data}, ensure_ascii=False)
    return Export(text, tuple(dict.fromkeys(built.dropped)))


def grammar(fmt: Described, tools: Tools | None, dialect: str = "lark", **options: Any) -> str:
    """The text of `export(fmt, tools, dialect, **options)` (what it dropped left out)."""
    return export(fmt, tools, dialect, **options).text


__all__ = ["DIALECTS", "Described", "Export", "Options", "export", "grammar"]
