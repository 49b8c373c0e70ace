"""llguidance as the oracle of the exported grammars: a byte-level tokenizer with the
grammar's special tokens, and whether a text is accepted, or a viable prefix."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import llguidance
from hypothesis import assume
from hypothesis import strategies as st

from protocall import formats
from protocall.blocks.turns import ToolUse, Turn
from protocall.formats import exportable
from protocall.grammar import DIALECTS, walk
from protocall.testing import arguments, prose, tool_sets
from protocall.tools import Tools, normalize_tools

EOS = "<|oracle-eos|>"


class _Bytes:
    """Every byte a token, plus `specials` (special tokens) and the EOS token."""

    def __init__(self, specials: tuple[str, ...]) -> None:
        self.specials = (EOS, *specials)
        self.tokens = [bytes([i]) for i in range(256)] + [s.encode() for s in self.specials]
        self.eos_token_id = 256
        self.bos_token_id = None
        self.special_token_ids = list(range(256, 256 + len(self.specials)))
        ordered = sorted(self.specials, key=len, reverse=True)
        self.pattern = re.compile("|".join(re.escape(s) for s in ordered))

    def __call__(self, data: bytes) -> list[int]:
        return list(data)

    def encode(self, text: str) -> list[int]:
        """`text` as tokens: every special token's text as that token, the rest bytes."""
        ids: list[int] = []
        at = 0
        for match in self.pattern.finditer(text):
            ids += text[at : match.start()].encode()
            ids.append(256 + self.specials.index(match[0]))
            at = match.end()
        return ids + list(text[at:].encode())


@lru_cache(maxsize=64)
def _tokenizer(specials: tuple[str, ...]) -> tuple[_Bytes, llguidance.LLTokenizer]:
    wrapped = _Bytes(specials)
    return wrapped, llguidance.LLTokenizer(llguidance.TokenizerWrapper(wrapped))


@dataclass(frozen=True)
class Verdict:
    accepted: bool  # the whole text, then the end of generation
    viable: int  # how many tokens were consumed before one was refused
    tokens: int
    error: str = ""


def special_tokens(lark: str) -> tuple[str, ...]:
    """The special tokens a Lark grammar names (`<|…|>` outside strings and regexes; a
    token may hold a `"`, Gemma 4's `<|"|>`)."""
    token = r'(<\|[^|<>\s]+\|>|<[^<>\s"]+>)'
    pieces = re.finditer(token + r'|"(?:[^"\\]|\\.)*"|/(?:[^/\\\n]|\\.)*/', lark)
    return tuple(sorted({piece[1] for piece in pieces if piece[1]}))


def check(lark: str, text: str, specials: tuple[str, ...] | None = None) -> Verdict:
    """Feed `text` to a matcher of the grammar `lark`, token by token."""
    wrapped, tokenizer = _tokenizer(specials if specials is not None else special_tokens(lark))
    compiled = llguidance.LLMatcher.grammar_from_lark(lark)
    matcher = llguidance.LLMatcher(tokenizer, compiled, log_level=0)
    if matcher.is_error():
        raise AssertionError(f"the grammar does not compile: {matcher.get_error()}\n{lark}")
    ids = wrapped.encode(text)
    for number, token in enumerate(ids):
        if not matcher.consume_token(token):
            return Verdict(False, number, len(ids), matcher.get_error()[:300])
    return Verdict(matcher.is_accepting(), len(ids), len(ids))


EXPORTABLE = exportable()
"""The registered formats whose spec the grammar exporter writes."""

TRIGGERED = [name for name in EXPORTABLE if not walk.whole_object(walk.spec_of(formats.get(name)))]
"""Those whose calls a trigger opens: lazy grammars and structural tags write them (not a
turn that is one JSON object, `JsonTurn`)."""


def dialects(name: str) -> tuple[str, ...]:
    """The dialects format `name` exports: every one, or, for a turn that is one JSON
    object, the two without triggers (the others refuse it by name)."""
    return DIALECTS if name in TRIGGERED else ("lark", "gbnf")


DEL = "\x7f"
"""llguidance's JSON strings refuse a raw U+007F, which JSON allows (docs/grammar.md)."""


def specials(text: str) -> int:
    """How many special tokens `text` holds (prose that spells one is not prose to a
    tokenizer: it becomes the token)."""
    return len(walk.AUTO_SPECIAL.findall(text))


def in_order(value: Any, schema: Any, *, required_first: bool) -> Any:
    """`value` with every object's members in the order a fixed-order grammar writes them:
    schema order, or required ones first with `required_first` (GBNF)."""
    if not isinstance(value, dict) or not isinstance(schema, Mapping):
        return value
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return value
    required = set(schema.get("required") or ())
    order = list(properties)
    if required_first:
        order.sort(key=lambda key: key not in required)
    ordered = {k: in_order(value[k], properties[k], required_first=required_first)
               for k in order if k in value}  # fmt: skip
    return ordered | {k: v for k, v in value.items() if k not in ordered}


def turn_in_order(turn: Turn, tools: Tools, *, required_first: bool) -> Turn:
    """`turn` with every call's arguments `in_order`."""
    parts = tuple(
        ToolUse(p.name, in_order(p.arguments, tools[p.name].parameters,
                                 required_first=required_first), p.id)
        if isinstance(p, ToolUse) else p
        for p in turn.parts
    )  # fmt: skip
    return Turn(turn.reasoning, parts)


MUTATIONS = ("valid", "wrong name", "type violation", "missing required", "broken envelope")
WRONG_VALUE = {"string": 7, "integer": "seven", "number": "x", "boolean": "maybe",
               "array": "x", "object": 3}  # fmt: skip


@st.composite
def calls(
    draw: st.DrawFn, fmt: formats.Format, required_first: bool | None = None
) -> tuple[Any, str, str]:
    """Tools, a turn of one call (valid or mutated) as the format writes it, the mutation;
    arguments `in_order` unless `required_first` is None."""
    declared = normalize_tools(draw(tool_sets(max_size=2)))
    assert declared is not None
    tool = declared[draw(st.sampled_from(sorted(declared)))]
    values = dict(draw(arguments(tool.parameters, fmt.reserved)))
    written = json.dumps(values, ensure_ascii=False)
    assume(DEL not in written and not specials(written))  # see DEL, `specials`
    if required_first is not None:
        values = in_order(values, tool.parameters, required_first=required_first)
    mutation = draw(st.sampled_from(MUTATIONS))
    name = tool.name
    properties = tool.parameters.get("properties") or {}
    required = [k for k in tool.parameters.get("required") or () if k in values]
    if mutation == "wrong name":
        name = draw(st.sampled_from(["nope", f"{tool.name}x", f"x{tool.name}"]))
    elif mutation == "type violation" and properties:
        key = draw(st.sampled_from(sorted(properties)))
        kind = properties[key].get("type")
        values[key] = WRONG_VALUE.get(kind if isinstance(kind, str) else "string", 7)
    elif mutation == "missing required" and required:
        del values[draw(st.sampled_from(required))]
    before = draw(prose(fmt.reserved, max_pieces=2).filter(lambda text: not specials(text)))
    turn = Turn(None, (*((before,) if before else ()), ToolUse(name, values)))
    text = fmt.render(turn, None)
    if mutation == "broken envelope":
        at = draw(st.integers(len(before), len(text) - 1))
        text = text[:at] + text[at + 1 :]
    return declared, text, mutation


def completes(fmt: formats.Format, tools: Any, text: str) -> tuple[bool, Any]:
    """Whether protocall reads `text` as exactly one complete call, without an error or a
    validation error."""
    session = fmt.parser(tools, fmt.prompt_for(None))
    session.feed(text)
    session.finish()
    message = session.message
    calls = message.tool_calls
    ok = not message.errors and len(calls) == 1 and not calls[0].validation_errors
    shown = {
        "errors": [f"{e.code}: {e.message}" for e in message.errors],
        "calls": [(c.name, c.arguments, c.validation_errors) for c in calls],
    }
    return ok, shown
