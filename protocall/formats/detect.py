"""A model's format from its chat template: `detect`, `from_template`, `for_model`.

The template renders the probe turns (`probes`); every built-in format is tried on those
renders, and one that reads them all back (`roundtrip`) is the model's family, used with
the template's generation prompts. When none does, a spec is inferred from the renders
(`inference.infer`) and built, and must pass the same round trip. When neither works, the
probes are rendered again as history (a user message after each turn), for templates that
write the last assistant message otherwise; when that fails too, a `UsageError` names what
was not understood: never a silently wrong parser. A template whose history writes calls
that are not valid Python (a string unquoted, arguments unseparated: `NotPython`) is tried
again with probes it writes right (`LITERAL_PROBES`); a family that reads those back is
the model's, the detection's `assumptions` saying so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from os import PathLike
from pathlib import Path

from ..blocks.turns import ToolUse, Turn
from ..combinators import UsageError
from ..compile.factory import build
from ..compile.format import Format
from ..inference.infer import NotPython, content_opener, infer, opener_fields
from ..inference.probes import LITERAL_PROBES, PROBES, Probe, Renders
from ..inference.rendering import EXTRA_BUILTINS, EXTRA_INPUTS, ChatTemplate, TemplateError
from ..inference.roundtrip import Trailer, problems
from ..spec import Spec, to_json
from .registry import get, names

BARE_CALL_PROOF = "declared-call"
"""The proof hook an inferred spec's bare call objects use (`Call.proof`: a `{"name": …,
"arguments": …}` object naming a declared tool, as Llama 3's and xLAM's are read)."""


@dataclass(frozen=True)
class Detection:
    """What a template implies: the `format`, the built-in `family` it matched (None when
    the spec was inferred), the generation `prompts` per mode, and the evidence: how many
    probe turns it reads back (`read_back`), those the template would not render
    (`refused`), the other built-in formats that read them too (`others`), what an
    inferred spec assumes beyond the renders (`assumptions`), and whether the template was
    rendered with llama.cpp's extra Jinja built-ins (`extra_builtins`: transformers'
    environment did not render its tool calls), given its tools flattened to
    `{name, description, parameters}` (`flat_tools`: it refuses OpenAI's shape) or in
    Cohere's shape (`cohere_tools`: its OpenAI branch fails), given `EXTRA_INPUTS`
    (`extra_inputs`: it needs them), and its probe turns rendered as history, a user
    message after each (`followed`: it writes the last assistant message otherwise, as
    Nemotron Nano v2 continues its generation prompt with it)."""

    format: Format
    family: str | None
    prompts: Mapping[str, str]
    read_back: int
    refused: Mapping[str, str]
    others: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    extra_builtins: bool = False
    flat_tools: bool = False
    cohere_tools: bool = False
    extra_inputs: bool = False
    followed: bool = False

    @property
    def confidence(self) -> str:
        """`high`: every probe rendered and read back; `partial`: some probes the template
        would not render (the rest read back), or the inferred spec assumes something the
        renders do not show (`assumptions`)."""
        return "high" if not (self.refused or self.assumptions) else "partial"

    def describe(self) -> str:
        """A report for people: the family or the inferred spec, the prompts, the evidence."""
        if self.family is not None:
            lines = [f"family: {self.family} (built-in: {self.format.summary})"]
            if self.others:
                lines.append(f"also reads the probes: {', '.join(self.others)}")
        else:
            lines = ["family: none built in; inferred spec:", to_json(self.format.spec)]
        if self.extra_builtins:
            lines.append(f"rendered with {EXTRA_BUILTINS}: transformers' sandbox refuses them")
        if self.flat_tools:
            lines.append("tools given as {name, description, parameters}: it refuses OpenAI's")
        if self.cohere_tools:
            lines.append(
                "tools given in Cohere's shape (parameter_definitions): it refuses OpenAI's"
            )
        if self.extra_inputs:
            lines.append(f"given {EXTRA_INPUTS}: it needs them")
        if self.followed:
            lines.append("probes rendered as history: it writes a last assistant turn otherwise")
        lines.append("generation prompts:")
        for mode, prompt in self.prompts.items():
            start = self.format.start_state(prompt)
            lines.append(f"  {mode}: {prompt!r} (opens: {start or 'nothing'})")
        lines.append(
            f"confidence: {self.confidence} ({self.read_back} probe turns read back one-shot "
            f"and streamed, {len(self.refused)} not rendered)"
        )
        lines += [f"  not rendered: {name}: {why}" for name, why in self.refused.items()]
        lines += [f"  assumed: {assumption}" for assumption in self.assumptions]
        return "\n".join(lines)


def detect(
    template: str | ChatTemplate,
    *,
    bos_token: str = "",
    eos_token: str = "",
    families: bool = True,
) -> Detection:
    """The format `template` implies (see the module docstring); with `families` false no
    built-in format is tried (the spec is always inferred)."""
    if isinstance(template, str):
        template = ChatTemplate(template, bos_token=bos_token, eos_token=eos_token)
    names()  # the families, and the proof hook their modules register
    try:
        return _detected_in(template, families, PROBES)
    except NotPython as error:
        if not families:
            raise
        # what it writes wrong is history only: the model writes Python, so a family
        # that reads the calls it does write right is the model's format
        try:
            found = _detected_in(template, families, LITERAL_PROBES)
        except UsageError:
            raise error from None
        return replace(found, assumptions=(*found.assumptions, f"{NOT_PYTHON}: {error}"))


NOT_PYTHON = (
    "read back from probes whose calls hold one argument and no string, as the template "
    "writes calls of other arguments in no valid Python"
)
"""The assumption of a detection from `LITERAL_PROBES`."""


def _detected_in(template: ChatTemplate, families: bool, probes: tuple[Probe, ...]) -> Detection:
    """`detect` with `probes`: the probes rendered as the last turn, else as history."""
    renders = _renders(template, probes=probes)
    last = _evidence(renders)
    try:
        return _detected(renders, families)
    except UsageError as error:
        # the last assistant message written otherwise: the probes as history, unless that
        # drops the reasoning the last turn shows (HyperCLOVAX SEED Think writes it as a
        # message of its own) or ends otherwise (OptiMind's `<|end|>`, its last turn's
        # `<|return|>`): then it is no turn the model writes
        history = _renders(template, followed=True, probes=probes)
        shown, stop = _evidence(history)
        if (last[0] and not shown) or stop != last[1]:
            raise
        try:
            return _detected(history, families)
        except UsageError:
            raise error from None


def _evidence(renders: Renders) -> tuple[bool, str]:
    """Whether the template writes a probe's reasoning in its turn, and its end of turn."""
    shown = any(
        rendered.probe.reasoning and rendered.probe.reasoning in rendered.turn
        for rendered in renders.turns
    )
    return shown, Trailer.of(renders, renders.template.eos_token).stop


def _detected(renders: Renders, families: bool) -> Detection:
    """`detect` on `renders`."""
    trailer = Trailer.of(renders, renders.template.eos_token)
    apart = [
        rendered
        for rendered in renders.turns
        if any(name not in trailer.cut(rendered.turn) for name, _ in rendered.probe.calls)
    ]
    if apart and families and renders.turn(renders.one_call) is not None:
        # its end of turn within a turn with calls: a family that reads it there (GigaChat
        # 3 drops the `<|message_sep|>` before its calls) reads through its last one
        found = _family(renders, replace(trailer, last=True))
        if found is not None:
            return found
    for rendered in apart:  # calls past the end of turn: another turn's
        renders.turns.remove(rendered)
        renders.refused[rendered.probe.name] = "the template writes its calls in another turn"
    one_call = renders.one_call
    if renders.turn(one_call) is None:
        raise UsageError(f"the chat template writes no tool call: {renders.refused[one_call.name]}")
    for rendered in renders.turns:  # the model writes on past the end of turn: where to?
        probe, cut = rendered.probe, trailer.cut(rendered.turn)
        if probe.reasoning and probe.content in rendered.turn and probe.content not in cut:
            raise UsageError(
                f"the template writes the answer after the reasoning past its end of turn "
                f"{trailer.stop!r}, each a message of its own (a turn of several messages no "
                f"spec infers): {rendered.turn!r}"
            )
    found = _family(renders, trailer) if families else None
    if found is not None:
        return found
    inferred = infer(renders, trailer, proof=BARE_CALL_PROOF)
    fmt = inferred.format
    failed = next(problems(fmt, renders, trailer), None)
    if failed is not None:
        raise UsageError(
            "the inferred format does not read the template's own renders back: " + failed
        )
    return Detection(
        fmt,
        None,
        renders.prompts,
        len(renders.turns),
        renders.refused,
        assumptions=inferred.assumptions,
        extra_builtins=renders.template.extra_builtins,
        flat_tools=renders.template.flat_tools,
        cohere_tools=renders.template.cohere_tools,
        extra_inputs=renders.template.extra_inputs,
        followed=renders.followed,
    )


def _family(renders: Renders, trailer: Trailer) -> Detection | None:
    """The built-in family that reads `renders` back, or None."""
    candidates = _candidates(renders, trailer)
    matches = [fmt for fmt in candidates if next(problems(fmt, renders, trailer), None) is None]
    if not matches:
        return None
    # The best fit; of equal ones, the family that knows more of the template's prompts
    # but for whitespace, then the one that writes a call with the markers the template
    # writes, then the fewest reserved markers (the fewest assumptions).
    matches.sort(
        key=lambda fmt: (
            -_fit(fmt, renders.prompts, trailer),
            -_loosely_known(fmt, renders.prompts),
            _unwritten(fmt, renders),
            len(fmt.reserved),
        )
    )
    family = matches[0]
    others = dict.fromkeys(other.name for other in matches if other.name != family.name)
    return Detection(
        _with_prompts(family, renders.prompts),
        family.name,
        renders.prompts,
        len(renders.turns),
        renders.refused,
        tuple(others),
        extra_builtins=renders.template.extra_builtins,
        flat_tools=renders.template.flat_tools,
        cohere_tools=renders.template.cohere_tools,
        extra_inputs=renders.template.extra_inputs,
        followed=renders.followed,
    )


def _renders(
    template: ChatTemplate, followed: bool = False, probes: tuple[Probe, ...] = PROBES
) -> Renders:
    """`probes` rendered as transformers does, or with llama.cpp's extra built-ins where
    only those render a tool call (Kimi K2 templates that `append` to a list); the tools
    flattened to `{name, description, parameters}`, else in Cohere's shape, else with
    `EXTRA_INPUTS`, where the template refuses them whole; as history if `followed` (see
    `Renders`)."""
    attempts = [template] if template.extra_builtins else [template, template.with_extra_builtins()]
    rendered = []
    for attempt in attempts:
        # where it refuses them: the tools flattened (Apertus 2509 reads `tool.name`), the
        # inputs the chat inputs lack (firefunction-v2 reads `functions`)
        shapes = (attempt.with_flat_tools(), attempt.with_cohere_tools())
        for variant in (attempt, *shapes, attempt.with_extra_inputs()):
            try:
                renders = Renders.of(variant, probes, followed)
            except TemplateError:
                continue
            if renders.turn(renders.one_call) is not None:
                return renders
            rendered.append(renders)
            break
    return rendered[0] if rendered else Renders.of(template, probes, followed)  # its error


def _candidates(renders: Renders, trailer: Trailer) -> Iterator[Format]:
    """The built-in formats; a spec's also with the template's end-of-turn marker as a stop
    where it has another (Granite 4 writes Hermes calls and ends with `<|end_of_text|>`),
    dropping what the template writes before an answer's content only where it writes
    that (`content_opener`: Hunyuan A13B's `助手：` in vLLM's example template), and
    `primed` with what the template's prompt adds to the family's where that begins one
    of its markers (Functionary v3.2's `>>>`)."""
    opener = _content_opener(renders, trailer)
    prompt = renders.prompts["default"]
    for name in names():
        fmt = get(name)
        yield fmt
        spec = fmt.spec
        if not isinstance(spec, Spec):
            continue
        variants = [spec]
        if trailer.stop and trailer.stop not in spec.stops:
            summary = f"{spec.summary}; ends with {trailer.stop}"
            variants.append(replace(spec, stops=(*spec.stops, trailer.stop), summary=summary))
        if opener is not None and opener not in (*spec.dropped, *spec.content_lead):
            variants += [_dropping(v, opener) for v in variants]
        primed = prompt.removeprefix(spec.prompt) if prompt.startswith(spec.prompt) else ""
        if primed.strip() and any(marker.startswith(primed) for marker in fmt.reserved):
            variants += [
                replace(v, primed=(primed,), summary=f"{v.summary}; its prompt ends in {primed}")
                for v in variants
            ]
        for variant in variants[1:]:
            try:
                yield build(variant)
            except UsageError:  # a marker of the family's own starts with what it drops
                continue


def _dropping(spec: Spec, opener: str) -> Spec:
    """`spec` dropping the content opener `opener` too (see `opener_fields`)."""
    dropped, lead = opener_fields(opener)
    return replace(
        spec,
        dropped=(*spec.dropped, *dropped),
        content_lead=(*spec.content_lead, *lead),
        summary=f"{spec.summary}; drops {opener}",
    )


def _content_opener(renders: Renders, trailer: Trailer) -> str | None:
    """`content_opener`, or None where the renders show no content or call to tell it by."""
    try:
        return content_opener(renders, trailer)
    except UsageError:
        return None


def _fit(fmt: Format, prompts: Mapping[str, str], trailer: Trailer) -> int:
    """How well `fmt` fits beyond reading the probes: the template's prompts it knows, and
    whether its end-of-turn marker is the template's."""
    known = sum(prompt in fmt.prompts.values() for prompt in prompts.values())
    return (
        known
        + (trailer.stop in fmt.reserved)
        + (fmt.spec is None or trailer.stop in fmt.spec.stops[:1])
    )


def _loosely_known(fmt: Format, prompts: Mapping[str, str]) -> int:
    """How many of the template's prompts `fmt` knows but for whitespace (GLM-4.5V's
    `<|assistant|>\n` is GLM-4.5's `<|assistant|>`)."""
    known = {"".join(prompt.split()) for prompt in fmt.prompts.values()}
    return sum("".join(prompt.split()) in known for prompt in prompts.values())


def _unwritten(fmt: Format, renders: Renders) -> int:
    """How many of the reserved markers `fmt` writes in a one-call turn the template's
    own one-call turn does not show: a family that reads the template's spelling only as
    an alternative (xLAM reading Mistral's `[TOOL_CALLS]`) writes its own instead."""
    rendered = renders.turn(renders.one_call)
    if rendered is None:
        return 0
    calls = tuple(ToolUse(name, dict(arguments)) for name, arguments in renders.one_call.calls)
    try:
        own = fmt.render(Turn(None, calls), None)
    except UsageError:  # a family that cannot write this turn assumes nothing by it
        return 0
    return sum(marker in own and marker not in rendered.turn for marker in fmt.reserved)


def _with_prompts(fmt: Format, prompts: Mapping[str, str]) -> Format:
    """`fmt` with the template's generation prompts, keyed by the state each leaves open."""
    by_start = {fmt.start_state(prompt): prompt for prompt in reversed(list(prompts.values()))}
    return replace(fmt, prompts=by_start, default_start=fmt.start_state(prompts["default"]))


def from_template(template: str, *, bos_token: str = "", eos_token: str = "") -> Format:
    """The format a chat template implies (`detect(...).format`)."""
    return detect(template, bos_token=bos_token, eos_token=eos_token).format


def load(path: str | PathLike[str]) -> ChatTemplate:
    """The chat template of a model folder (`chat_template.jinja`, else the
    `tokenizer_config.json`), a `tokenizer_config.json` or a `.jinja` file, with the special
    tokens (`bos_token`, `eos_token`, …) its tokenizer config names."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    config_path = path if path.suffix == ".json" else folder / "tokenizer_config.json"
    config = _config(config_path) if config_path.is_file() else {}
    named = {key: _token(value) for key, value in config.items() if key.endswith("_token")}
    tokens = {key: token for key, token in named.items() if token and not key.startswith("add_")}
    jinja = path if path.suffix == ".jinja" else folder / "chat_template.jinja"
    if path.suffix != ".json" and jinja.is_file():
        source = jinja.read_text(encoding="utf-8")
    elif "chat_template" in config:
        source = _named(config["chat_template"], config_path)
    else:
        raise UsageError(
            f"no chat template in {path} (a chat_template.jinja or tokenizer_config.json)"
        )
    return ChatTemplate(source, **tokens)


def _config(path: Path) -> dict[str, object]:
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    if not isinstance(config, dict):
        raise UsageError(f"{path}: a JSON object, not {type(config).__name__}")
    return config


def _token(value: object) -> str:
    """A special token as the config writes it: a string or `{"content": …}`."""
    if isinstance(value, dict):
        value = value.get("content", "")
    return value if isinstance(value, str) else ""


def _named(value: object, path: Path) -> str:
    """The template: a string, or the one named `default` (or `tool_use`) of a list."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        named = {item.get("name"): item.get("template") for item in value if isinstance(item, dict)}
        for name in ("tool_use", "default"):
            if isinstance(named.get(name), str):
                return str(named[name])
    raise UsageError(f"{path}: chat_template is a string or a list of named templates")


def detect_model(path: str | PathLike[str]) -> Detection:
    """`detect` on the chat template at `path` (see `load`)."""
    return detect(load(path))


def for_model(path: str | PathLike[str]) -> Format:
    """The format of the model whose chat template is at `path` (see `load`)."""
    return detect_model(path).format
