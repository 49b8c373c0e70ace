"""Where the pytest plugin was: environments installed before it moved to
`protocall.pytest_plugin` still name this module in their `pytest11` entry point (their
pytest keeps working, importing the kit as before); `pip install` of this version points the
entry point at `protocall.pytest_plugin`, which imports no Hypothesis."""

from ..pytest_plugin import protocall_check, pytest_addoption

__all__ = ["protocall_check", "pytest_addoption"]
