"""The VLMEvalKit datasets of the leaderboard's benchmarks (:mod:`.datasets`, :mod:`.prompts`) and a runner
of VLMEvalKit's own inference on them (:mod:`.run`). See README.md here."""
