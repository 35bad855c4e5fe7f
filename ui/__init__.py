"""The leaderboard's Gradio app: one small module per tab, placed and connected in :mod:`ui.app`.

Each tab module holds a frozen dataclass of its components with a ``mount`` that creates and
wires them, and a small object whose methods are its callbacks (unit-testable without a
browser). Identity is :mod:`ui.auth`, download files :mod:`ui.downloads`, background jobs
:mod:`ui.jobs`, rendering helpers :mod:`ui.display`.

This file imports nothing: a process may import :mod:`ui.gradio_pin` before Gradio is loaded
(``app.py`` switches off Gradio's type-stub writer that way, :func:`ui.gradio_pin.skip_type_stubs`).
"""
