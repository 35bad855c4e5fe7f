"""The page's look: system fonts (nothing fetched from a font CDN) and the few rules Gradio lacks."""

from __future__ import annotations

import gradio as gr

SYSTEM_FONTS = ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "sans-serif"]
MONO_FONTS = ["ui-monospace", "SFMono-Regular", "Menlo", "monospace"]
CSS = """
.group-legend {font-size: 0.85em; margin: 2px 0 6px;}
.group-chip {display: inline-block; padding: 1px 8px; margin: 2px 4px 2px 0; border-radius: 10px;}
.heatmap-wrap {overflow-x: auto;}
table.heatmap {border-collapse: collapse; font-size: 0.85em; min-width: 50%;}
table.heatmap th, table.heatmap td {padding: 3px 8px; border: 1px solid rgba(128,128,128,0.25); text-align: center;}
table.heatmap td {color: #1f2937;}
table.heatmap th.model {text-align: left; font-weight: 500; white-space: nowrap;}
table.heatmap caption {font-weight: 600; text-align: left; padding: 4px 0;}
.paper-tag {font-size: 0.75em; opacity: 0.7; font-style: italic;}
.empty-note {opacity: 0.75; font-style: italic;}
.identity {font-size: 0.95em;}
"""


def theme() -> gr.themes.Base:
    return gr.themes.Soft(font=SYSTEM_FONTS, font_mono=MONO_FONTS)
