"""Test support for the server adapters: what lets vLLM's and SGLang's modules load on a
machine without a GPU, and a character tokenizer whose special tokens are a format's
markers.

torch and triton are the real packages (CPU torch, requirements/servers-light.txt): vLLM
0.33 and 0.34 import as they are. SGLang 0.5.23 needs two things more, both in
`sglang_serving`: its packages' `__init__` files patch transformers and import the model
runtime, so `sglang_packages` makes `sglang` and `sglang.srt` bare packages; and a few
runtime modules its chat endpoint reaches cannot load without the CUDA build of torchvision
(`SGLANG_RUNTIME`), so they load as inert placeholders.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any


class _Placeholder(type):
    """A class standing for any object of a module that cannot load: attributes and calls
    give placeholders again; it iterates as empty."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = _Placeholder(name, (), {})
        setattr(cls, name, value)
        return value

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls

    def __iter__(cls) -> Any:
        return iter(())


class _Module(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        return _Placeholder.__getattr__(self, name)  # placeholders all the way


def require(module: str) -> Any:
    """Import `module` from a server wheel: a skip where the wheels (or torch) are absent,
    but a failure under `PROTOCALL_REQUIRE_SERVERS=1` (CI installs them, so they must
    run)."""
    import os

    import pytest

    if os.environ.get("PROTOCALL_REQUIRE_SERVERS") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)


class Tokenizer:
    """A character tokenizer whose special tokens are the given markers (the way a model's
    vocabulary holds them as added tokens): enough of vLLM's `TokenizerLike` for the
    parsers. Any other character is one ordinary token, whose id follows from the
    character, so two tokenizers over the same markers give the same ids."""

    def __init__(self, specials: list[str]) -> None:
        self.specials = sorted(set(specials), key=len, reverse=True)
        self.vocab: dict[str, int] = {s: i for i, s in enumerate(self.specials)}

    def get_vocab(self) -> dict[str, int]:
        return self.vocab

    def get_added_vocab(self) -> dict[str, int]:
        """The special tokens, as a Hugging Face tokenizer lists its added tokens."""
        return {s: self.vocab[s] for s in self.specials}

    def ordinary(self, text: str) -> list[int]:
        """The ids of `text` written with ordinary tokens only (one a character), the way
        a model spells out a marker it copies."""
        ids = [len(self.specials) + ord(char) for char in text]
        self.vocab.update(zip(text, ids, strict=True))
        return ids

    def encode(self, text: str, add_special_tokens: bool = False) -> list[int]:
        ids, at = [], 0
        while at < len(text):
            special = next((s for s in self.specials if text.startswith(s, at)), None)
            ids += [self.vocab[special]] if special else self.ordinary(text[at])
            at += len(special or text[at])
        return ids

    def decode(self, ids: list[int], skip_special_tokens: bool = False) -> str:
        count = len(self.specials)
        return "".join(
            ("" if skip_special_tokens else self.specials[i]) if i < count else chr(i - count)
            for i in ids
        )


def sglang_packages() -> None:
    """Make `sglang` and `sglang.srt` importable without running their `__init__` files
    (which patch transformers and import the model runtime): each becomes a bare package
    module over its installed directory, so only the submodules a test imports load.
    Nothing when the wheel is absent (`require` then skips or fails)."""
    spec = importlib.util.find_spec("sglang")
    if spec is None or "sglang" in sys.modules or not spec.submodule_search_locations:
        return
    root = next(iter(spec.submodule_search_locations))
    for name, path in (("sglang", root), ("sglang.srt", root + "/srt")):
        package = types.ModuleType(name)
        package.__path__ = [path]
        # A spec too, so `importlib.util.find_spec` still answers for the bare package.
        package.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        package.__spec__.submodule_search_locations = [path]
        sys.modules[name] = package


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A finder standing in for whole subtrees of installed packages by dotted name."""

    def __init__(self, roots: tuple[str, ...]) -> None:
        self.roots = roots

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if any(fullname == root or fullname.startswith(root + ".") for root in self.roots):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: Any) -> types.ModuleType:
        module = _Module(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


SGLANG_RUNTIME = ("sglang.srt.managers.schedule_batch", "sglang.srt.configs")
"""What the import chain of SGLang's chat endpoint reaches that cannot load here: the
model configurations (every architecture's config class), which import the vision
models' preprocessing, so torchvision, whose only build on the package index is the CUDA
one (its operators do not load into CPU torch); and the scheduler's batch (`io_struct`
takes five names from it: enums and a multimodal output type), which imports them and the
quantization layers (compressed-tensors and other kernels' packages). Nothing the tests
run reads them; they load as placeholders."""


def sglang_serving() -> None:
    """Make SGLang's chat endpoint (`serving_chat`) and grammar backends importable: the
    bare packages of `sglang_packages`, and the runtime modules of `SGLANG_RUNTIME`
    placeholders (idempotent)."""
    sglang_packages()
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder(SGLANG_RUNTIME))
