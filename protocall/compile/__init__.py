"""From a `Spec` to a `Format`: `factory.build(spec)` derives the turn's parser and renderer
from the spec's data (`factory`, `envelope`, `template_calls`, `xml_calls`, the `Format`
factories of `families`, the `loose` calls of `templates`); `Format.parser` compiles the
grammar once per (format, start, tool set) and shares it (`compiled`).

Nothing is imported here, so that `import protocall` (which needs `Format`) stays light:
import `protocall.compile.factory.build`."""
