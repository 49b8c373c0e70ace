"""A spec's calls: their parser for the declared tools, their renderer and the markers
both derive from the call template and the section."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ... import ast
from ...combinators import (
    Parser,
    UsageError,
    alt,
    cut,
    literal,
    many,
    markers,
    optional,
    peek,
    recover,
    regex,
    seq,
    tag,
    unfinished,
    until,
)
from ...combinators import whitespace as ws
from ...combinators.xmlargs import Layout
from ...tools import Tools
from .. import templates
from ..blocks.calls import (
    Calls,
    call_section,
    closer,
    in_runs,
    section_calls,
    tool_call,
    tool_calls,
    xml_calls,
)
from ..blocks.json_calls import json_call_list
from ..blocks.names import arguments, declared, per_tool, tool_name
from ..blocks.python_calls import python_call_lines, python_call_list
from ..codecs import (
    Attribute,
    BareObject,
    Codec,
    IdName,
    JsonObject,
    NameAndArguments,
    NameKey,
    Plain,
    PythonKeywords,
    XmlArguments,
)
from ..turns import ToolUse
from .parts import (
    PLACEHOLDER,
    PROOF_HOOKS,
    Section,
    Spec,
)


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


class Envelope:
    """A spec's calls: the parser (`calls(tools)`), the renderer and the derived markers."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        call, section = spec.call, spec.section
        required = call.template.replace("".join(call.optional), "")  # what every call has
        self.pieces = [p for p in PLACEHOLDER.split(required) if p]
        tokens = PLACEHOLDER.sub(" ", call.template).split() or [""]
        self.opener, self.closer = tokens[0], tokens[-1]  # the call's first and last tags
        self.array = section is not None and section.array
        self.alternative = section is not None and section.element is not None  # to template
        self.end = section.ends[0] if section and section.ends else ""
        self._check_call()
        brackets = self._frame()
        self._derive_markers(tokens)
        self.shown = self._summary(brackets)

    def _check_call(self) -> None:
        """A `{call}` template stands alone exactly in a JSON array section (not its
        alternative) or with a registered `proof`; `NameKey` only in an array."""
        call = self.spec.call
        if ((self.array and not self.alternative) or bool(call.proof)) != (
            call.template == "{call}"
        ) or (isinstance(call.arguments, NameKey) and not self.array):
            raise UsageError(
                f"a call template of `{{call}}` alone exactly in a section holding a JSON "
                f"array (NameKey only there) or with a `proof`, not {call.template!r}"
            )
        if call.proof:
            PROOF_HOOKS[call.proof]  # a missing one is a `UsageError`
        if call.unclosed_value and self._xml_layout() is None:
            raise UsageError(
                f"`unclosed_value` needs a name right before XML arguments, not {call.template!r}"
            )

    def _frame(self) -> tuple[str, str]:
        """Set how a run of calls is written (`written_section`, `None`: each call as the
        template writes it) and the brackets of a JSON array or a Python list, which are
        JSON, not reserved markers; return those brackets."""
        call, section = self.spec.call, self.spec.section
        listed = isinstance(call.arguments, PythonKeywords) and call.between != "\n"
        brackets = section.framing if section and self.array else ("[", "]") if listed else ("", "")
        written = (section.begins[0], self.end) if section else ("", "") if listed else None
        if section and section.written_bare:  # the calls as the template writes them
            written = ("", "") if listed else None
        written = (written[0] + brackets[0], brackets[1] + written[1]) if written else None
        self.brackets = tuple(m.strip() for m in (written or ()) if self.array or listed)
        self.written_section = None if section and section.each else written
        return brackets

    def _derive_markers(self, tokens: list[str]) -> None:
        """Set the reserved markers of the section and of a call (its tags, the codec's,
        an XML layout's or a loose template's) and the strays dropped in the content."""
        spec, call, section = self.spec, self.spec.call, self.spec.section
        self.section_markers = (
            tuple(m.strip() for m in (*section.begins, *section.ends)) if section else ()
        )
        tags = tuple(token for token in tokens if not set(token) & set('"=('))  # not attributes
        tags = () if isinstance(call.arguments, PythonKeywords) else tags  # `name(…)`: none
        self.markers = (*tags, *call.arguments.markers)
        layout = self._xml_layout()
        if layout is not None:
            self._check_xml(layout)
            self.markers = self._xml_markers()
        if call.loose:
            self.markers = self._templates()[0].markers
        stray_ends = section.ends if section and section.stray_ends else ()
        loose = section is not None and section.loose  # its calls' strays are dropped too
        stray_closers = tags[1:] if call.stray_closers or loose else ()
        self.dropped = (*stray_ends, *stray_closers, *spec.dropped)

    def _summary(self, brackets: tuple[str, str]) -> str:
        """The call as the marker summary shows it: the template with its placeholders
        named, in its section or list, on one line."""
        call, section = self.spec.call, self.spec.section
        shown = PLACEHOLDER.sub(self._shown, self._template(None))
        if section is not None and self.array and not self.alternative:
            shown = f"{section.begins[0]}{shown.join(b.strip() for b in brackets)}{self.end}"
        elif isinstance(call.arguments, PythonKeywords):
            begin, end = (section.begins[0], section.ends[0]) if section else ("", "")
            shown = f"{begin}{brackets[0]}{shown}{call.between}…{brackets[1]}{end}"
        elif section is not None and not self.alternative:
            shown = section.begins[0].strip() + shown.strip()
        return shown.strip().replace("\n", "\\n")

    def _shown(self, match: re.Match[str]) -> str:
        call = self.spec.call
        key = match[1]
        if key == "{id}" and not isinstance(call.name, IdName):
            return "ID"
        if key in ("{name}", "{id}"):
            return call.name.shown
        return "IDX" if key == "{index}" else call.arguments.shown

    def render(self, use: ToolUse, index: int) -> str:
        """`use` written from the template, `index` its position in the turn."""
        call = self.spec.call
        codec, name = call.arguments, call.name

        def part(match: re.Match[str]) -> str:  # `Call` checked which placeholders it has
            if match[1] == "{index}":
                return str(index)
            if match[1] == "{id}" and not isinstance(name, IdName):
                return use.id or str(index)
            if isinstance(codec, (NameAndArguments, NameKey)):
                return codec.render(use.name, use.arguments, use.id or str(index))
            if match[1] == "{arguments}":
                return codec.render(use.arguments)
            if isinstance(name, IdName):
                return name.render(use.name, use.id, index)
            return name.render(use.name)

        written = PLACEHOLDER.sub(part, self._template(use.id))
        section = self.spec.section
        return (
            f"{section.begins[0]}{written}{section.ends[0]}"
            if section and section.each
            else written
        )

    def _template(self, call_id: str | None) -> str:
        """The template as written for a call with `call_id`: an optional piece holding
        `{id}` is left out for a call without one."""
        template = self.spec.call.template
        for piece in self.spec.call.optional:
            if "{id}" in piece and not call_id:
                template = template.replace(piece, "", 1)
        return template

    def calls(self, tools: Tools | None) -> Calls:
        """The parser of the spec's calls for the declared `tools` (any name when None)."""
        spec, section = self.spec, self.spec.section
        codec = spec.call.arguments
        if isinstance(codec, PythonKeywords):
            return self._python(tools)
        if section is not None and self.array:
            element = section.element or codec
            assert isinstance(element, (NameAndArguments, NameKey))
            end = section.ends[0] if section.ends else None
            resync = (*section.ends, *spec.stops, *(() if end else section.begins))  # or a begin
            calls = json_call_list(section.begins, element.element(), resync, end)
            if section.element is None:
                return calls
            called = self._with_optional(tools, codec)
            heads, bodies = alt(calls.head, called.head), alt(calls.call, called.call)
            return in_runs(Calls(calls.openers, heads, bodies))
        if spec.call.loose:
            return templates.any_of(self._templates(), tools, stops=spec.stops)
        layout = self._xml_layout()
        if layout is not None:
            return self._xml(tools, layout)
        lead = None
        if spec.placeholder is not None:
            begins = section.begins if section else ()
            follows = peek(markers(*begins, self.opener))
            lead = optional(seq(literal(spec.placeholder), ws, follows))
        assert not isinstance(codec, NameKey)  # `Envelope` checked: a JSON array's only
        if spec.call.optional:
            return in_runs(self._with_optional(tools, codec))
        if spec.call.proof:
            assert isinstance(codec, NameAndArguments)  # `{call}` alone: a call codec
            return self._proven(tools, codec)
        head, body = self._head(lead), self._body(tools, codec)
        if self._split()[0][-1] == "{name}" and isinstance(codec, (JsonObject, BareObject)):
            head = head.skip(peek(ws.then(literal("{"))))  # a name right before `{` ends there
        resync = (self.closer, self.opener, *(section.ends if section else ()), *spec.stops)
        if section is None:
            calls = in_runs(tool_calls((self.opener,), head, body, resync))
        elif section.opens_at == "marker":
            begin = markers(*section.begins)
            begin = begin.skip(peek(ws.then(markers(self.opener, *section.ends))))
            call = unfinished(tool_call(head, body, resync))
            calls = Calls(section.begins, begin, call_section(begin, call, section.ends[0]))
        else:
            calls = self._section(section, lead, head, body, resync)
        return calls

    def _with_optional(self, tools: Tools | None, codec: Codec) -> Calls:
        """Calls in no section whose template has `optional` pieces and no closer (Mistral
        v11): the head is proven once the first token of an optional piece or the
        arguments' `{` follows the name; a failed call is skipped to the next opener or a
        stop, which it leaves in place."""
        assert isinstance(codec, JsonObject)  # `Call` checked: optional pieces need JSON
        follows = markers(*self._firsts(), "{")  # `{`: the arguments' opening
        head = self._head(None).skip(peek(ws.then(follows)))
        body = self._body(tools, codec)
        skip = until(self.opener, *self.spec.stops, emit=False)
        one = recover(tag(ast.TOOL_CALL, head.bind(lambda name: cut.then(body(name)))), skip)
        return Calls((self.opener,), unfinished(head), unfinished(one))

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
        begins = self.spec.section.begins if self.spec.section else ()
        if begins:
            tagged = seq(markers(*begins), ws, literal("{"))
            first = alt(unfinished(one(tagged, markers(*begins).then(ws))), bare)
            heads = alt(unfinished(tagged), heads)
        separator = self.spec.call.between.strip()
        more = many(unfinished(seq(ws, literal(separator), ws, bare)))
        return Calls((*begins, *hook.openers), heads, seq(first, more))

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

    def _xml_layout(self) -> Layout | None:
        """The layout of a call whose `Plain` name stands right before `XmlArguments`
        (what is between them, if anything, ends the name; see `blocks.calls.xml_calls`).
        With `Call.unclosed_value`, a missing last value close is tolerated at the layout's
        end followed by what the template writes after it or, where it writes nothing, by
        the next call's opener, or by a stop (`Layout.unclosed_at_end`)."""
        call = self.spec.call
        if call.loose or not isinstance(call.name, Plain):
            return None
        if not isinstance(call.arguments, XmlArguments):
            return None
        layout = call.arguments.layout
        if not call.unclosed_value:
            return layout
        if layout.unclosed_at_end is not None:
            raise UsageError(
                f"a call with `unclosed_value` derives its layout's `unclosed_at_end`, "
                f"which states {layout.unclosed_at_end}"
            )
        after = self._xml_parts()[2].split()[1:] or [self.opener]
        return replace(layout, unclosed_at_end=(*after, *self.spec.stops))

    def _templates(self) -> tuple[templates.Template, ...]:
        """A `loose` call read as a `templates.Template` (whitespace, or none, around each
        tag too), and the same with each `respelled` (token, spelling) swapped in."""
        spec, call, section = self.spec, self.spec.call, self.spec.section
        if section is None:
            raise UsageError(f"a loose call in a section, not {call.template!r} alone")
        codec = call.arguments
        layout = codec.layout if isinstance(codec, XmlArguments) else None
        written = (section.begins[0], section.ends[0])
        lead = written[0][: len(written[0]) - len(written[0].lstrip())]
        openers = (lead + section.opener, section.opener) if section.opener else ()
        template = templates.Template(
            call.template,
            written,
            call.between,
            tuple(begin.strip() for begin in section.begins),
            tuple(end.strip() for end in section.ends),
            tuple(opener for opener in openers if opener),
            section.bare,
            layout,
            call.empty,
        )
        return (template, *(template.respelled(token, other) for token, other in spec.respelled))

    def _xml_parts(self) -> tuple[str, str, str]:
        """The template's text before the name, between the name and the arguments, after."""
        before, rest = self.spec.call.template.split("{name}")
        between, after = rest.split("{arguments}")
        return before, between, after

    def _xml_markers(self) -> tuple[str, ...]:
        before, _, after = self._xml_parts()
        layout = self._xml_layout()
        assert layout is not None
        tagged = tuple(m for m in (layout.key_close, layout.value_open) if m.startswith("<"))
        heads = re.split(r"\s+(?=<)", before.strip())  # `<invoke name="` is one
        return (*heads, *after.split(), layout.opener, *tagged, layout.value_close)

    def _wrapping(self) -> bool:
        """Whether the template's named tag stands in an outer tag."""
        return len(re.split(r"\s+(?=<)", self._xml_parts()[0].strip())) == 2

    def _check_xml(self, layout: Layout) -> None:
        """A `UsageError` for what an XML call's template or section cannot have."""
        spec, section = self.spec, self.spec.section
        after = self._xml_parts()[2]
        if self._wrapping() and section is not None:
            raise UsageError(f"a call of two tags in no section, not {spec.call.template!r}")
        if not self._wrapping() and (spec.call.unclosed or spec.call.bare):
            raise UsageError(
                f"`unclosed` and `bare` need an outer tag around the named tag, "
                f"not {spec.call.template!r}"
            )
        if section and (
            section.bare
            or section.noise
            or section.empty
            or section.opener
            or section.opens_at != "call"
        ):
            raise UsageError("a section of XML calls has no tolerance but `stray_ends`")
        closers = [layout.end, *after.split()[1:2]] if self._wrapping() else [layout.end]
        if after.split() != closers or (section and len(section.begins + section.ends) > 2):
            raise UsageError(
                f"an XML call template ending with {layout.end!r} (one section spelling), "
                f"not {spec.call.template!r}"
            )

    def _xml(self, tools: Tools | None, layout: Layout) -> Calls:
        """Calls of an XML layout (`blocks.calls.xml_calls`): the template's leading whitespace,
        or its section's, is the lead that belongs to the call (or section). A template
        whose named tag stands in an outer one is `_wrapped`."""
        spec, section = self.spec, self.spec.section
        before, between, _ = self._xml_parts()
        if self._wrapping():
            return self._wrapped(tools, layout)
        led = section.begins[0] if section else before
        lead = led[: len(led) - len(led.lstrip())]
        markers = (section.begins[0].strip(), section.ends[0].strip()) if section else None
        return xml_calls(
            tools,
            layout,
            before.strip(),
            between.strip(),
            stops=spec.stops,
            section=markers,
            lead=lead,
        )

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
            closer(*ends),
            bare=section.bare,
            gap=gap,
        )
        if not section.empty:
            return calls
        empty = seq(begin, gap, markers(*ends))
        return Calls(calls.openers, calls.head, alt(calls.call, empty))

    def _wrapped(self, tools: Tools | None, layout: Layout) -> Calls:
        """Calls whose named tag stands in an outer tag (`<tool_call>` around
        `<function=N>`), resumed after a failure at the outer closer. With `unclosed`, a
        missing outer closer is tolerated before a stop or the next call; with `bare`, the
        named tag alone is a call too, for a declared tool whose arguments (or the layout's
        end) follow, resumed at the layout's end."""
        spec, call = self.spec, self.spec.call
        assert isinstance(call.arguments, XmlArguments)
        codec = replace(call.arguments, layout=layout)  # as `_xml_layout` derived it
        before, between, after = self._xml_parts()
        outer, inner = re.split(r"\s+(?=<)", before.strip())
        closer = after.split()[-1]
        values = per_tool(tools, lambda schema: arguments(codec.parser(schema)))

        def named(name: Parser[str] | None = None) -> Parser[str]:
            tag = seq(literal(inner), tool_name(name), literal(between.strip()))
            return tag.map(lambda parts: parts[1])

        def body(close: Parser[Any]) -> Callable[[str], Parser[Any]]:
            return lambda name: seq(values(name), literal(layout.end), close)

        closed: Parser[Any] = literal(closer)
        if call.unclosed:
            closed = alt(closed, peek(markers(*spec.stops, outer)))
        closed = ws.then(closed)
        head = literal(outer).then(ws).then(named())
        resync = (closer, outer, *spec.stops)
        wrapped = tool_calls((outer,), head, body(closed), resync)
        if not call.bare:
            return in_runs(wrapped)
        follows = peek(ws.then(markers(layout.opener, layout.end)))
        resync = (layout.end, outer, *spec.stops)
        bare_head = named(declared(tools)).skip(follows)
        bare = tool_calls((inner,), bare_head, body(optional(closed)), resync)
        heads, calls = alt(wrapped.head, bare.head), alt(wrapped.call, bare.call)
        return in_runs(Calls((outer, inner), heads, calls))

    def _head(self, lead: Parser[Any] | None) -> Parser[Any]:
        """The template up to the arguments; its value is the name (or the id)."""
        call = self.spec.call
        parts: list[Parser[Any]] = []
        value: Parser[Any] | None = None
        pieces = self._split()[0]
        for number, piece in enumerate(pieces):
            if piece == "{call}" and isinstance(call.arguments, NameAndArguments):
                value = call.arguments.head()
                parts.append(value)
            elif piece == "{id}" and not isinstance(call.name, IdName):
                parts.append(self._id())
            elif piece in ("{name}", "{id}"):
                value = call.name.parser()
                parts.append(value)
                if isinstance(call.name, Attribute):
                    parts.append(self._rest_of_tag("".join(pieces[number + 1 :])))
                    break
            else:
                parts += _text(piece)
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
        self, tools: Tools | None, codec: JsonObject | XmlArguments | BareObject | NameAndArguments
    ) -> Callable[[Any], Parser[Any]]:
        """`value of the head -> the rest of the call`, through its closer."""
        call = self.spec.call
        name = call.name
        after = [part for piece in self._split()[1] for part in _text(piece)]
        if isinstance(codec, NameAndArguments):
            rest = seq(*_spaced([codec.body(), *after], call.spaced))
            return lambda _: rest
        values = per_tool(tools, lambda schema: arguments(codec.parser(schema)))

        pieces = self._optional()

        def body(head: str) -> Parser[Any]:
            start = [name.name_of(tools, head)] if isinstance(name, IdName) else []
            arguments = values(name.name(head) if isinstance(name, IdName) else head)
            if call.spaced:
                spaced = _spaced([*start, arguments, *after], True)
                return seq(*pieces, ws, *spaced) if pieces else seq(*spaced)
            return seq(*start, *pieces, ws, arguments, ws, *after)

        return body

    def _python(self, tools: Tools | None) -> Calls:
        spec, section = self.spec, self.spec.section
        if section is not None and spec.call.between == "\n":
            return python_call_lines(spec.stops, (section.begins[0], section.ends[0]))
        written = (section.begins[0], section.ends[0]) if section else None
        return python_call_list(
            tools, spec.stops, section=written, bare=section is None or section.bare
        )
