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
/* My submissions' "where it fails" (ui/failures.py): a list that stacks, a split bar per group */
.fails h2 {margin: 6px 0 2px; font-size: 1.15em;}
.fails-list {padding-left: 1.4em; margin: 4px 0;}
.fails-list > li {margin: 0 0 8px;}
.fails-list ul {padding-left: 1.1em; margin: 2px 0; font-size: 0.92em;}
.fail-name {margin: 2px 0;}
.fail-n, .fails-how {font-size: 0.85em; opacity: 0.85;}
.fail-flag {font-weight: 600; white-space: nowrap;}
.split-bar {display: flex; height: 12px; max-width: 440px; border-radius: 3px; overflow: hidden; margin: 4px 0 2px;
  background: rgba(128,128,128,0.15);}
.split-text {font-size: 0.85em; margin: 0;}
.split-part {white-space: nowrap;}
.swatch {display: inline-block; width: 0.8em; height: 0.8em; border-radius: 2px; margin-right: 3px;
  vertical-align: -1px;}
.split-wrong {background: #b91c1c;} .split-missed {background: #f59e0b;} .split-grounded {background: #1d4ed8;}
/* a team's Compare (ui/team_compare.py), as the board's: a card per row on a phone */
.team-compare-wrap {overflow-x: auto; max-width: 100%;}
.team-compare {border-collapse: collapse; font-size: 0.88em; font-variant-numeric: tabular-nums;}
.team-compare th, .team-compare td {border-bottom: 1px solid rgba(128,128,128,0.28); padding: 3px 8px;
  text-align: right; white-space: nowrap;}
.team-compare th[scope="row"], .team-compare td:nth-child(3) {text-align: left;}
.compare-test {font-size: 0.85em; opacity: 0.85; margin: 0 0 4px;}
/* the detail's figures table on a phone: whole figures per line ("70.36 ± 1.58"), the table scrolls in its box */
#mine-detail table {display: block; overflow-x: auto; max-width: 100%;}
#mine-detail td, #mine-detail th {white-space: nowrap; word-break: keep-all;}
@media (max-width: 640px) {
  .team-compare, .team-compare tbody, .team-compare tr, .team-compare th, .team-compare td {display: block;}
  .team-compare thead {position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);}
  .team-compare tr {padding: 4px 0; border-bottom: 1px solid rgba(128,128,128,0.28);}
  .team-compare th[scope="row"] {text-align: left; border: 0; padding: 2px 4px;}
  .team-compare td {display: inline-block; border: 0; padding: 1px 4px; text-align: left;}
  .team-compare td::before {content: attr(data-label) ": "; opacity: 0.8;}
  .team-compare td[data-label="n"] {display: none;}
}
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
