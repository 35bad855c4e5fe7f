"""``python -m scoring.harness.runner``: see :mod:`scoring.harness.runner.cli`."""

from scoring.harness.runner.cli import main

raise SystemExit(main())
