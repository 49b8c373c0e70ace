"""Model names: the model families the built-in formats read, by the names people call them.

`MODELS` maps a model family's name (lower case, words joined by `-`) to the registry name
of the format its output is written in and the channel its chat template's generation
prompt leaves open by default: for Qwen3.5 `("qwen3-coder", "reasoning")`, since its
template pre-opens `<think>` while Qwen3-Coder's does not. Only names whose format is
certain are here (README's "Supported formats"; a family whose models write either of two
formats, such as Llama 3.2, is left out). `formats.get` accepts these names too.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping

from ..combinators import UsageError

MODELS: Mapping[str, tuple[str, str | None]] = {
    "qwen2.5": ("hermes", None),
    "qwen3": ("hermes", None),  # hybrid: the model opens `<think>` itself
    "qwen3-thinking-2507": ("hermes", "reasoning"),
    "qwq": ("hermes", "reasoning"),
    "granite-4": ("hermes", None),
    "qwen3.5": ("qwen3-coder", "reasoning"),
    "qwen3.6": ("qwen3-coder", "reasoning"),
    "nemotron-3-nano": ("qwen3-coder", None),  # pre-opens `<think>` only with thinking on
    "nemotron-nano-v2": ("nemotron", None),
    "kimi-k2-thinking": ("kimi-k2", None),
    "kimi-k2.5": ("kimi-k2", "reasoning"),
    "kimi-k2.6": ("kimi-k2", "reasoning"),
    "ling-3.0": ("ling-3", "reasoning"),
    "ling-3.0-flash": ("ling-3", "reasoning"),
    "bailing-v3": ("ling-3", "reasoning"),
    "deepseek-r1": ("deepseek-v3", "reasoning"),
    "deepseek-v3.1-terminus": ("deepseek-v3.1", None),
    "deepseek-v3.2-exp": ("deepseek-v3.1", None),  # reuses V3.1's template
    "glm-4.5-air": ("glm-4.5", None),
    "glm-4.6": ("glm-4.5", None),
    "glm-4.7-flash": ("glm-4.7", "reasoning"),
    "gpt-oss-20b": ("gpt-oss", None),
    "gpt-oss-120b": ("gpt-oss", None),
    "llama-3.1": ("llama-3", None),
    "llama-3.3": ("llama-3", None),
    "lfm2.5": ("lfm2", None),
    "magistral": ("mistral", None),
    "devstral": ("mistral", None),
    "command-r7b": ("cohere", None),
    "command-a": ("cohere", None),
    "granite-3.2": ("granite", None),
    "granite-3.3": ("granite", None),
    "olmo-3-instruct": ("olmo-3", None),
    "olmo-3-think": ("olmo-3", None),
    "internlm2.5": ("internlm2", None),
    "intern-s1": ("internlm2", None),
    "jamba-1.5": ("jamba", None),
    "jamba-1.6": ("jamba", None),
    "jamba-1.7": ("jamba", None),
    "phi-4-mini-instruct": ("phi-4-mini", None),
    "hunyuan-a13b-instruct": ("hunyuan-a13b", None),
    "ernie-4.5-thinking": ("ernie-4.5", None),
    "granite-20b-functioncalling": ("granite-20b-fc", None),
    "step3": ("step-3", "reasoning"),
    "minimax-m1-40k": ("minimax-m1", None),
    "minimax-m1-80k": ("minimax-m1", None),
    "functionary-medium-v3.1": ("functionary-v3.1", None),
    "functionary-medium-v3.2": ("functionary-v3.2", None),
    "functionary-small-v3.2": ("functionary-v3.2", None),
    "gigachat3-702b-a36b": ("gigachat-3", None),
    "gigachat3-10b-a1.8b": ("gigachat-3", None),
    "functiongemma-270m": ("functiongemma", None),
    "xlam-2": ("xlam", None),
    "apriel-1.5-thinker": ("apriel", "reasoning"),
    "apriel-1.6-thinker": ("apriel", "reasoning"),
    "longcat-flash-chat": ("longcat", None),
    "dots.llm1": ("dots", None),
    "k2-v3": ("k2-horizon", None),
    "mimo-v2-flash": ("mimo", None),
    "laguna-xs.2": ("poolside-v1", None),
    "minicpm5-1b": ("minicpm5", None),
    "minicpm-sala": ("minicpm5", None),
    "solar-open-100b": ("solar-open", None),
    "step-3.5-flash": ("qwen3-coder", "reasoning"),  # vLLM's and SGLang's step3p5
    "step-3.7": ("qwen3-coder", "reasoning"),
    "step-5": ("qwen3-coder", None),  # vLLM's step5: Qwen3-Coder, thinking off
    "nanbeige4": ("qwen3-coder", None),  # SGLang's nanbeige: Qwen3-Coder calls, `<think>`
    "granite-4.2": ("qwen3-coder", None),  # vLLM's granite_toolcall_parser: Nemotron 3's
    "ripple": ("hermes", None),  # vLLM's ripple: `<think>` optional, Hermes's JSON calls
    "zaya1": ("zaya", "reasoning"),
}


def model_key(name: str) -> str:
    """`name` as `MODELS` spells it: lower case, spaces and underscores read as `-`
    (`Kimi K2.5` is `kimi-k2.5`)."""
    return "-".join(name.lower().replace("_", " ").split())


def unknown(name: str, registered: Collection[str]) -> UsageError:
    """The error for a name that is neither a registered format nor a model name: the
    nearest of either (difflib), then the registered formats."""
    known = [*registered, *MODELS]
    near = difflib.get_close_matches(model_key(name), known, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(f'`{n}`' for n in near)}? " if near else ""
    return UsageError(
        f"unknown format {name!r} (nor a model name); {hint}registered formats: "
        f"{', '.join(sorted(registered))} (model names: `protocall formats --models`)"
    )
