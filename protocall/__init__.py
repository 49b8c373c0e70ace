"""protocall: parse the streaming output of language models as a protocol."""

__version__ = "0.1.0"
