"""``python -m scoring.harness.lmms_eval tasks DIR [BENCHMARK ...]``: see :mod:`scoring.harness.lmms_eval.tasks`."""

from scoring.harness.lmms_eval.tasks import main

raise SystemExit(main())
