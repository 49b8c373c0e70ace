"""The parser and the renderer of a turn of headed messages (`spec.Messages`: Harmony)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from .. import ast
from ..blocks.names import arguments, bounded_name, long_name_commits, tool_name
from ..blocks.turns import ToolUse, Turn
from ..combinators import (
    Parser,
    Synthesised,
    alt,
    as_text,
    cut,
    end_of_input,
    fail,
    forward,
    literal,
    many,
    markers,
    not_followed_by,
    optional,
    peek,
    recover,
    regex,
    seq,
    skip_many,
    tag,
    unfinished,
    until,
)
from ..combinators import whitespace as ws
from ..spec.parts import Messages, Spec
from ..tools import Tools
from ..values import json_object


class Headed:
    """A `Messages` turn's parser and renderer, from its spec: the role after `start`, the
    call's close (after the template's `{arguments}`), the tokens of the content types'
    introducers."""

    def __init__(self, spec: Spec, turn: Messages) -> None:
        self.spec, self.turn = spec, turn
        self.role = spec.prompt.removeprefix(turn.start)
        self.call_close = spec.call.template.rpartition("{arguments}")[2]
        self.nodes = {name: node for name, node, _ in turn.bodies}
        self.tokens = turn.tokens(spec.stops)
        self.type_tokens = tuple(t.strip() for t, _ in turn.types if t.strip())

    def body(self, name: str) -> Parser[Any]:
        """A message body, up to a token; in a reasoning body, the header's `message` and
        the content types' tokens (which begin nothing outside a header) and a `channel`
        that begins no header are quoted text of the reasoning."""
        turn, node = self.turn, self.nodes[name]
        if node != ast.REASONING:
            return tag(node, until(*self.tokens)).skip(optional(literal(turn.end)))
        header = seq(literal(turn.channel), markers(*self.nodes))
        quoted = alt(
            as_text(markers(turn.message, *self.type_tokens)),
            seq(not_followed_by(header, "text"), as_text(literal(turn.channel))),
        )
        text = many(alt(until(*self.tokens, nonempty=True, commit=True), quoted))
        return tag(node, text).skip(optional(literal(turn.end)))

    def code(self) -> Parser[Any]:
        """A `code` tool's message: the code itself, up to the call's close, given as the
        arguments `{"code": …}` once the call ends (no streamed pieces: they could not be
        final)."""
        text = until(*self.tokens, emit=False, required=True)
        text = text.skip(peek(literal(self.call_close)))

        def given(code: str) -> Parser[Any]:
            payload = json.dumps({"code": code}, ensure_ascii=False)
            return Synthesised(payload).result({"code": code})

        return arguments(text.bind(given))

    def grammar(self, tools: Tools | None, start: str | None) -> Parser[Any]:
        """The turn's parser, the body of the channel `start` opens first where the prompt
        opened one (a call's name is checked against `tools` by the session). At end of
        input an open body is kept as it is; a header or a call cut off is truncated."""
        turn, stops = self.turn, self.spec.stops
        boundary = "".join(sorted({token[0] for token in self.tokens}))
        name = tool_name(bounded_name(rf"[^\s{re.escape(boundary)}]", "a recipient"))
        json_body, code_body = ws.then(arguments(json_object())), self.code()
        bodies = dict.fromkeys(turn.code, code_body)  # the built-in tools taking code
        function = literal(turn.to + turn.functions).then(name).map(lambda to: (to, json_body))
        built_in = literal(turn.to).then(name).map(lambda to: (to, bodies.get(to, json_body)))
        recipient = long_name_commits(alt(function, built_in) if turn.functions else built_in)
        recipient = recipient.skip(cut)
        kind = regex(r"[\w-]+").desc("a content type")
        opened = ws.then(literal(turn.message))
        introducers = dict.fromkeys(introducer for introducer, _ in turn.types)
        header_end = alt(opened, *(seq(_introducer(i), kind, opened) for i in introducers))
        channel, channel_rest = markers(*self.nodes), forward()

        def after(chosen: str) -> Parser[Any]:
            call = recipient.bind(lambda to: header_end.then(to[1]))
            return alt(tag(ast.TOOL_CALL, call), header_end.then(self.body(chosen)))

        named = channel.bind(after)
        if turn.dropped:  # a stray channel part, then the channel again
            to_role = optional(literal(turn.to + self.role))
            stray = seq(markers(*turn.dropped), to_role, literal(turn.channel))
            named = alt(stray.then(channel_rest), named)
        channel_rest.define(named)
        in_role = recipient.bind(lambda to: seq(literal(turn.channel), channel, header_end, to[1]))
        role_call = tag(ast.TOOL_CALL, in_role)
        role = literal(self.role).then(alt(role_call, literal(turn.channel).then(channel_rest)))
        message = alt(
            seq(literal(turn.start), cut, role),
            seq(literal(turn.channel), cut, channel_rest),
            seq(
                peek(markers(turn.message, *self.type_tokens)),
                cut,
                fail("a message header before it"),
            ),
        )
        skip = until(turn.start, turn.end, *stops, emit=False).skip(optional(literal(turn.end)))
        stop, end = tag(ast.END_OF_TURN, markers(*stops)), literal(turn.end)
        segment = alt(
            stop,
            end,
            recover(message, skip, rivals=(stop, end)),  # a loop of failing headers: one error
            tag(ast.CONTENT, until(*self.tokens, nonempty=True, commit=True)),
        )
        if start:
            lead = self.body(turn.opened(start))
        else:
            lead = optional(unfinished(recover(role_call, skip)))
        return seq(lead, skip_many(segment), end_of_input)

    def render(self, turn: Turn, start: str | None, call: Callable[[ToolUse, int], str]) -> str:
        """One message per part, after the pre-opened body when `start` is set: reasoning in
        the channel the reasoning start state opens, content before a call in the other
        channel a message closes with `end` (a preamble) and the last content in the
        content start state's channel, each call written by `call` (the spec's template);
        the turn ends with the first stop where no message or call ended it."""
        spelled = self.turn
        messages = []
        groups = list(turn.groups())
        if start == "content" and groups and isinstance(groups[0], str):
            messages.append(f"{groups.pop(0)}{spelled.end}")
        elif start is not None:
            messages.append(f"{turn.reasoning or '' if start == 'reasoning' else ''}{spelled.end}")
        elif turn.reasoning is not None:
            messages.append(self._message(spelled.opened("reasoning"), turn.reasoning))
        answer, preamble = spelled.opened("content"), spelled.named(ast.CONTENT, closed=True)
        for number, group in enumerate(groups, 1):
            if isinstance(group, str):
                messages.append(self._message(answer if number == len(groups) else preamble, group))
                continue
            messages += [call(use, index) for index, use in enumerate(group)]
        text, stops = self.spec.prompt.join(messages), self.spec.stops
        return text if text.endswith((*stops, self.call_close)) else text + stops[0]

    def _message(self, name: str, body: str) -> str:
        turn = self.turn
        return f"{turn.channel}{name}{turn.message}{body}{turn.close(name)}"


def _introducer(written: str) -> Parser[Any]:
    """A content type's introducer as the parser reads it: a token with any whitespace
    before it, or, for whitespace alone, any run of whitespace."""
    token = written.strip()
    return seq(ws, literal(token)) if token else regex(r"\s+").desc("whitespace")
