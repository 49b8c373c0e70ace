"""The calls of an XML layout: a `Plain` name right before `XmlArguments` (see
`blocks.calls.xml_calls`), alone or in an outer tag, and what such a template may have."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..blocks.calls import Calls, in_runs, tool_calls, xml_calls
from ..blocks.names import arguments, declared, per_tool, tool_name
from ..combinators import Parser, UsageError, alt, literal, markers, optional, peek, seq
from ..combinators import whitespace as ws
from ..spec.codecs import Plain, XmlArguments
from ..spec.parts import Spec
from ..tools import Tools
from ..values.xmlargs import Layout


class XmlCalls:
    """The XML-layout part of an `Envelope` (`spec` and the template's `opener`)."""

    spec: Spec
    opener: str

    def _xml_layout(self) -> Layout | None:
        """The layout of a call whose `Plain` name stands right before `XmlArguments`
        (what is between them, if anything, ends the name; see `blocks.calls.xml_calls`).
        A call's `other_closers` are the layout's `other_ends`. With `Call.unclosed_value`,
        a missing last value close is tolerated at the layout's end followed by what the
        template writes after it or, where it writes nothing, by the next call's opener, or
        by a stop (`Layout.unclosed_at_end`)."""
        call = self.spec.call
        if call.loose or not isinstance(call.name, Plain):
            return None
        if not isinstance(call.arguments, XmlArguments):
            return None
        layout = call.arguments.layout
        if call.other_closers:  # the call's closer is the layout's end (`_check_xml`)
            layout = replace(layout, other_ends=call.other_closers)
        if not call.unclosed_value:
            return layout
        if layout.unclosed_at_end is not None:
            raise UsageError(
                f"a call with `unclosed_value` derives its layout's `unclosed_at_end`, "
                f"which states {layout.unclosed_at_end}"
            )
        after = self._xml_parts()[2].split()[1:] or [self.opener]
        return replace(layout, unclosed_at_end=(*after, *self.spec.stops))

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
        closers = (*after.split(), *self.spec.call.other_closers)
        return (*heads, *closers, layout.opener, *tagged, layout.value_close)

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
        if (spec.call.other_closers or spec.call.optional) and self._wrapping():
            raise UsageError(
                f"`other_closers` and `optional` pieces are read in an XML call whose named "
                f"tag stands in no outer one, not {spec.call.template!r}"
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
            self._name_end(between),
            stops=spec.stops,
            section=markers,
            lead=lead,
        )

    def _name_end(self, between: str) -> str | Parser[Any]:
        """The text between the name and the arguments, which ends the name: as written, or,
        where `Call.optional` pieces stand in it, a parser of it in which they may be
        missing (whitespace in it read as any, or none, as in every template)."""
        pieces = "".join(self.spec.call.optional)
        if not pieces:
            return between.strip()
        before, after = between.split(pieces, 1)

        def text(part: str) -> list[Parser[Any]]:
            return [ws if p.isspace() else literal(p) for p in re.split(r"(\s+)", part) if p]

        # each piece written or not, as alternatives (not `optional`): a piece the end of
        # input cuts off is then a head cut off, a truncated call, not text
        rest: Parser[Any] = seq(*text(after.rstrip()))
        for piece in reversed(self.spec.call.optional):
            rest = alt(seq(*text(piece), rest), rest)
        return seq(*text(before.lstrip()), rest)

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

        assert isinstance(call.name, Plain)  # `_xml_layout`: a `Plain` name
        own = call.name.parser(tools)

        def named(name: Parser[str] | None = None) -> Parser[str]:
            read = own if name is None else tool_name(name)
            tag = seq(literal(inner), read, literal(between.strip()))
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
