"""llguidance as the oracle of the exported grammars: a byte-level tokenizer with the
grammar's special tokens, and whether a text is accepted, or a viable prefix."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import llguidance

EOS = "<|oracle-eos|>"


class _Bytes:
    """Every byte a token, plus `specials` (special tokens) and the EOS token."""

    def __init__(self, specials: tuple[str, ...]) -> None:
        self.specials = (EOS, *specials)
        self.tokens = [bytes([i]) for i in range(256)] + [s.encode() for s in self.specials]
        self.eos_token_id = 256
        self.bos_token_id = None
        self.special_token_ids = list(range(256, 256 + len(self.specials)))
        ordered = sorted(self.specials, key=len, reverse=True)
        self.pattern = re.compile("|".join(re.escape(s) for s in ordered))

    def __call__(self, data: bytes) -> list[int]:
        return list(data)

    def encode(self, text: str) -> list[int]:
        """`text` as tokens: every special token's text as that token, the rest bytes."""
        ids: list[int] = []
        at = 0
        for match in self.pattern.finditer(text):
            ids += text[at : match.start()].encode()
            ids.append(256 + self.specials.index(match[0]))
            at = match.end()
        return ids + list(text[at:].encode())


@lru_cache(maxsize=64)
def _tokenizer(specials: tuple[str, ...]) -> tuple[_Bytes, llguidance.LLTokenizer]:
    wrapped = _Bytes(specials)
    return wrapped, llguidance.LLTokenizer(llguidance.TokenizerWrapper(wrapped))


@dataclass(frozen=True)
class Verdict:
    accepted: bool  # the whole text, then the end of generation
    viable: int  # how many tokens were consumed before one was refused
    tokens: int
    error: str = ""


def special_tokens(lark: str) -> tuple[str, ...]:
    """The special tokens a Lark grammar names (`<|…|>` outside strings and regexes)."""
    outside = re.sub(r'"(?:[^"\\]|\\.)*"|/(?:[^/\\\n]|\\.)*/', "", lark)
    return tuple(sorted(set(re.findall(r"<[^<>\s\"]+>", outside))))


def check(lark: str, text: str, specials: tuple[str, ...] | None = None) -> Verdict:
    """Feed `text` to a matcher of the grammar `lark`, token by token."""
    wrapped, tokenizer = _tokenizer(specials if specials is not None else special_tokens(lark))
    compiled = llguidance.LLMatcher.grammar_from_lark(lark)
    matcher = llguidance.LLMatcher(tokenizer, compiled, log_level=0)
    if matcher.is_error():
        raise AssertionError(f"the grammar does not compile: {matcher.get_error()}\n{lark}")
    ids = wrapped.encode(text)
    for number, token in enumerate(ids):
        if not matcher.consume_token(token):
            return Verdict(False, number, len(ids), matcher.get_error()[:300])
    return Verdict(matcher.is_accepting(), len(ids), len(ids))
