"""Tool calls described by a template: how a spec's `loose` calls are read (`spec.Call`).

`Template("<|call|>{name}<|args|>{arguments}<|end|>", section=("<|calls|>", "</calls|>"))`
is the parser of such calls (the spec writes them from the same template). The text
around `{name}` and `{arguments}` is matched loosely (`blocks.names.loose`: any whitespace, or
none, where it has whitespace and around each tag), the name is a `tool_name`, the
arguments a JSON object or, with a `layout`, XML-style arguments typed by the tool's
schema. Calls come in a section whose markers may have several accepted spellings; with
`bare`, a call outside a section counts too; `any_of` reads alternative spellings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from itertools import chain
from typing import Any

from ..blocks.calls import Calls, closer, section_calls
from ..blocks.names import arguments, loose, per_tool, tool_name
from ..blocks.schema_typing import schema_typing
from ..combinators import (
    Parser,
    alt,
    literal,
    markers,
    optional,
    peek,
    seq,
    success,
)
from ..combinators import whitespace as ws
from ..tools import Tools
from ..values import (
    json_object,
)
from ..values.xmlargs import Layout, xml_arguments

_FIRST_ATTRIBUTE = re.compile(r'\s+[\w-]+="')
_TAG = re.compile(r"<[^<>]*>?")


@dataclass(frozen=True)
class Template:
    """One family's calls. `call` is a call as the model writes it, with `{name}` and
    `{arguments}`; `section` the section markers as written (leading whitespace of its
    opener is optional envelope, never content), calls joined by `between`; `begins` and
    `ends` every accepted spelling of the section's markers (default: its own); `openers`
    where content stops to try a call (default: the begins, also after the section's
    leading whitespace, and the call's own opener with `bare`); `bare` whether a call
    outside a section counts (and, with `bare_heads`, ends a reasoning block as a genuine
    call does); `layout` the XML-style argument layout (None: a JSON
    object); `empty`, where the family has one, the text after the name that closes a call
    without arguments instead (`"/>` of a self-closing tag). After a malformed call, parsing
    resumes at the call's closing tag, the next call's opener, a section end or a stop."""

    call: str
    section: tuple[str, str]
    between: str = ""
    begins: tuple[str, ...] = ()
    ends: tuple[str, ...] = ()
    openers: tuple[str, ...] = ()
    bare: bool = False
    layout: Layout | None = None
    empty: str | None = None
    bare_heads: bool = True

    def __post_init__(self) -> None:
        before = self.call.split("{name}")[0]
        begin, end = (marker.strip() for marker in self.section)
        object.__setattr__(self, "begins", self.begins or (begin,))
        object.__setattr__(self, "ends", self.ends or (end,))
        own = (_tag_name(before),) if self.bare else ()
        lead = self.section[0][: -len(self.section[0].lstrip())]  # envelope, not content
        led = tuple(lead + begin for begin in self.begins) if lead else ()
        object.__setattr__(self, "openers", self.openers or (*led, *self.begins, *own))

    @property
    def markers(self) -> tuple[str, ...]:
        """The marker texts: section spellings, the call's tags (up to their first
        attribute), and the layout's argument tags."""
        tags = map(
            _tag_name, _TAG.findall(self.call.replace("{name}", "").replace("{arguments}", ""))
        )
        layout = () if self.layout is None else (self.layout.opener, self.layout.value_close)
        return tuple(dict.fromkeys((*self.begins, *self.ends, *tags, *layout)))

    def calls(self, tools: Tools | None, stops: tuple[str, ...]) -> Calls:
        """The parser: calls of the declared `tools` (any name when None)."""
        before, rest = self.call.split("{name}")
        after_name, after = rest.split("{arguments}")
        layout = self.layout
        values = per_tool(
            tools,
            lambda schema: arguments(
                json_object() if layout is None else xml_arguments(layout, schema_typing(schema))
            ),
        )
        ending = loose(after_name).result(True)  # the value: whether arguments follow
        if self.empty is not None:
            ending = alt(ending, loose(self.empty).result(False))
        lead = self.section[0][: -len(self.section[0].lstrip())]
        # the section's lead before a call too: a bare one after it heads a call there
        own = seq(optional(literal(lead)), loose(before)) if lead and self.bare else loose(before)
        head = seq(own, ws, tool_name(), ws, ending).map(lambda p: (p[2], p[4]))
        opener = _FIRST_ATTRIBUTE.split(before, maxsplit=1)[0]  # up to its first attribute
        resync = (after[after.rindex("<") :], opener, *self.ends, *stops)
        begin = markers(*self.begins)

        def body(head: tuple[str, bool]) -> Parser[Any]:
            name, has_arguments = head
            return seq(ws, values(name), ws, loose(after)) if has_arguments else success(None)

        return section_calls(
            self.openers,
            seq(optional(literal(lead)), begin) if lead else begin,
            head,
            body,
            resync,
            closer(*self.ends),
            bare=self.bare,
            bare_heads=self.bare_heads,
        )

    def respelled(self, token: str, spelling: str) -> Template:
        """This template with `token` spelled `spelling` in every marker."""

        def swap(value: Any) -> Any:
            if isinstance(value, str):
                return value.replace(token, spelling)
            if isinstance(value, tuple):
                return tuple(map(swap, value))
            if isinstance(value, Layout):
                return replace(
                    value,
                    **{
                        f.name: swap(getattr(value, f.name))
                        for f in fields(value)
                        if isinstance(getattr(value, f.name), str)
                    },
                )
            return value

        return replace(self, **{f.name: swap(getattr(self, f.name)) for f in fields(self)})


def _tag_name(text: str) -> str:
    """The first tag of `text` up to its first attribute (`<invoke name="x">`: `<invoke`)."""
    tag = _TAG.match(text)
    return _FIRST_ATTRIBUTE.split(tag.group() if tag else text, maxsplit=1)[0]


def any_of(
    templates: tuple[Template, ...], tools: Tools | None, *, stops: tuple[str, ...]
) -> Calls:
    """Calls written from any of `templates` (alternative spellings of one family's, the
    first the usual one). The other spellings are tried behind one lookahead for their
    openers: where none starts, it fails as they would, at once, instead of each spelling's
    branches in turn (and the usual spelling's calls keep their depth)."""
    usual, *others = [template.calls(tools, stops) for template in templates]
    if not others:
        return usual
    opening = peek(markers(*chain.from_iterable(c.openers for c in others)))
    return Calls(
        tuple(chain(usual.openers, *(c.openers for c in others))),
        alt(usual.head, opening.then(alt(*(c.head for c in others)))),
        alt(usual.call, opening.then(alt(*(c.call for c in others)))),
    )
