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
  a visible preamble). A body runs to `<|end|>` (consumed) or, missing that, to any other
  special token; `<|return|>` and `<|call|>` end the turn and are never content.
- A header with a recipient, in the role or the channel part, on any channel, is a call to
  the recipient without its `functions.` prefix; the name is final once the character after
  it arrives. Its body is the JSON arguments object (the content type, ` json` or
  ` <|constrain|>json`, is optional); the call is complete when the object closes.
- The stray prefix `<|channel|>commentary` (optionally ` to=assistant`) directly before
  another `<|channel|>` is dropped, as is a stray `<|end|>`. Any other malformed header — a
  role other than assistant, an unknown channel, a missing `<|message|>`, a `<|message|>` or
  `<|constrain|>` outside a header — is a protocol error whose region runs to the next
  `<|start|>`, `<|end|>` (consumed) or end-of-turn token. Text outside messages is content.
- Bodies stream as they arrive, holding back a tail that may begin a special token. At end
  of input an open body is kept as it is; a header or call cut off is a truncated error.
"""

from __future__ import annotations

import json
from typing import Any

from .. import ast
from ..combinators import (
    Parser,
    alt,
    cut,
    end_of_input,
    fail,
    forward,
    json_object,
    literal,
    many,
    optional,
    peek,
    recover,
    regex,
    seq,
    tag,
    until,
)
from ..combinators import whitespace as ws
from ..tools import Tools
from .base import Format
from .blocks import arguments, markers, tool_name, unfinished
from .turns import Turn

START, CHANNEL, MESSAGE, END = "<|start|>", "<|channel|>", "<|message|>", "<|end|>"
RETURN, CALL, CONSTRAIN = "<|return|>", "<|call|>", "<|constrain|>"
TOKENS = (START, CHANNEL, MESSAGE, END, RETURN, CALL, CONSTRAIN)
NODES = {"analysis": ast.REASONING, "commentary": ast.CONTENT, "final": ast.CONTENT}
OPENED = {"reasoning": "analysis", "content": "final"}
PROMPT = START + "assistant"


def body(channel: str) -> Parser[Any]:
    return tag(NODES[channel], until(*TOKENS)).skip(optional(literal(END)))


def grammar(tools: Tools | None, start: str | None) -> Parser[Any]:
    name = regex(r"[^\s<]+").desc("a recipient").map(lambda to: to.removeprefix("functions."))
    recipient = seq(literal(" to="), tool_name(name), cut)
    kind = regex(r"[\w-]+").desc("a content type")
    opened = ws.then(literal(MESSAGE))
    header_end = alt(opened, seq(ws, literal(CONSTRAIN), kind, opened),
                     seq(regex(r"\s+"), kind, opened))  # fmt: skip
    call_body = seq(header_end, ws, arguments(json_object()))
    channel, channel_rest = markers(*NODES), forward()
    stray = seq(literal("commentary"), optional(literal(" to=assistant")), literal(CHANNEL))

    def after(chosen: str) -> Parser[Any]:
        return alt(tag(ast.TOOL_CALL, recipient.then(call_body)), header_end.then(body(chosen)))

    channel_rest.define(alt(stray.then(channel_rest), channel.bind(after)))
    role_call = tag(ast.TOOL_CALL, seq(recipient, literal(CHANNEL), channel, call_body))
    role = literal("assistant").then(alt(role_call, literal(CHANNEL).then(channel_rest)))
    message = alt(
        seq(literal(START), cut, role),
        seq(literal(CHANNEL), cut, channel_rest),
        seq(peek(markers(MESSAGE, CONSTRAIN)), cut, fail("a message header before it")),
    )
    skip = until(START, END, RETURN, CALL, emit=False).skip(optional(literal(END)))
    segment = alt(tag(ast.END_OF_TURN, markers(RETURN, CALL)), literal(END), recover(message, skip),
                  tag(ast.CONTENT, until(*TOKENS, nonempty=True, commit=True)))  # fmt: skip
    lead = body(OPENED[start]) if start else optional(unfinished(recover(role_call, skip)))
    return seq(lead, many(segment), end_of_input)


def render(turn: Turn, start: str | None) -> str:
    """One message per part, after the pre-opened body when `start` is set: reasoning as
    analysis, content before a call as a commentary preamble and the last content as final,
    each call as commentary with the recipient in the channel header."""
    messages = []
    groups = list(turn.groups())
    if start is not None:
        opened = start == "content" and groups and isinstance(groups[0], str)
        first = groups.pop(0) if opened else turn.reasoning or "" if start == "reasoning" else ""
        messages.append(f"{first}{END}")
    elif turn.reasoning is not None:
        messages.append(f"{CHANNEL}analysis{MESSAGE}{turn.reasoning}{END}")
    for number, group in enumerate(groups, 1):
        if isinstance(group, str):
            last = number == len(groups)
            channel, stop = ("final", RETURN) if last else ("commentary", END)
            messages.append(f"{CHANNEL}{channel}{MESSAGE}{group}{stop}")
            continue
        messages += [f"{CHANNEL}commentary to=functions.{use.name} {CONSTRAIN}json{MESSAGE}"
                     f"{json.dumps(use.arguments, ensure_ascii=False)}{CALL}"
                     for use in group]  # fmt: skip
    text = PROMPT.join(messages)
    return text if text.endswith((RETURN, CALL)) else text + RETURN


FORMAT = Format(
    "gpt-oss",
    grammar,
    render,
    reserved=TOKENS,
    channels={"reasoning": (f"{CHANNEL}analysis{MESSAGE}", END),
              "content": (f"{CHANNEL}final{MESSAGE}", END)},
    default_start=None,
    prompts={None: PROMPT, **{name: f"{PROMPT}{CHANNEL}{channel}{MESSAGE}"
                              for name, channel in OPENED.items()}},
    summary="gpt-oss / Harmony: channels analysis, commentary (to=functions.NAME), final",
    markers={"reasoning": "<|channel|>analysis<|message|>…<|end|>",
             "call": "<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}"},
)  # fmt: skip
