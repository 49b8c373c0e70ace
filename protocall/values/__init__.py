"""Value parsers built on the combinator core: strict partial JSON, Python literals and
pseudo-function calls, XML-style arguments and element-tree arguments. Each streams the
JSON text of its value as it reads it and knows nothing about models."""

from .elements import Elements, element_arguments
from .json import json_object, json_string, json_value, partial_json
from .pyfunc import python_call, python_calls, python_name
from .xmlargs import Layout, xml_arguments

__all__ = [
    "Elements",
    "Layout",
    "element_arguments",
    "json_object",
    "json_string",
    "json_value",
    "partial_json",
    "python_call",
    "python_calls",
    "python_name",
    "xml_arguments",
]
