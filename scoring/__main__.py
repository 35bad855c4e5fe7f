import sys

from scoring.cli import main, run

sys.exit(run(main))
