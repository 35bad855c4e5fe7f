"""``python -m runner``: see :mod:`runner.cli`."""

from runner.cli import main

raise SystemExit(main())
