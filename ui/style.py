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
/* My submissions' headers break between words, never inside one: at 390 px a narrow column
   ("rank", "errors") put one letter per line (issue 33, teams). With no rows the headers still
   share the width (a box that scrolls needs a cell the keyboard can reach: axe) */
#mine-table:has(tbody td) .header-cell {min-width: min-content;}
#mine-table:has(tbody td) .header-cell span {word-break: keep-all; overflow-wrap: normal; hyphens: none;}
/* the code samples' strings (Prism's #690 green on grey reads 3.1:1) */
.token.string {color: #3f6212 !important;}
.dark .token.string {color: #bef264 !important;}
/* a code sample wraps on a phone instead of scrolling in a box a keyboard cannot reach */
@media (max-width: 640px) {pre, pre code {white-space: pre-wrap !important; overflow-wrap: anywhere;}}
"""


# WCAG AA (issue 33, axe-core in tests/ui/test_browser_a11y.py): Soft's indigo-500 labels on indigo-100
# read 3.6:1, its neutral-400 help text 2.5:1, white on its indigo-500 buttons 4.46:1, and its unticked
# checkboxes have a neutral-100 border on white (invisible); one step darker each reads at AA.
AA_COLOURS = {
    "block_label_text_color": "*primary_700",
    "block_title_text_color": "*primary_700",
    "body_text_color_subdued": "*neutral_600",
    "color_accent": "*primary_600",
    "button_primary_background_fill": "*primary_600",
    "button_primary_background_fill_hover": "*primary_700",
    "checkbox_label_background_fill_selected": "*primary_600",
    "checkbox_border_color": "*neutral_500",
    "checkbox_border_color_dark": "*neutral_400",
}


def theme() -> gr.themes.Base:
    return gr.themes.Soft(font=SYSTEM_FONTS, font_mono=MONO_FONTS).set(**AA_COLOURS)
