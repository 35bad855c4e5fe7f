"""The shipped benchmarks: the modules of their folders, in display order. Every process that imports
``scoring.benchmarks`` loads them; this list is where a shipped benchmark is named, as
``LEADERBOARD_PLUGINS`` names a plugin's module (the id census test, tests/test_id_census.py, allows
the names here and nowhere else outside the folders)."""

SHIPPED = ("scoring.benchmarks.scb", "scoring.benchmarks.kviscuit")
