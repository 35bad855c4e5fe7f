import sys

from leaderboard.cli import main
from scoring.cli import run

sys.exit(run(main))
