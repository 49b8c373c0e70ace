"""Test support for the server adapters: the import shim that lets vLLM's and SGLang's
modules load without torch, and a character tokenizer whose special tokens are a format's
markers.

vLLM's parser, protocol and registry modules are plain Python, but importing them runs
`vllm/__init__` and `vllm.config`, which import torch and read attributes off it at module
level (dtypes, `torch.nn.Module` in annotations, `torch.library` registrations). The tests
never run a model, so `install()` puts stand-ins for torch and triton (the GPU kernel
compiler SGLang's utilities import at module level) in front of the import system: every
attribute and submodule is an inert placeholder class. Each is installed only when the
real package is absent. CI installs the server wheels with `--no-deps`
(requirements/servers.txt).

What the server launchers' argument parsing reaches
(tests/integrations/test_integrations_cli.py) needs
four answers a bare placeholder gets wrong, each kept as narrow as that use:

- `torch.library.infer_schema` gives a schema with one `Tensor` output per value the
  function returns: `vllm.ir` registers its operators at import (building vLLM's
  argument parser validates the default executor, which imports them), and its in-place
  overloads count those outputs.
- A class the server derives from a placeholder (SGLang's kernels subclass
  `torch.nn.Module` and `ABC` together) is an ordinary class: the placeholders' metaclass
  is an `ABCMeta`, and only the placeholders themselves answer a call with themselves.
- `int()` of a placeholder is 0 (`int(torch.distributed.ReduceOp.SUM)` at import).
- torch has no `npu`: SGLang detects an Ascend build by `hasattr(torch, "npu")`, which
  only the `torch_npu` add-on sets, and then requires the device.
"""

from __future__ import annotations

import abc
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import sys
import types
import typing
from typing import Any


class _Placeholder(abc.ABCMeta):
    """A class standing for any torch object: attributes, calls, indexing and `|` give
    placeholders again; it is falsy, empty, 0 as an int and absorbs `+`. A class derived
    from one is an ordinary class."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value = _Placeholder(name, (), {"_stand_in": True})
        setattr(cls, name, value)
        return value

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if "_stand_in" in cls.__dict__:
            return cls
        return super().__call__(*args, **kwargs)

    def __getitem__(cls, key: Any) -> Any:
        return cls

    def __setitem__(cls, key: Any, value: Any) -> None:
        pass

    def __or__(cls, other: Any) -> Any:
        return cls

    __ror__ = __add__ = __or__

    def __radd__(cls, other: Any) -> Any:
        return other

    def __iter__(cls) -> Any:
        return iter(())

    def __bool__(cls) -> bool:
        return False

    def __int__(cls) -> int:
        return 0


class _Module(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if self.__name__ == "torch" and name == "npu":
            raise AttributeError(name)  # the torch_npu add-on's attribute
        return _Placeholder.__getattr__(self, name)  # placeholders all the way


def _infer_schema(function: Any, mutates_args: Any = ()) -> str:
    """A torch operator schema with one `Tensor` output per value `function` returns."""
    returned = typing.get_args(inspect.signature(function).return_annotation)
    outputs = ", ".join(["Tensor"] * (len(returned) or 1))
    return "() -> " + (f"({outputs})" if returned else outputs)


_ITEMSIZES = {"int32": 4, "int64": 8, "float32": 4}
"""The dtypes whose item size vLLM 0.34 checks at import against `array.array`'s."""


def _iinfo(dtype: Any) -> Any:
    """`torch.iinfo` as the request models read it (a seed's bounds): int64's."""
    return types.SimpleNamespace(min=-(2**63), max=2**63 - 1, bits=64)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, roots: set[str]) -> None:
        self.roots = roots  # the absent packages this finder stands in for

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname.partition(".")[0] in self.roots:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: Any) -> types.ModuleType:
        module = _Module(spec.name)
        module.__path__ = []
        if spec.name == "torch":
            module.__version__ = "2.9.0"  # type: ignore[attr-defined]
            module.iinfo = _iinfo  # type: ignore[attr-defined]
            for name, size in _ITEMSIZES.items():
                setattr(module, name, _Placeholder(name, (), {"_stand_in": True, "itemsize": size}))
        if spec.name == "torch.library":
            module.infer_schema = _infer_schema  # type: ignore[attr-defined]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def require(module: str) -> Any:
    """Import `module` from a server wheel: a skip where the wheels are absent, but a
    failure under `PROTOCALL_REQUIRE_SERVERS=1` (CI installs them, so they must run)."""
    import os

    import pytest

    install()
    if os.environ.get("PROTOCALL_REQUIRE_SERVERS") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)


def install() -> None:
    """Stand in for torch and triton, each unless it is installed (idempotent)."""
    if any(isinstance(finder, _Finder) for finder in sys.meta_path):
        return
    absent = {
        name
        for name in ("torch", "triton")
        if name not in sys.modules and importlib.util.find_spec(name) is None
    }
    if absent:
        sys.meta_path.insert(0, _Finder(absent))


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

    def encode(self, text: str) -> list[int]:
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


class _ModuleFinder(_Finder):
    """A finder standing in for whole subtrees of an installed package by dotted name."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if any(fullname == root or fullname.startswith(root + ".") for root in self.roots):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None


SGLANG_RUNTIME = ("sglang.srt.managers.schedule_batch", "sglang.srt.configs", "sgl_kernel")
"""What the import chains of SGLang's chat endpoint and of its xgrammar backend reach that
holds the model runtime: the scheduler's batch (`io_struct` takes five names from it:
enums and a multimodal output type), the model configurations (every architecture's
config class, which imports torchvision, dill and the quantization kernels) and the CUDA
kernels package (the xgrammar backend's in-place bitmask). Nothing the tests run reads
them; they load as placeholders (`sgl_kernel` only where it is not installed)."""


def sglang_serving() -> None:
    """Make SGLang's chat endpoint (`serving_chat`) and grammar backends importable: the
    bare packages of `sglang_packages`, torch and triton stood in for (`install`), and the
    runtime modules of `SGLANG_RUNTIME` placeholders (idempotent)."""
    install()
    sglang_packages()
    if not any(isinstance(finder, _ModuleFinder) for finder in sys.meta_path):
        absent = {
            name for name in SGLANG_RUNTIME if "." in name or not importlib.util.find_spec(name)
        }
        sys.meta_path.insert(0, _ModuleFinder(absent))
