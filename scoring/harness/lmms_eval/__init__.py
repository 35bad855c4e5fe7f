"""The lmms-eval tasks of the leaderboard's benchmarks: each family's hooks written once
(:mod:`.hooks`, ``multiple_choice/``, ``two_stage/``), each benchmark's task yaml written from its
declaration (:mod:`.tasks`: ``python -m scoring.harness.lmms_eval tasks DIR``). See README.md here."""
