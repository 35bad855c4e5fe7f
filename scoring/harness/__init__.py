"""What drives a harness: the site's own runner (:mod:`scoring.harness.runner`), the lmms-eval tasks
(:mod:`scoring.harness.lmms_eval`), the Inspect AI tasks (:mod:`scoring.harness.inspect`) and the
VLMEvalKit datasets (:mod:`scoring.harness.vlmevalkit`).

A leaf: nothing of the app (``ui``, ``leaderboard``, ``submissions``, ``store``) nor of the scoring
engine, its readers or the benchmark declarations imports it (import-linter, ``make lint``). Each
adapter reads a benchmark's declaration one way (:func:`scoring.benchmarks.declared`: the shipped
folders and the plugins ``LEADERBOARD_PLUGINS`` names), asks what its family's protocol says, and
reads the shared parameters with one meaning (:mod:`scoring.harness.inputs`): ``questions`` the public
question list, ``images`` where its images are, ``grounding_format`` the model family a two-stage
benchmark's stage 2 asks. Installed with ``pip install ./scoring[runner]`` (or ``[lmms-eval]``,
``[inspect]``, ``[vlmevalkit]``) into the harness's own environment.
"""
