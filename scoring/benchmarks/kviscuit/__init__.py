"""K-Viscuit, one folder: its declaration (``declaration.py``, with its demo from ``demo.py`` and its site
export from ``site_export.py``), citation (``citation.bib``), About text (``about.md``) and the paper's
rows (``baselines.json``). Loading the folder (``scoring.benchmarks.load_folder``) registers ``BENCHMARK``."""

from scoring.benchmarks.kviscuit.declaration import KVISCUIT
from scoring.benchmarks.registry import register

register(KVISCUIT)
