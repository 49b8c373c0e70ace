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

The turn is `Messages` data: its parser and renderer (`compile.messages`) and its grammar
for constrained decoding (the written form only, `grammar.walk`) are derived from it.
"""

from __future__ import annotations

from .. import ast
from ..compile.factory import build
from ..spec import Call, Messages, Spec

START, CHANNEL, MESSAGE, END = "<|start|>", "<|channel|>", "<|message|>", "<|end|>"
RETURN, CALL, CONSTRAIN = "<|return|>", "<|call|>", "<|constrain|>"
SPEC = Spec(
    name="gpt-oss",
    summary="gpt-oss / Harmony: channels analysis, commentary (to=functions.NAME), final",
    turn=Messages(
        bodies=(
            ("commentary", ast.CONTENT, END),
            ("analysis", ast.REASONING, END),
            ("final", ast.CONTENT, RETURN),  # the answer ends the turn
        ),
        start=START,
        channel=CHANNEL,
        message=MESSAGE,
        end=END,
        to=" to=",
        functions="functions.",
        types=((f" {CONSTRAIN}", "json"), (" ", "json")),
        code=("python",),
        dropped=("commentary",),
    ),
    call=Call(
        f"{CHANNEL}commentary to=functions.{{name}} {CONSTRAIN}json{MESSAGE}{{arguments}}{CALL}"
    ),
    stops=(RETURN, CALL),
    prompt=f"{START}assistant",
    malformed_as_content=False,
)
FORMAT = build(SPEC)
