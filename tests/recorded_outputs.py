"""Recorded real outputs from the `canitoolcall` package: its fixtures (outputs of nine model
families, rendered by their chat templates or taken from vLLM's, SGLang's and llama.cpp's
test suites and bug reports, each with the reading a correct parser gives) paired with the
protocall format that reads each family. Shared by the families' and the grammar's tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from canitoolcall.checks import run_checks
from canitoolcall.fixtures import Family, Fixture, load_families, load_fixtures
from canitoolcall.results import Observation, Status

FORMATS = {
    "llama": (("Llama-4", "llama-4"), ("", "llama-3")),
    "gemma4": (("", "gemma-4"),),
    "qwen3-hermes": (("", "hermes"),),
    "qwen3-xml": (("", "qwen3-coder"),),
    "mistral": (("", "mistral"),),
    "glm": (("GLM-4.5", "glm-4.5"), ("GLM-4.6", "glm-4.5"), ("", "glm-4.7")),
    "kimi": (("K3", "kimi-k3"), ("", "kimi-k2")),
    "gpt-oss": (("", "gpt-oss"),),
    "deepseek": (("V4.1", "deepseek-v4.1"), ("V4", "deepseek-v4"), ("V3.2", "deepseek-v3.2"),
                 ("V3.1", "deepseek-v3.1"), ("", "deepseek-v3")),
}  # fmt: skip
"""canitoolcall's families as protocall's formats: the first whose text the fixture's
reference model (its first model name) holds (written for these tests)."""

FAMILIES: dict[str, Family] = load_families()


def format_name(fixture: Fixture) -> str | None:
    """The protocall format that reads `fixture`'s family and model, if any."""
    choices = FORMATS.get(fixture.family, ())
    return next((name for text, name in choices if text in fixture.reference_model), None)


def cases() -> list[tuple[Fixture, str]]:
    """Every fixture of a family in `FORMATS`, with its format's name."""
    found = []
    for fixture in load_fixtures():
        name = format_name(fixture)
        if name is not None:
            found.append((fixture, name))
    return found


def tools(fixture: Fixture) -> list[Mapping[str, Any]]:
    """The fixture's tools as protocall declares them (OpenAI's shape or bare)."""
    return [tool.get("function", tool) for tool in fixture.tools]


def generation_prompt(fixture: Fixture) -> str | None:
    """The prompt the output followed: the fixture's own, else its reference model's
    default (as canitoolcall's engine adapters replay it)."""
    if fixture.generation_prompt is not None:
        return fixture.generation_prompt
    reference = FAMILIES[fixture.family].reference_for(fixture.reference_model)
    return None if reference is None else reference.default_generation_prompt


KNOWN = {
    "gpt-oss/harmony-marker-in-reasoning": (
        "`<|call|>` and `<|channel|>` written inside the reasoning as ordinary text tokens: "
        "from the text alone (or a tokenizer that holds every marker as one id, as the "
        "server suites' stand-ins do) they are markers; a server that passes the special "
        "tokens (`special_tokens`, `feed(special=True)`) reads them as text"
    ),
}
"""Fixtures protocall reads otherwise than canitoolcall expects, and why."""


def judge(fixture: Fixture, observation: Observation) -> None:
    """Assert that canitoolcall's checks pass on `observation` of `fixture` (soft passes,
    whitespace only, count as passes), or, for a fixture in `KNOWN`, that they still fail."""
    family = FAMILIES[fixture.family]
    failed = [row for row in run_checks(fixture, family, observation) if row.status is Status.FAIL]
    if fixture.id in KNOWN:
        assert failed, f"{fixture.id} now reads as expected: remove it from KNOWN"
        return
    assert not failed, "\n".join(f"{row.check} [{row.strategy}]: {row.detail}" for row in failed)
