"""gpt-oss / OpenAI Harmony (FORMATS.md §6.5): messages with channels, in their text form.

<|channel|>analysis<|message|>R<|end|><|start|>assistant<|channel|>commentary<|message|>C<|end|>
<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>
<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>{…}<|call|>
<|start|>assistant<|channel|>final<|message|>C<|return|>

- The prompt `<|start|>assistant` leaves the first header open: the output starts with its
  channel, or with a recipient (` to=…`) before it. Later messages start `<|start|>assistant`
  (a missing one is tolerated before `<|channel|>`). Prompts ending with an analysis or final
  header (`…<|channel|>analysis<|message|>`) pre-open that channel.
- analysis is reasoning; commentary and final are content (commentary without a recipient is
  a visible preamble). Inside analysis, `<|message|>`, `<|constrain|>` and a `<|channel|>`
  that begins no channel header are quoted text of the reasoning. A body runs to `<|end|>`
  (consumed) or, missing that, to any other special token; `<|return|>` and `<|call|>` end
  the turn and are never content.
- A header with a recipient, in the role or the channel part, on any channel, is a call to
  the recipient without its `functions.` prefix; the name is final once the character after
  it arrives. Its body is the JSON arguments object (the content type, ` json`, ` code` or
  ` <|constrain|>json`, is optional); the call is complete when the object closes.
- A recipient without `functions.` is a built-in tool, called by its own name
  (`browser.search`, `browser.open`, `browser.find`, `container.exec`: JSON bodies), which
  the session checks against the declared tools like any other (an undeclared one is an
  `unknown_tool` error, never content of its own). `python`'s body is the code itself: the
  call's arguments are `{"code": CODE}`, complete once `<|call|>` follows it.
- The stray prefix `<|channel|>commentary` (optionally ` to=assistant`) directly before
  another `<|channel|>` is dropped, as is a stray `<|end|>`. Any other malformed header — a
  role other than assistant, an unknown channel, a missing `<|message|>`, a `<|message|>` or
  `<|constrain|>` outside a header — is a protocol error whose region runs to the next
  `<|start|>`, `<|end|>` (consumed) or end-of-turn token. Text outside messages is content.
- Bodies stream as they arrive, holding back a tail that may begin a special token. At end
  of input an open body is kept as it is; a header or call cut off is a truncated error.

The turn is a `Messages` hook: its parser (`grammar`), its renderer (`render`) and its
grammar for constrained decoding (`export`, the written form only) all stand here, over the
one set of markers and the one table of messages (`MESSAGES`) above.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .. import ast
from ..blocks.names import arguments, bounded_name, long_name_commits, tool_name
from ..blocks.turns import ToolUse, Turn
from ..combinators import (
    Parser,
    Synthesised,
    UsageError,
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
from ..compile.factory import build
from ..grammar import ir
from ..grammar.walk import Walk
from ..grammar.walk import register_turn as register_grammar
from ..spec import Call, Channel, Messages, Spec, TurnHook, register_turn
from ..tools import Tools
from ..values import (
    json_object,
)

START, CHANNEL, MESSAGE, END = "<|start|>", "<|channel|>", "<|message|>", "<|end|>"
RETURN, CALL, CONSTRAIN = "<|return|>", "<|call|>", "<|constrain|>"
TOKENS = (START, CHANNEL, MESSAGE, END, RETURN, CALL, CONSTRAIN)
MESSAGES = {
    "commentary": (ast.CONTENT, END),
    "analysis": (ast.REASONING, END),
    "final": (ast.CONTENT, RETURN),
}
"""The channels a message is in, each with what its body is and the token that ends it as
written (a final answer ends the turn): the parser, the renderer and the grammar read them."""
NODES = {channel: node for channel, (node, _) in MESSAGES.items()}
TO_FUNCTION = " to=functions."  # a recipient that is a declared function
CONTENT_TYPES = ((f" {CONSTRAIN}", "json"), (" ", "json"))
"""A call header's content type as written, its introducer and its kind (the renderer writes
the first; the chat template renders both). The parser reads any kind after either
introducer (whitespace before `<|constrain|>`, any run of whitespace for the space), or no
content type."""
OPENED = {"reasoning": "analysis", "content": "final"}
PROMPT = START + "assistant"
PYTHON = "python"  # the built-in tool whose message is code, not JSON


def body(channel: str) -> Parser[Any]:
    """A message body, up to a special token; in analysis, a `<|message|>` or `<|constrain|>`
    (which begin nothing outside a header) and a `<|channel|>` that begins no channel header
    are quoted text of the reasoning."""
    if channel != "analysis":
        return tag(NODES[channel], until(*TOKENS)).skip(optional(literal(END)))
    header = seq(literal(CHANNEL), markers(*NODES))
    quoted = alt(
        as_text(markers(MESSAGE, CONSTRAIN)),
        seq(not_followed_by(header, "text"), as_text(literal(CHANNEL))),
    )
    text = many(alt(until(*TOKENS, nonempty=True, commit=True), quoted))
    return tag(NODES[channel], text).skip(optional(literal(END)))


def code() -> Parser[Any]:
    """The `python` tool's message: the code itself, up to `<|call|>`, given as the arguments
    `{"code": …}` once the call ends (no streamed pieces: they could not be final)."""
    text = until(*TOKENS, emit=False, required=True).skip(peek(literal(CALL)))

    def given(code: str) -> Parser[Any]:
        return Synthesised(json.dumps({"code": code}, ensure_ascii=False)).result({"code": code})

    return arguments(text.bind(given))


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    name = tool_name(bounded_name(r"[^\s<]", "a recipient"))
    json_body, code_body = ws.then(arguments(json_object())), code()
    function = literal(TO_FUNCTION).then(name).map(lambda to: (to, json_body))
    built_in = (
        literal(" to=").then(name).map(lambda to: (to, code_body if to == PYTHON else json_body))
    )
    recipient = long_name_commits(alt(function, built_in)).skip(cut)
    kind = regex(r"[\w-]+").desc("a content type")
    opened = ws.then(literal(MESSAGE))
    introducers = dict.fromkeys(introducer for introducer, _ in CONTENT_TYPES)
    header_end = alt(opened, *(seq(_introducer(i), kind, opened) for i in introducers))
    channel, channel_rest = markers(*NODES), forward()
    stray = seq(literal("commentary"), optional(literal(" to=assistant")), literal(CHANNEL))

    def after(chosen: str) -> Parser[Any]:
        call = recipient.bind(lambda to: header_end.then(to[1]))
        return alt(tag(ast.TOOL_CALL, call), header_end.then(body(chosen)))

    channel_rest.define(alt(stray.then(channel_rest), channel.bind(after)))
    in_role = recipient.bind(lambda to: seq(literal(CHANNEL), channel, header_end, to[1]))
    role_call = tag(ast.TOOL_CALL, in_role)
    role = literal("assistant").then(alt(role_call, literal(CHANNEL).then(channel_rest)))
    message = alt(
        seq(literal(START), cut, role),
        seq(literal(CHANNEL), cut, channel_rest),
        seq(peek(markers(MESSAGE, CONSTRAIN)), cut, fail("a message header before it")),
    )
    skip = until(START, END, RETURN, CALL, emit=False).skip(optional(literal(END)))
    stop, end = tag(ast.END_OF_TURN, markers(RETURN, CALL)), literal(END)
    segment = alt(
        stop,
        end,
        recover(message, skip, rivals=(stop, end)),  # a loop of failing headers: one error
        tag(ast.CONTENT, until(*TOKENS, nonempty=True, commit=True)),
    )
    lead = body(OPENED[start]) if start else optional(unfinished(recover(role_call, skip)))
    return seq(lead, skip_many(segment), end_of_input)


def _introducer(written: str) -> Parser[Any]:
    """A content type's introducer as the parser reads it: a token with any whitespace
    before it, or, for whitespace alone, any run of whitespace."""
    token = written.strip()
    return seq(ws, literal(token)) if token else regex(r"\s+").desc("whitespace")


def call_header(recipient_in_role: bool, content_type: tuple[str, str]) -> str:
    """A call's message header as written, from the role's end (after `<|start|>assistant`)
    to its `<|message|>`, `{name}` standing for the function: the recipient in the channel
    part (as the renderer writes it) or in the role part (as the chat template renders a
    call), with a content type of `CONTENT_TYPES`. The parser reads both places."""
    to, channel = f"{TO_FUNCTION}{{name}}", f"{CHANNEL}commentary"
    placed = f"{to}{channel}" if recipient_in_role else f"{channel}{to}"
    return f"{placed}{''.join(content_type)}{MESSAGE}"


def render(turn: Turn, start: str | None, call: Callable[[ToolUse, int], str]) -> str:
    """One message per part, after the pre-opened body when `start` is set: reasoning as
    analysis, content before a call as a commentary preamble and the last content as final,
    each call written by `call` (commentary with the recipient in the channel header)."""
    messages = []
    groups = list(turn.groups())
    if start is not None:
        opened = start == "content" and groups and isinstance(groups[0], str)
        first = groups.pop(0) if opened else turn.reasoning or "" if start == "reasoning" else ""
        messages.append(f"{first}{END}")
    elif turn.reasoning is not None:
        messages.append(f"{CHANNEL}analysis{MESSAGE}{turn.reasoning}{MESSAGES['analysis'][1]}")
    for number, group in enumerate(groups, 1):
        if isinstance(group, str):
            last = number == len(groups)
            channel = "final" if last else "commentary"
            messages.append(f"{CHANNEL}{channel}{MESSAGE}{group}{MESSAGES[channel][1]}")
            continue
        messages += [call(use, index) for index, use in enumerate(group)]
    text = PROMPT.join(messages)
    return text if text.endswith((RETURN, CALL)) else text + RETURN


register_turn("harmony", TurnHook(grammar, render))


def export(walk: Walk, messages: Messages) -> ir.Node:
    """The turn as a grammar for constrained decoding, as `render` writes it: messages joined
    by `<|start|>assistant`, each reasoning (analysis, ending `<|end|>`), a commentary
    preamble (`<|end|>`), a call (ending `<|call|>`) or the final answer (ending
    `<|return|>`, the end of the turn); a turn that ends otherwise (or has no message) ends
    with `<|return|>`. A call names its recipient in the channel, as the spec's template
    writes it, or in the role header, as the chat template renders a call (`call_header`,
    each with every one of `CONTENT_TYPES`). A generation prompt that opened a channel
    leaves its first message's body open; its calls as `walk.options` allow."""
    options, text = walk.options, walk.text
    opened = {channel.name: channel for channel in messages.channels}
    if walk.start == "reasoning" and not options.reasoning:
        raise UsageError("reasoning=False, but the generation prompt opened the analysis channel")
    channels = [
        name
        for name, (node, end) in MESSAGES.items()
        if end == END and (options.reasoning or node != ast.REASONING)
    ]
    other = ir.alt(
        *(ir.seq(text(f"{CHANNEL}{name}{MESSAGE}"), ir.FREE, text(END)) for name in channels)
    )
    final = ir.seq(text(opened["content"].open), ir.FREE, text(MESSAGES["final"][1]))
    ending = ir.alt(final, ir.seq(other, text(RETURN)))
    after = text(PROMPT)
    gap = ir.Star(ir.seq(other, after))
    rest = ir.alt(ir.seq(gap, ending), text(RETURN))  # `<|return|>` alone: an empty turn
    if walk.tools:
        in_channel, in_header = (
            ir.alt(
                *(
                    walk.pieces(call_header(in_role, kind) + "{arguments}" + CALL, tool)
                    for tool in walk.tools
                    for kind in CONTENT_TYPES
                )
            )
            for in_role in (False, True)
        )
        calls = ir.alt(in_channel, in_header)
        call = walk.grammar.rule("call", ir.seq(gap, calls))
        more = ir.Star(ir.seq(after, call)) if options.parallel else ir.Lit("")
        with_calls = ir.seq(call, more, ir.Opt(ir.seq(after, rest)))
        if walk.lazy:  # from the first call's opener (either trigger) on
            split = [ir.head(spelling) for spelling in (in_channel, in_header)]
            walk.triggers = tuple(trigger for trigger, _ in split)
            first = ir.alt(
                *(ir.seq(ir.Lit(trigger), after_trigger) for trigger, after_trigger in split)
            )
            return ir.seq(first, more, ir.Opt(ir.seq(after, rest)))
        rest = with_calls if options.tool_choice != "auto" else ir.alt(with_calls, rest)
    if walk.start is None:
        return rest
    # the prompt opened the first message: its body, then the rest of the turn
    then = ir.seq(after, rest)
    if options.tool_choice == "auto" or not walk.tools:
        then = ir.alt(text(RETURN), then)
    return ir.seq(ir.FREE, text(END), then)


register_grammar("harmony", export)
SPEC = Spec(
    name="gpt-oss",
    summary="gpt-oss / Harmony: channels analysis, commentary (to=functions.NAME), final",
    turn=Messages(
        "harmony",
        channels=(
            Channel("reasoning", f"{CHANNEL}analysis{MESSAGE}", END),
            Channel("content", f"{CHANNEL}final{MESSAGE}", END),
        ),
        tokens=TOKENS,
    ),
    call=Call(call_header(False, CONTENT_TYPES[0]) + "{arguments}" + CALL),
    stops=(RETURN, CALL),
    prompt=PROMPT,
    malformed_as_content=False,
)
FORMAT = build(SPEC)
