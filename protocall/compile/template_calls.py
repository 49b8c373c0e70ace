"""The calls of a template read piece by piece: the head up to the arguments (its value
the name or the id), the body through the closer, the `optional` pieces, bare objects
proven by a hook, and the run of calls in a section."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .. import ast
from ..blocks.calls import Calls, closer, section_calls, skipped_call, tool_call
from ..blocks.names import arguments, declared, per_tool, tool_name
from ..combinators import (
    Parser,
    UsageError,
    alt,
    cut,
    fail,
    literal,
    many,
    markers,
    optional,
    peek,
    recover,
    regex,
    seq,
    success,
    tag,
    unfinished,
    until,
)
from ..combinators import whitespace as ws
from ..spec.codecs import (
    Attribute,
    BareObject,
    Codec,
    IdName,
    JsonObject,
    NameAndArguments,
    Plain,
    XmlArguments,
    XmlElements,
)
from ..spec.parts import PLACEHOLDER, PROOF_HOOKS, Section, Spec
from ..tools import Tools

_OBJECTS = (JsonObject, BareObject)
"""The argument codecs whose `{` proves a bare call's name."""


def _text(text: str) -> list[Parser[Any]]:
    """`text` of a template: its tokens, any whitespace (or none) where it has whitespace."""
    return [
        ws if piece.isspace() else literal(piece) for piece in re.split(r"(\s+)", text) if piece
    ]


def _spaced(parts: list[Parser[Any]], spaced: bool) -> list[Parser[Any]]:
    """`parts`, with optional whitespace between every two when `spaced`."""
    if not spaced:
        return parts
    return [part for piece in parts for part in (ws, piece)][1:]


class TemplateCalls:
    """The piece-by-piece part of an `Envelope` (`spec`, the template's required `pieces`,
    its `opener` and `closer`)."""

    spec: Spec
    read_section: Section | None
    pieces: list[str]
    opener: str
    closer: str

    def _head(self, lead: Parser[Any] | None, tools: Tools | None) -> Parser[Any]:
        """The template up to the arguments; its value is the name (or the id). With
        `Call.closer_proves`, the call's closer standing where the head's last marker
        should (not consumed) ends the head too: the call then fails in its body."""
        call = self.spec.call
        parts: list[Parser[Any]] = []
        value: Parser[Any] | None = None
        pieces = self._split()[0]
        for number, piece in enumerate(pieces):
            if piece == "{call}" and isinstance(call.arguments, NameAndArguments):
                anywhere = call.arguments.anywhere  # the text before `{call}` heads it
                value = success("") if anywhere else call.arguments.head()
                parts.append(value)
            elif piece == "{id}" and not isinstance(call.name, IdName):
                parts.append(self._id())
            elif piece in ("{name}", "{id}"):
                name = call.name
                value = name.parser(tools) if isinstance(name, Plain) else name.parser()
                parts.append(value)
                if isinstance(call.name, Attribute):
                    parts.append(self._rest_of_tag("".join(pieces[number + 1 :])))
                    break
            else:
                parts += _text(piece)
        if call.closer_proves and value is not None and parts[-1] is not value:
            # the call's closer where the head's last marker should stand proves it too
            parts[-1] = alt(parts[-1], peek(literal(self.closer)))
        parts = [*([] if lead is None else [lead]), *_spaced(parts, call.spaced)]
        at = parts.index(value) if value is not None else -1
        if at < 0:
            raise UsageError(
                f"a call template with {{name}}, {{id}} or {{call}}: {call.template!r}"
            )
        return seq(*parts).map(lambda matched: matched[at])

    @staticmethod
    def _rest_of_tag(rest: str) -> Parser[Any]:
        """After an attribute name's closing quote: free attributes up to the tag's end."""
        closing = rest.rpartition('"')[2]
        attributes = regex(f"[^{re.escape(closing[0])}]*")
        return seq(literal('"'), attributes, literal(closing))

    def _split(self) -> tuple[list[str], list[str]]:
        """The template's pieces up to the arguments (`{call}` included), and after them."""
        at = next(i for i, p in enumerate(self.pieces) if p in ("{arguments}", "{call}"))
        upto = at + 1 if self.pieces[at] == "{call}" else at
        return self.pieces[:upto], self.pieces[at + 1 :]

    def _body(
        self,
        tools: Tools | None,
        codec: JsonObject | XmlArguments | XmlElements | BareObject | NameAndArguments,
    ) -> Callable[[Any], Parser[Any]]:
        """`value of the head -> the rest of the call`, through its closer."""
        call = self.spec.call
        name = call.name
        after = [part for piece in self._split()[1] for part in _text(piece)]
        if isinstance(codec, NameAndArguments):
            read = codec.element() if codec.anywhere else codec.body()
            rest = seq(*_spaced([read, *after], call.spaced))
            return lambda _: rest
        values = per_tool(tools, lambda schema: arguments(codec.parser(schema)))

        pieces = self._optional()
        if after and call.other_closers:  # the closer, its last marker, in any spelling
            after[-1] = markers(self.closer, *call.other_closers)
        closing = [ws, *after] if after else []  # no closer: the whitespace after is not its
        if after and call.unclosed:  # the closer may be missing before a stop or a call
            missing = peek(ws.then(markers(*self.spec.stops, self.opener)))
            closing = [alt(seq(*closing), missing)]

        def body(head: str) -> Parser[Any]:
            start = [name.name_of(tools, head)] if isinstance(name, IdName) else []
            arguments = values(name.name(head) if isinstance(name, IdName) else head)
            if call.spaced:
                spaced = _spaced([*start, arguments, *after], True)
                return seq(*pieces, ws, *spaced) if pieces else seq(*spaced)
            return seq(*start, *pieces, ws, arguments, *closing)

        return body

    def _check_bare(self) -> None:
        """A `bare` call outside XML arguments has object arguments after a `Plain` name
        with a `prefix` (what proves it a call without its opener)."""
        call = self.spec.call
        name, codec = call.name, call.arguments
        if not (isinstance(name, Plain) and name.prefix and isinstance(codec, _OBJECTS)):
            raise UsageError(
                "a `bare` call needs an outer tag around the named one (XML arguments) or "
                f"a name `prefix` before object arguments, not {call.template!r}"
            )

    def _leading(self, tools: Tools | None) -> Parser[Any]:
        """With `Call.bare`, the call written without its opener: after any whitespace, its
        name's `prefix` (required here: `call:`), a declared tool's name, `{` and the
        arguments, then the closer if it follows (`Calls.leading`: tried only where content
        starts)."""
        call, codec = self.spec.call, self.spec.call.arguments
        name = call.name
        assert isinstance(name, Plain) and isinstance(codec, _OBJECTS)  # `_check_bare`
        named = seq(ws, literal(name.prefix), tool_name(declared(tools, name.pattern)))
        head = named.map(lambda parts: parts[2]).skip(peek(ws.then(literal("{"))))
        values = per_tool(tools, lambda schema: arguments(codec.parser(schema)))
        after = [part for piece in self._split()[1] for part in _text(piece)]
        closing = optional(seq(ws, *after)) if after else ws
        resync = (self.closer, *(m for m in (self.opener, *self.spec.stops) if m))
        return unfinished(tool_call(head, lambda found: seq(ws, values(found), closing), resync))

    def _optional(self) -> list[Parser[Any]]:
        """Each `optional` piece, read where its first token stands, its `{id}` the call
        id; committed to once what has arrived of that token begins no later piece (nor
        the arguments' `{`), so a piece cut off there is a truncated call."""
        firsts = self._firsts()
        pieces = []
        for number, piece in enumerate(self.spec.call.optional):
            first, later = firsts[number], (*firsts[number + 1 :], "{")
            ends = range(1, len(first))
            own = (first[:end] for end in ends if not any(o.startswith(first[:end]) for o in later))
            parts: list[Parser[Any]] = [peek(literal(next(own, first))), cut]
            for part in PLACEHOLDER.split(piece):
                parts += [self._id()] if part == "{id}" else _text(part)
            pieces.append(optional(seq(ws, *parts)))
        return pieces

    def _firsts(self) -> list[str]:
        """The first token of each `optional` piece."""
        return [PLACEHOLDER.split(piece)[0].split()[0] for piece in self.spec.call.optional]

    def _id(self) -> Parser[str]:
        """A call id that carries no name: a token of `Call.id_pattern`."""
        return tag(ast.TOOL_ID, regex(self.spec.call.id_pattern).desc("a call id"))

    def _with_optional(self, tools: Tools | None, codec: Codec) -> Calls:
        """Calls in no section whose template has `optional` pieces and no closer (Mistral
        v11): the head is proven once the first token of an optional piece or the
        arguments' `{` follows the name; a failed call is skipped to the next opener or a
        stop, which it leaves in place."""
        assert isinstance(codec, JsonObject)  # `Call` checked: optional pieces need JSON
        follows = markers(*self._firsts(), "{")  # `{`: the arguments' opening
        head = self._head(None, tools).skip(peek(ws.then(follows)))
        body = self._body(tools, codec)
        skip = until(self.opener, *self.spec.stops, emit=False)
        return Calls((self.opener,), unfinished(head), unfinished(skipped_call(head, body, skip)))

    def _proven(self, tools: Tools | None, codec: NameAndArguments) -> Calls:
        """Call objects standing bare in the content, each proven a call by the hook
        `Call.proof` (or, for the first, by a section begin before it, after which it is
        one whatever it holds), separated by the text of `between` (any whitespace
        around it); a failed one is skipped to a stop."""
        hook = PROOF_HOOKS[self.spec.call.proof]  # `Envelope` checked it is registered
        proof, skip = hook.proof(tools), until(*self.spec.stops, emit=False)

        def one(head: Parser[Any], lead: Parser[Any]) -> Parser[Any]:
            return recover(tag(ast.TOOL_CALL, seq(peek(head), lead, cut, codec.element())), skip)

        bare = one(proof, ws)
        first, heads = bare, peek(proof)
        begins = self.read_section.begins if self.read_section else ()
        if begins:
            tagged = seq(markers(*begins), ws, literal("{"))
            first = alt(unfinished(one(tagged, markers(*begins).then(ws))), bare)
            heads = alt(unfinished(tagged), heads)
        separator = self.spec.call.between.strip()  # none: whitespace alone separates them
        gap = [ws, literal(separator), ws] if separator else [ws]
        more = many(unfinished(seq(*gap, bare)))
        return Calls((*begins, *hook.openers), heads, seq(first, more))

    def _section(
        self,
        section: Section,
        lead: Parser[Any] | None,
        head: Parser[Any],
        body: Callable[[Any], Parser[Any]],
        resync: tuple[str, ...],
    ) -> Calls:
        """Calls in a section that counts where a whole call head follows its begin."""
        begins, ends = section.begins, section.ends
        openers = (*begins, *((self.opener,) if section.bare else ()))
        openers += (self.spec.placeholder,) if self.spec.placeholder else ()
        begin = markers(*begins)
        gap: Parser[Any] = ws
        if section.noise:  # runs to a call or the end; another begin or a stop ends the search
            noise = until(self.opener, *ends, *begins, *self.spec.stops, emit=False)
            gap = alt(noise.skip(peek(markers(self.opener, *ends))), ws)
        calls = section_calls(
            openers,
            begin if lead is None else seq(lead, begin),
            head,
            body,
            resync,
            closer(*ends) if ends else fail("no section end"),  # none: ends at a non-call
            bare=section.bare,
            bare_heads=section.bare_ends_reasoning,
            gap=gap,
        )
        if not section.empty:
            return calls
        empty = seq(begin, gap, markers(*ends))
        return Calls(calls.openers, calls.head, alt(calls.call, empty))
