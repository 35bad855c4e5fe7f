"""The Inspect AI tasks of the leaderboard's benchmarks (:mod:`.tasks`, registered by :mod:`._registry`)."""
