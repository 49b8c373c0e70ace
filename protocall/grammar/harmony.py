"""The grammar of gpt-oss's Harmony turn (the `Messages` hook `harmony`), as its renderer
writes it: messages joined by `<|start|>assistant`, each reasoning (analysis, ending
`<|end|>`), a commentary preamble (`<|end|>`), a call (ending `<|call|>`) or the final
answer (ending `<|return|>`, the end of the turn); a turn that ends otherwise (or has no
message) ends with `<|return|>`. A call names its recipient in the channel, as the spec's
template writes it, or in the role header, as the chat template renders a call
(`<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>…`, `json` or
`<|constrain|>json`). A generation prompt that opened a channel leaves its first message's
body open."""

from __future__ import annotations

from ..combinators import UsageError
from ..formats.gpt_oss import CALL, CHANNEL, CONSTRAIN, END, MESSAGE, PROMPT, RETURN
from ..spec import Messages
from .ir import FREE, Lit, Node, Opt, Star, alt, head, seq
from .walk import Walk, register_turn

HEADER = f" to=functions.{{name}}{CHANNEL}commentary {{json}}{MESSAGE}{{arguments}}{CALL}"
"""A call with its recipient in the role header, after `<|start|>assistant`, as the chat
template renders one (`{json}`: `json` or `<|constrain|>json`)."""


def turn(walk: Walk, messages: Messages) -> Node:
    """A turn of messages, its calls as `walk.options` allow (see the module docstring)."""
    options, text = walk.options, walk.text
    opened = {channel.name: channel for channel in messages.channels}
    if walk.start == "reasoning" and not options.reasoning:
        raise UsageError("reasoning=False, but the generation prompt opened the analysis channel")
    channels = ["commentary", *(["analysis"] if options.reasoning else [])]
    other = alt(*(seq(text(f"{CHANNEL}{name}{MESSAGE}"), FREE, text(END)) for name in channels))
    final = seq(text(opened["content"].open), FREE, text(RETURN))
    ending = alt(final, seq(other, text(RETURN)))
    after = text(PROMPT)
    gap = Star(seq(other, after))
    rest = alt(seq(gap, ending), text(RETURN))  # `<|return|>` alone: an empty turn
    if walk.tools:
        in_channel = alt(*(walk.call(tool, 0) for tool in walk.tools))
        headers = [HEADER.replace("{json}", json) for json in ("json", f"{CONSTRAIN}json")]
        in_header = alt(*(walk.pieces(h, tool) for tool in walk.tools for h in headers))
        calls = alt(in_channel, in_header)
        call = walk.grammar.rule("call", seq(gap, calls))
        more = Star(seq(after, call)) if options.parallel else Lit("")
        with_calls = seq(call, more, Opt(seq(after, rest)))
        if walk.lazy:  # from the first call's opener (either trigger) on
            split = [head(spelling) for spelling in (in_channel, in_header)]
            walk.triggers = tuple(trigger for trigger, _ in split)
            first = alt(*(seq(Lit(trigger), body) for trigger, body in split))
            return seq(first, more, Opt(seq(after, rest)))
        rest = with_calls if options.tool_choice != "auto" else alt(with_calls, rest)
    if walk.start is None:
        return rest
    # the prompt opened the first message: its body, then the rest of the turn
    then = seq(after, rest)
    if options.tool_choice == "auto" or not walk.tools:
        then = alt(text(RETURN), then)
    return seq(FREE, text(END), then)


register_turn("harmony", turn)
