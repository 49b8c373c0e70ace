"""What a format is: a name, a turn grammar built for a tool set and a starting channel,
and the markers that tell from the generation prompt which channel is pre-opened."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from typing_extensions import TypedDict, Unpack

from ..blocks.turns import Turn
from ..combinators import Parser, UsageError
from ..session import Session, SessionOptions
from ..tools import Tool, Tools, normalize_tools
from .compiled import compiled

if TYPE_CHECKING:
    from ..grammar import Export

Grammar = Callable[[Tools | None, str | None], Parser[Any]]
Renderer = Callable[[Turn, str | None], str]


_CHECKED_TOKEN_SETS = 64
"""Special-token sets a format remembers having checked (a server passes one per model)."""


class GrammarRequest(TypedDict, total=False):
    """The keyword options of `Format.decoding_export` (see it), as `decoding_grammar`
    passes them on."""

    tool_choice: str
    parallel: bool
    reasoning: bool
    generation_prompt: str | None
    special_tokens: Iterable[str] | None
    stop: bool


@dataclass(frozen=True)
class Format:
    """A model family's output format.

    `grammar(tools, start)` builds the turn grammar; `start` names the channel the
    generation prompt left open (a key of `channels`) or is `None`. `channels` maps a channel
    to its (open, close) markers; `default_start` is the template default used when no
    generation prompt is given. `render(turn, start)` writes a turn the way the model would
    (what follows the generation prompt); `reserved` lists marker texts that prose must not
    contain for a rendered turn to mean what it says. `malformed_as_content` is the
    session's default for `passthrough_malformed`: False for a format whose envelopes are
    special tokens (Harmony), so a rejected region's raw text stays in its error instead of
    showing header tokens as content. `primed` lists texts a generation prompt may end with
    that begin the turn's first marker (Functionary v3.2's `>>>`): a session after such a
    prompt reads the turn as if it began with that text. `spec` is the declarative `Spec`
    it was built from (`compile.factory.build`), if any.
    """

    name: str
    grammar: Grammar
    render: Renderer
    reserved: tuple[str, ...] = ()
    channels: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    default_start: str | None = None
    summary: str = ""
    markers: Mapping[str, str] = field(default_factory=dict)
    prompts: Mapping[str | None, str] = field(default_factory=dict)
    malformed_as_content: bool = True
    spec: Any = field(default=None, compare=False)
    primed: tuple[str, ...] = ()

    def start_state(self, generation_prompt: str | None) -> str | None:
        """The channel left open at the end of `generation_prompt` (the last open marker
        with no close after it), or the template default when the prompt is `None`."""
        if generation_prompt is None:
            return self.default_start
        best: tuple[int, str] | None = None
        for channel, (opener, closer) in self.channels.items():
            opened = generation_prompt.rfind(opener)
            still_open = opened >= 0 and closer not in generation_prompt[opened + len(opener) :]
            if still_open and (best is None or opened > best[0]):
                best = (opened, channel)
        return best[1] if best else None

    def prompt_for(self, start: str | None) -> str | None:
        """A generation prompt tail that leaves `start` open (from `prompts`), if known."""
        return self.prompts.get(start)

    def parser(
        self,
        tools: Iterable[Mapping[str, Any] | Tool] | Tools | None = None,
        generation_prompt: str | None = None,
        **options: Unpack[SessionOptions],
    ) -> Session:
        """A streaming session for one turn (options: see `Session`). The turn grammar is
        compiled once per tool set and starting channel and shared by the sessions that
        declare the same tools (see `compile.compiled`): the tools' schemas are checked and
        their validators compiled then (`Tools`): a bad schema is a `UsageError` now, not
        during the stream, as is a `special_tokens` text that is no part of any of the
        format's markers (`reserved` and `channels`: it could never matter). After a
        prompt ending with a `primed` text, the session has read that text already (as
        special tokens: the template wrote it)."""
        if "special_tokens" in options:
            options["special_tokens"] = self._special_tokens(options["special_tokens"])
        turn = compiled(self, tools, self.start_state(generation_prompt))
        options.setdefault("passthrough_malformed", self.malformed_as_content)
        session = Session(turn.grammar, turn.tools, **options)
        if self.primed:
            primed = self._primed(generation_prompt)
            if primed:
                session.feed(primed, special=True)
        return session

    def _primed(self, generation_prompt: str | None) -> str:
        """The `primed` text `generation_prompt` ends with, or the empty text."""
        prompt = generation_prompt or ""
        return max((text for text in self.primed if prompt.endswith(text)), key=len, default="")

    def _special_tokens(self, tokens: Iterable[str]) -> tuple[str, ...]:
        """`tokens` checked: each a non-empty part of one of the format's markers."""
        if isinstance(tokens, str):
            raise UsageError("special_tokens takes a collection of texts, not one string")
        tokens = tuple(tokens)
        checked = self._checked_tokens
        try:
            if tokens in checked:  # a server gives every session the same
                return tokens
        except TypeError:  # an unhashable token, which the check names
            pass
        markers = [*self.reserved, *(marker for pair in self.channels.values() for marker in pair)]
        for token in tokens:
            if not isinstance(token, str) or not token or not any(token in m for m in markers):
                shown = ", ".join(f"`{m}`" for m in markers) or "none"
                raise UsageError(
                    f"special token {token!r} is no part of any marker of format "
                    f"`{self.name}` (its markers: {shown})"
                )
        if len(checked) < _CHECKED_TOKEN_SETS:
            checked.add(tokens)
        return tokens

    @functools.cached_property
    def _checked_tokens(self) -> set[tuple[str, ...]]:
        """The `special_tokens` sets found to be parts of the format's markers."""
        return set()

    def decoding_grammar(
        self,
        tools: Iterable[Mapping[str, Any] | Tool] | Tools | None,
        dialect: str = "lark",
        **request: Unpack[GrammarRequest],
    ) -> str:
        """This format's turn calling `tools` as a grammar for constrained decoding, in
        `dialect` (`lark`, `gbnf`, `structural-tag`; see `protocall.grammar` and
        docs/grammar.md), derived from its `spec` (a format without one is a `UsageError`);
        `request` as `decoding_export` takes it, which also says which schema keywords the
        dialect could not write."""
        return self.decoding_export(tools, dialect, **request).text

    def decoding_export(
        self,
        tools: Iterable[Mapping[str, Any] | Tool] | Tools | None,
        dialect: str = "lark",
        *,
        tool_choice: str = "auto",
        parallel: bool = True,
        reasoning: bool = True,
        generation_prompt: str | None = None,
        special_tokens: Iterable[str] | None = None,
        stop: bool = True,
    ) -> Export:
        """`decoding_grammar`'s grammar with the constraints it dropped (`Export.dropped`:
        one line per schema keyword and place the dialect cannot write; the parser's
        validation still reports a value that breaks one). `stop=False` leaves the turn's
        stop out, for engines that end it with the stop token outside the grammar. After a
        `generation_prompt` that ends with a `primed` text, the Lark or GBNF grammar begins
        after that text, where the model's output does (other dialects: a `UsageError`)."""
        from ..grammar import Options, export  # loaded on first use: most formats never export

        options = Options(tool_choice, parallel, reasoning, stop)
        start = self.start_state(generation_prompt)
        declared = normalize_tools(tools)
        return export(
            self,
            declared,
            dialect,
            start=start,
            options=options,
            special_tokens=special_tokens,
            primed=self._primed(generation_prompt),
        )
