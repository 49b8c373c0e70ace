"""A format is data: a `Spec` states a family's markers once,
`protocall.compile.factory.build(spec)` makes its `Format`.

A spec is a tree of frozen dataclasses, plain data that `to_data`/`to_json` print and
`from_data`/`from_json` read back (so code can build one at run time):

- `turn`: the turn's shape. `Think(open, close, …)`: a reasoning block, then content and
  calls in any order (`blocks.prose.assistant_turn`); `Channels(channels, tokens)`: channels
  over special tokens, text outside them content (`blocks.channels.channelled_turn`), those named
  in `starts` the ones a prompt can leave open, written `interleaved` (each content part
  in a channel of its own, each run of calls in a section, in the turn's order) or not,
  every channel and call headed by its `header` where it has one (Inkling's
  `<|message_model|>`, a call's header carrying its name as `label` writes it, dropped with
  its label when read; a channel opener that begins with the header is a message header
  whose label names the channel, so the label decides reasoning, content or a call: Muse's
  recipients), a `Channel`'s `also` other openers read as its own;
  `Messages(bodies, start, channel, message, end, to, …)`: headed messages whose channel,
  named in each header, says what the body is, a recipient in the header making it a call
  (gpt-oss's Harmony); `JsonTurn(content,
  calls, single)`: the turn is one JSON object, the string under `content` the answer
  (streamed decoded), the calls in an array under `calls` or alone under `single`, each
  the `{call}` codec's object, the object their envelope (`blocks.json_turn`); `None`:
  content and calls only.
- `stops`: the end-of-turn markers (the first, or all joined for channels not
  `interleaved`, is written; none: the turn runs to the end of the output).
- `call`: one call as a template, `Call(template, arguments, name, spaced, between)`. The
  template is the call as the model writes it with placeholders: `{name}` (written as the
  `name` encoding says: `Plain`, its `prefix` optional when read, a `doubled`
  `N.N` read as a declared `N`, `Attribute`), `{id}`
  (an `IdName`, an id that carries the name; with another name, the call id, a token of
  `id_pattern`, written as the call's id or else its position), `{index}` (the call's
  position), `{arguments}` (an argument codec: `JsonObject`, `XmlArguments`,
  `PythonKeywords`, `BareObject`) or `{call}` (a codec that carries the name too:
  `NameAndArguments`, the name and arguments in an object of their own `within` an outer
  one for OpenAI's `{"id", "type", "function": {"name", "arguments"}}`). Everything
  before `{arguments}` (or `{call}`) is the call's head,
  what proves a call has begun (a name right before JSON or `BareObject` arguments is
  proven by their `{`); its first token is the call's opener, its last the closer.
  Whitespace in the template is any whitespace, or none, when read, and whitespace is
  allowed around the arguments; `spaced` allows it between every two pieces too.
  `optional` pieces of the template, right before JSON arguments, may be missing: the
  head then ends at the first and is proven by the first token of any or the arguments'
  `{`; a piece holding `{id}` is written only for a call with an id (Mistral's
  `[CALL_ID]{id}`, `[ARGS]`), and the call has no closer (a failed one resumes at the
  next opener or a stop). Between a `Plain` name and XML arguments, `optional` pieces of
  the text that ends the name may be missing there (Beam's ` <|constrain|>xml`); always
  written.
  `other_closers` are other spellings of the call's closer (its last marker, after the
  arguments), each closing a call as it does (Beam's `<|end|>` for `<|call|>`): read in a
  template read piece by piece or with XML arguments (for those, the layout's
  `other_ends`), never written (the renderer and the grammar write the template's).
  With `closer_proves`, the call's closer where the head's last marker should stand
  (`<|tool_call_begin|>ID<|tool_call_end|>`) proves a call too: a malformed one, its raw
  text whole, never text whose closer the content then drops as a stray.
  `between` is written between consecutive calls (whitespace there separates them);
  with `stray_closers` the template's markers after its opener, standing alone, are
  dropped. A `Plain` name right before `XmlArguments` ends at the text between them or,
  where there is none, at an argument opener or the layout's end (`blocks.calls.xml_calls`);
  the template's (or its section's) leading whitespace is a lead that belongs to the call.
  A template whose named tag stands in an outer one may be `unclosed` (the outer closer
  missing before a stop or the next call) and `bare` (the named tag alone is a call, for a
  declared tool whose arguments follow); so may one of object arguments after a `Plain` name
  with a `prefix` (its closer missing; the prefixed name and arguments alone a call for a
  declared tool where content starts, Gemma 4's `call:NAME{…}`). With `unclosed_value`, a
  `Plain` name right before `XmlArguments`, a missing last value close is tolerated at the
  layout's end followed by what the template writes after it (else the next call's opener)
  or a stop, the layout's `unclosed_at_end` derived so. A `loose` call
  (`compile.templates.Template`) allows whitespace around every tag; `empty` is the text
  after its name that closes a call without arguments.
- `section`: the optional `Section(begins, ends)` the calls stand in, every accepted
  spelling (the first is written), with named tolerances: `bare` (a call outside a section
  counts; with `bare_ends_reasoning` False only in the content, so a bare call quoted in
  reasoning never ends it, as vLLM reads DSML's bare `invoke`), `noise` (text in a section
  that is no call belongs to the section), `empty` (a section with no call is dropped),
  `stray_ends` (an end standing alone is dropped), and `opens_at`: `"call"` (a begin counts
  only where a whole call head follows it) or `"marker"` (where a call opener or the end
  follows it; the section then ends at its first spelling of the end); `loose`: the section
  only frames its calls, all four tolerances at once and the calls' `stray_closers` too.
  With `each` it is written around each call, with `written_bare` not at all (the calls are
  written `bare`); `opener` is where content stops to try it, a prefix its begins share
  (`<｜DSML｜`); in a `sealed` section the `opener` followed by none of the marker texts that
  begin with it, whole (a damaged begin, `<｜DSML｜toolcalls>`, or one cut off,
  `<｜DSML｜tool_calls` then a newline or a stop) is a malformed call running to a stop or the
  end of input, never content (`blocks.calls.sealed`); a whole marker quoted in prose stays
  text. With `array`,
  the calls are one JSON array after the begin (`blocks.json_calls.json_call_list`), the
  template `{call}` alone: each element is the call codec's `element` (`NameAndArguments`,
  its members in any order, or `NameKey`), and the array is the calls' envelope (they
  complete together once it closes); its `framing` (`[`, `]` and any whitespace inside,
  `[\n    ` … `\n]` for Cohere) is written with the section's markers, which are reserved without
  it. With `element` (a call codec), that array is an alternative behind the same opener to
  the template's calls, which are then `bare` (and `written_bare`: Mistral's pre-v11
  `[TOOL_CALLS] [{…}]` besides v11's calls). With `single`, a lone call object after the
  begin, without the brackets, is read as a list of that one call (Nemotron). Read only:
  with a `method` (`.call`), a begin then `NAME.call(k=v, …)`, Python keywords, is a call
  of NAME beside the template's calls (Llama 3.1's built-in tools,
  `blocks.python_calls.python_method_call`); with `code` (tool, key), where no call
  follows a begin, the text up to a stop is a call of `tool`, when declared, with that
  text as its `key` argument (the code interpreter's raw code, `code_call`).
- `dropped`: other markers dropped where they stand alone; `placeholder`: text dropped
  right before a call (Kimi K2's `(no content)`); `content_lead`: texts dropped where they
  begin the content (after the reasoning block, if any) and nowhere else, a role prefix
  written before an answer (Hunyuan A13B's `助手：` in vLLM's example template), in a
  `Think` turn or one without reasoning.
- `malformed_as_content`: the session's default for a rejected region (see `Format`);
  `fenced`: Markdown code in prose is text, calls quoted in it included (`Think` turns);
  `respelled`: (token, spelling) pairs, the same calls with the token so spelled accepted
  too (every marker of a `loose` call; else the section's begins and ends, listed by
  `tags.respelled` before anything is derived); `call_stop`: the stop written after a turn
  with calls (default: the first).
- `tags`: `Tags(open, close, sep)`, markers written as tags spelled with tokens: `<t …>` in
  the spec's texts is `open` t … `sep`, `</t>` `close` t `sep` (Kimi K3's XTML), with what
  that implies (a channel closes as its tag opens, a `Channels` turn's tokens, attribute
  names), spelled out by `tags.spelled` before anything is derived.
- `token_suffix`: what a tokenizer writes inside every special token's closing bracket
  (Hy3's `:opensource`): every token written as a tag without attributes in the spec's
  texts is spelled with it, by `tags.spelled` too.
- `prompt`, `default_start`: the generation prompt that opens nothing (a reasoning block
  or channel is pre-opened by it plus the opener, or `Think.opened_by`; `Think.off` is
  what it ends with when thinking is off) and the start state assumed without one;
  `primed`: texts a generation prompt may end with that begin the turn's first marker
  (Functionary v3.2's template ends its prompt with `>>>`): after such a prompt the turn
  is read as if it began with that text (`Format.primed`).

From this the factory derives, never restated: the grammar (through the blocks of
`blocks`), the renderer (the same template written back), the reserved markers (the
turn's, the section's, the template's tags, the codec's, the stops, the dropped ones),
the channels, the prompts and the marker summary (`Format.markers["call"]`).

What proves a call object standing bare in the content a call is a named hook: a `{call}`
template in no array section names a `ProofHook` (`Call.proof`, registered with
`register_proof`; the built-in `declared-call`, Llama 3's); such calls follow one another
separated by `between`'s text (`;`).

How every family maps (every one is written as a spec):

- *Kimi K2: `Think`, `Call("<|tool_call_begin|>{id}<|tool_call_argument_begin|>…",
  name=IdName("functions."), spaced=True)`, a `loose` `Section`, its other spelling
  `respelled` (`<|tool_call_section…`), the `placeholder` `(no content)`.
- *Kimi K3: `Tags("<|open|>", "<|close|>", "<|sep|>")`, so `Channels` of `<think>` and
  `<response>`, `<call tool="{name}" …>` (an `Attribute` name) with
  `XmlArguments(KIMI_K3, block=JsonBlock(…))` in `<tools>` (`opens_at="marker"`).
- *Hermes: `Call("<tool_call>\n{call}\n</tool_call>", NameAndArguments(("arguments",
  "parameters")))`. *Olmo 3: `Call("{name}({arguments})", PythonKeywords(), between="\n")`
  in a `Section`. *Pythonic (Llama 3.2), *Llama 4, *LFM2: the same codec with
  `literals="python"` and `between=", "`, which makes the calls a Python list `[…]`
  (`blocks.python_calls.python_call_list`; the brackets are written, not reserved): bare,
  in a `bare` section `written_bare` (Llama 4's `<|python_start|>`), or in a section (LFM2).
- *gpt-oss: `Messages` of analysis (reasoning), commentary (a preamble) and final (the
  answer) bodies, calls written from the template.
- *DeepSeek: `loose` calls in a `Section` of every spelling (`bare` for R1/V3 and V3.1);
  DSML is `XmlArguments(DSML)` with `empty='"/>'`, the `Section.opener` `<｜DSML｜` and
  the proxies' spellings of `｜DSML｜` `respelled`.
- *Qwen3-Coder: `<tool_call>` around `<function={name}>`, `unclosed` and `bare`. *Ling 3.0,
  *GLM-4.5 / 4.7: `<tool_call>{name}…{arguments}</tool_call>`, the name ended by an
  argument; GLM-4.5's `\n` lead and `Think.written`, GLM-4.7's `unclosed_value`.
  *MiniMax-M2 and *Seed-OSS: the name ended by `">` / `>`, a section with a `\n` lead
  (`each` for Seed).
- *Nemotron: `Call("{call}", NameAndArguments(…), between=", ")` in an `array` section;
  `Think.prompt`, Nano v2's prompt that pre-opens the block where Super-49B's opens none.
- *Hy3: GLM's layout after `<tool_sep>` in a `<tool_calls>` section, `token_suffix`
  `:opensource` for the released tokenizer (none for the preview's).
- *Apertus: `Call("{call}", NameKey(), between=", ")` in an `array` section.
- *Granite 3.x: the same in an `array` section of two spellings and no end (the array
  runs to its `]`; a failed one resumes at a stop or a begin), `Think.phrases` for 3.2's
  `Here is my thought process:` … `Here is my response:`.
- *Cohere: `Channels` (`starts`: only the thinking; `interleaved`) and an `array` section
  of `NameAndArguments(("parameters",), "tool_name", "tool_call_id")`, its `framing`
  `[\n    ` … `\n]` and `between` `,\n    ` (one object a line), ids counted from 0.
- *Mistral: `Call("[TOOL_CALLS]{name}[CALL_ID]{id}[ARGS]{arguments}", spaced=True,
  optional=("[CALL_ID]{id}", "[ARGS]"))` and the pre-v11 array, an `array` section of
  `element=NameAndArguments(id="id")` behind `[TOOL_CALLS]`; `Think` with `also`.
- *Gemma 4: `Channels` of one `Channel` with a `label` and its `written` opener
  (`<|channel>thought\n`), `interleaved`; `Call("<|tool_call>{name}{arguments}<tool_call|>",
  BareObject(), name=Plain(prefix="call:"), stray_closers=True)`: the `<|"|>` value codec,
  the `call:` prefix written but optional when read; `call_stop`.
- *Inkling: `Channels` of four blocks closed by one `<|end_message|>`, `interleaved`, each
  headed `<|message_model|>` (`header`); `Call("<|content_invoke_tool_json|>{call}…",
  NameAndArguments(("args", …)), spaced=True)`.
- *Muse, *Muse Glimmer: `Channels` headed `<|start|>assistant` with `label=" to={name}"`,
  channels opened by `<|start|>assistant to=self<|message|>` (reasoning) and `…to=user…`
  (content, Spark's `…to=commentary…` too; the recipient-less header an `also` opener);
  `Call("<|message|><atem:function_calls>\n<atem:invoke name=\"{name}\">…",
  XmlArguments(…), Plain(doubled="."), between="<|eom|>")`, `interleaved`.
- *Generic (llama.cpp's): `JsonTurn("response", "tool_calls", "tool_call")`,
  `Call("{call}", NameAndArguments(id="id"))`, no stop, `malformed_as_content=False`.
- *Llama 3: `Call("{call}", NameAndArguments(("parameters", "arguments")), between="; ",
  proof="declared-call")`: bare objects proven by the built-in proof, after an
  optional `<|python_tag|>` (a `bare`, `written_bare` section without an end, whose
  `method` `.call` reads the built-in tools' calls and whose `code` `("python", "code")`
  the code interpreter's).
"""

from ..blocks.channels import Channel
from .data import from_data, from_json, to_data, to_json
from .parts import (
    Call,
    Channels,
    JsonTurn,
    Messages,
    ProofHook,
    Section,
    Spec,
    Tags,
    Think,
    register_proof,
)

__all__ = [
    "Call",
    "Channel",
    "Channels",
    "JsonTurn",
    "Messages",
    "ProofHook",
    "Section",
    "Spec",
    "Tags",
    "Think",
    "from_data",
    "from_json",
    "register_proof",
    "to_data",
    "to_json",
]
