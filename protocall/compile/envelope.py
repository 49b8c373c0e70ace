"""A spec's calls: their parser for the declared tools, their renderer and the markers
both derive from the call template and the section. `Envelope` derives the markers and the
renderer and picks the reader by the call's shape: piece by piece (`template_calls`), an XML
layout (`xml_calls`), a loose template (`templates`), a JSON array or Python calls."""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from ..blocks.calls import (
    Calls,
    call_section,
    in_runs,
    sealed,
    tool_call,
    tool_calls,
)
from ..blocks.json_calls import json_call_lines, json_call_list
from ..blocks.python_calls import (
    code_call,
    python_call_lines,
    python_call_list,
    python_method_call,
)
from ..blocks.turns import ToolUse
from ..combinators import (
    UsageError,
    alt,
    literal,
    markers,
    not_followed_by,
    optional,
    peek,
    regex,
    seq,
    unfinished,
)
from ..combinators import whitespace as ws
from ..spec.codecs import (
    BareObject,
    IdName,
    JsonObject,
    NameAndArguments,
    NameKey,
    Plain,
    PythonKeywords,
    XmlArguments,
)
from ..spec.parts import (
    PLACEHOLDER,
    PROOF_HOOKS,
    JsonTurn,
    Section,
    Spec,
    Think,
)
from ..tools import Tools
from . import templates
from .template_calls import TemplateCalls
from .xml_calls import XmlCalls


class Envelope(XmlCalls, TemplateCalls):
    """A spec's calls: the parser (`calls(tools)`), the renderer and the derived markers."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        call, section = spec.call, spec.section
        required = call.template.replace("".join(call.optional), "")  # what every call has
        self.pieces = [p for p in PLACEHOLDER.split(required) if p]
        tokens = PLACEHOLDER.sub(" ", call.template).split() or [""]
        after = re.split(r"\{(?:arguments|call)\}", call.template)[-1].split()
        self.opener = tokens[0]  # the call's first tag
        self.closer = after[-1] if after else ""  # its last, after the arguments, if any
        self.array = section is not None and section.array
        self.alternative = section is not None and section.element is not None  # to template
        self.end = section.ends[0] if section and section.ends else ""
        self.read_section = _read(section)
        self._check_call()
        brackets = self._frame()
        self._derive_markers(tokens)
        self.shown = self._summary(brackets)

    def _check_call(self) -> None:
        """A `{call}` template stands alone in a JSON array section (not its alternative),
        with a registered `proof` and in a `JsonTurn`, and may in a section whose begin
        heads its calls (`framed`: MiniMax-M1's objects one a line,
        `blocks.json_calls.json_call_lines`); `NameKey` only in an array."""
        call, section = self.spec.call, self.spec.section
        alone, needs_alone = call.template == "{call}", self.array and not self.alternative
        needs_alone = needs_alone or bool(call.proof) or isinstance(self.spec.turn, JsonTurn)
        framed = section is not None and not (self.array or section.bare or call.proof)
        if (
            (needs_alone and not alone)
            or (alone and not (needs_alone or framed))
            or (isinstance(call.arguments, NameKey) and not self.array)
        ):
            raise UsageError(
                f"a call template of `{{call}}` alone in a section holding a JSON array "
                f"(NameKey only there), with a `proof`, in a JSON turn, or in a section "
                f"whose begin heads its calls, not {call.template!r}"
            )
        if alone and framed and call.between.strip():
            raise UsageError(
                f"`{{call}}` alone in a section whose begin heads the calls is read one call "
                f"a line: `between` is whitespace (a newline), not {call.between!r}"
            )
        if not self.opener and not (self.array or call.proof or framed or needs_alone):
            raise UsageError(
                f"Call.template {call.template!r} has no opener, no text before its first "
                "placeholder to tell a call from prose: begin it with the marker the model "
                "writes first (or read the calls as a JSON `array` section, or bare objects "
                "proven by a `proof`)"
            )
        if call.proof:
            PROOF_HOOKS[call.proof]  # a missing one is a `UsageError`
        unread = (
            call.loose or call.bare or (self._xml_layout() is not None and not self._wrapping())
        )
        if isinstance(call.name, Plain) and call.name.doubled and unread:
            raise UsageError(
                f"a `doubled` name is read in a call template's head or a wrapped XML call "
                f"(not `loose`, not `bare`), not {call.template!r}"
            )
        if call.other_closers:
            self._check_other_closers()
        if call.bare and self._xml_layout() is None:
            self._check_bare()
        if call.unclosed_value and self._xml_layout() is None:
            raise UsageError(
                f"`unclosed_value` needs a name right before XML arguments, not {call.template!r}"
            )

    def _check_other_closers(self) -> None:
        """`Call.other_closers` are other spellings of a closer the template has, read
        where it is read piece by piece or after XML arguments (not in a `loose` call, a
        JSON array, calls proven bare, Python calls or a `{call}` object)."""
        call = self.spec.call
        piecewise = not (
            call.loose
            or self.array
            or call.proof
            or call.optional
            or isinstance(call.arguments, (PythonKeywords, NameAndArguments, NameKey))
        )
        if (
            not self.closer
            or self.closer in call.other_closers
            or not (piecewise or self._xml_layout() is not None)
        ):
            raise UsageError(
                f"`other_closers` {call.other_closers} are other spellings of the closer of a "
                f"call template read piece by piece or with XML arguments, its last marker "
                f"after the arguments, not {call.template!r}"
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
        """Set the reserved markers of the section (a `sealed` one's `opener` too) and of a
        call (its tags, the codec's, an XML layout's or a loose template's) and the strays
        dropped in the content."""
        spec, call, section = self.spec, self.spec.call, self.spec.section
        self.section_markers = (
            tuple(m.strip() for m in (*section.begins, *section.ends)) if section else ()
        )
        if section is not None and section.sealed:  # a marker of its own (see `calls`)
            self.section_markers += (section.opener.strip(),)
        tags = tuple(token for token in tokens if not set(token) & set('"=('))  # not attributes
        if re.fullmatch(r"<[\w:-]+=", tokens[0]):  # `<function=NAME>`: the tag the name is in
            tags = (tokens[0], *(tag for tag in tags if tag != ">"))
        tags = () if isinstance(call.arguments, PythonKeywords) else tags  # `name(…)`: none
        self.markers = (*tags, *call.other_closers, *call.arguments.markers)
        layout = self._xml_layout()
        if layout is not None:
            self._check_xml(layout)
            self.markers = self._xml_markers()
        if call.loose:
            self.markers = self._templates[0].markers
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
        """The parser of the spec's calls for the declared `tools` (any name when None),
        with its `leading` bare call where `Call.bare` names one outside XML arguments, and
        `sealed` where its section is: its `opener` (in every spelling, after the section's
        lead or not) followed by none of the marker texts that begin with it (each whole: not
        followed by a letter, digit, `_` or `-`) is damaged."""
        calls, section = self._calls(tools), self.spec.section
        if self.spec.call.bare and self._xml_layout() is None:
            calls = replace(calls, leading=self._leading(tools))
        calls = self._read_only(calls, tools)
        if section is None or not section.sealed:
            return calls
        own = section.opener.strip()
        spellings = (own, *(own.replace(token, other) for token, other in self.spec.respelled))
        turn = self.spec.turn
        thinking = (turn.open, turn.close, *sum(turn.also, ())) if isinstance(turn, Think) else ()
        known = (*self.section_markers, *self.markers, *self.spec.stops, *thinking)
        texts = dict.fromkeys(m[len(own) :] for m in known if m.startswith(own) and m != own)
        rests = markers(*texts).skip(not_followed_by(regex(r"[\w-]")))
        begin = section.begins[0]
        lead = begin[: len(begin) - len(begin.lstrip())]
        openers = tuple(dict.fromkeys(spellings))
        damaged = seq(optional(literal(lead)), markers(*openers)) if lead else markers(*openers)
        led = tuple(lead + opener for opener in openers) if lead else ()
        head = damaged.skip(not_followed_by(rests))
        return sealed(calls, (*led, *openers), head, self.spec.stops)

    def _read_only(self, calls: Calls, tools: Tools | None) -> Calls:
        """`calls` with the section's read-only calls: a `method` call before them, raw
        `code` (of a declared tool) after them."""
        read, stops = self.read_section, self.spec.stops
        if read is None:
            return calls
        section = (read.begins, read.ends)
        if read.method:
            calls = _before(python_method_call(section, read.method, stops), calls)
        if read.code and tools and read.code[0] in tools:
            tool, key = read.code
            calls = _before(calls, code_call(section, tool, key, stops))
        return calls

    def _calls(self, tools: Tools | None) -> Calls:
        spec, section = self.spec, self.read_section
        codec = spec.call.arguments
        if isinstance(codec, PythonKeywords):
            return self._python(tools)
        if section is not None and self.array:
            element = section.element or codec
            assert isinstance(element, (NameAndArguments, NameKey))
            ends = section.ends
            resync = (*ends, *spec.stops, *(() if ends else section.begins))  # or a begin
            proof = PROOF_HOOKS[spec.call.proof].proof(tools) if spec.call.proof else None
            calls = json_call_list(
                section.begins, element.element(), resync, ends, proof, single=section.single
            )
            if section.element is None:
                return calls
            called = self._with_optional(tools, codec)
            heads, bodies = alt(calls.head, called.head), alt(calls.call, called.call)
            return in_runs(Calls(calls.openers, heads, bodies))
        if (
            section is not None
            and section.ends
            and spec.call.template == "{call}"
            and not (spec.call.proof)
        ):
            assert isinstance(codec, NameAndArguments)  # `Envelope` checked: a call codec
            return json_call_lines(
                section.begins, section.ends, spec.stops, seq(codec.head(), codec.body())
            )
        if spec.call.loose:
            return templates.any_of(self._templates, tools, stops=spec.stops)
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
        head, body = self._head(lead, tools), self._body(tools, codec)
        before = [piece for piece in self._split()[0] if not piece.isspace()]
        if before[-1] == "{name}" and isinstance(codec, (JsonObject, BareObject)):
            # a name right before `{` (whitespace aside) ends there: the head needs the `{`
            head = head.skip(peek(ws.then(literal("{"))))
        others = (self.opener, *spec.call.other_closers, *(section.ends if section else ()))
        resync = (self.closer, *(m for m in (*others, *spec.stops) if m))
        if section is None:
            calls = in_runs(tool_calls((self.opener,), head, body, resync))
        elif section.opens_at == "marker":
            begin = markers(*section.begins)
            begin = begin.skip(peek(ws.then(markers(self.opener, *section.ends))))
            call = unfinished(tool_call(head, body, resync))
            calls = Calls(section.begins, begin, call_section(begin, call, section.ends))
        else:
            calls = self._section(section, lead, head, body, resync)
        return calls

    @functools.cached_property
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
            section.bare_ends_reasoning,
        )
        return (template, *(template.respelled(token, other) for token, other in spec.respelled))

    def _python(self, tools: Tools | None) -> Calls:
        spec, section = self.spec, self.read_section
        if section is not None and spec.call.between == "\n":
            return python_call_lines(spec.stops, (section.begins, section.ends))
        spellings = (section.begins, section.ends) if section else None
        return python_call_list(
            tools, spec.stops, section=spellings, bare=section is None or section.bare
        )


def _before(first: Calls, then: Calls) -> Calls:
    """The calls of `first`, or where none heads one, those of `then` (with the leading
    call of either: at most one has one)."""
    return Calls(
        tuple(dict.fromkeys((*first.openers, *then.openers))),
        alt(first.head, then.head),
        alt(first.call, then.call),
        first.leading or then.leading,
    )


def _read(section: Section | None) -> Section | None:
    """`section` as it is read: the whitespace after a begin and before an end is read as
    any whitespace or none (a section's calls may follow it), so a begin written
    `<calls>\n` opens at `<calls>` too, and one cut off right after `<calls>` is a
    truncated call, not content."""
    if section is None:
        return None
    begins = tuple(dict.fromkeys(begin.rstrip() for begin in section.begins))
    ends = tuple(dict.fromkeys(end.lstrip() for end in section.ends))
    return replace(section, begins=begins, ends=ends)
