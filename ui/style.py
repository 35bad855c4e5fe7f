"""The Gradio page's look: system fonts (nothing fetched from a font CDN) and the few rules Gradio lacks.
The board page has its own stylesheet (``ui/static/board.css``)."""

from __future__ import annotations

import gradio as gr

SYSTEM_FONTS = ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "sans-serif"]
MONO_FONTS = ["ui-monospace", "SFMono-Regular", "Menlo", "monospace"]
CSS = """
.identity {font-size: 0.95em;}
.empty-note {opacity: 0.75; font-style: italic;}
.heatmap-wrap {overflow-x: auto;}
table.model-table {border-collapse: collapse; font-size: 0.9em; margin: 4px 0 12px;}
table.model-table th, table.model-table td {
  padding: 3px 8px; border: 1px solid rgba(128,128,128,0.25); text-align: left;}
"""


def theme() -> gr.themes.Base:
    return gr.themes.Soft(font=SYSTEM_FONTS, font_mono=MONO_FONTS)
