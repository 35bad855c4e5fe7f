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
/* model type badges (submissions.fields.MODEL_TYPE: one tone per choice) */
.type-badge {display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 0.85em; white-space: nowrap;
  border: 1px solid rgba(128,128,128,0.35);}
.tone-green {background: rgba(16,185,129,0.18);}
.tone-amber {background: rgba(245,158,11,0.20);}
.tone-violet {background: rgba(168,85,247,0.18);}
.model-page h2 {margin-bottom: 0.2em;}
.model-facts {opacity: 0.9;}
table.model-table {border-collapse: collapse; font-size: 0.9em; margin: 4px 0 12px;}
table.model-table th, table.model-table td {
  padding: 3px 8px; border: 1px solid rgba(128,128,128,0.25); text-align: left;}
"""


def theme() -> gr.themes.Base:
    return gr.themes.Soft(font=SYSTEM_FONTS, font_mono=MONO_FONTS)
