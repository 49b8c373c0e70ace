"""`python -m protocall …`: the command line (see `protocall.cli`)."""

from .cli import main

raise SystemExit(main())
