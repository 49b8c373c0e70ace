"""MeetKai Functionary v3.2: messages headed by their recipient, `>>>NAME\\n`.

>>>all\\ncontent>>>NAME\\n{…}>>>NAME\\n{…}<|eot_id|>

- llama.cpp's functionary v3.2 handler and the model's template: `>>>all\\n` heads the
  visible text (dropped where it stands), `>>>NAME\\n` a call whose arguments are a JSON
  object; calls follow each other with nothing between. A header is a call only once the
  object's `{` follows it, so `>>>all` is never a call to a tool named `all`.
- Llama 3 headers: the prompt is `<|start_header_id|>assistant<|end_header_id|>\\n\\n`,
  `<|eot_id|>` ends the turn. The model's template ends its generation prompt with the
  first header's `>>>` (`primed`): the output then begins with the recipient.
"""

from __future__ import annotations

from ..compile.factory import build
from ..spec import Call, Spec

SPEC = Spec(
    name="functionary-v3.2",
    summary="Functionary v3.2: >>>NAME\\n{…} calls, >>>all\\n text",
    turn=None,
    call=Call(">>>{name}\n{arguments}"),
    stops=("<|eot_id|>",),
    dropped=(">>>all\n",),
    prompt="<|start_header_id|>assistant<|end_header_id|>\n\n",
    primed=(">>>",),
)
FORMAT = build(SPEC)
