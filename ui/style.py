"""The page's look: system fonts (nothing fetched from a font CDN) and the few rules Gradio lacks."""

from __future__ import annotations

import gradio as gr

PINNED_WIDTHS = ["64px", "170px"]
"""Widths of the pinned Rank and Model columns (the CSS's sticky offset is the first one)."""
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
.group-n {font-weight: 400; font-size: 0.85em; opacity: 0.75;}
/* Rank and Model stay pinned when the board scrolls sideways. Gradio 6's virtual table takes
   pinned_columns but does not pin: the two columns get fixed widths (column_widths, PINNED_WIDTHS)
   and sticky offsets here. */
.board-table .virtual-row, .board-table thead tr {min-width: max-content;}
.board-table [role="gridcell"][data-col="0"], .board-table th[data-heading="0"] {
  position: sticky !important; left: 0; z-index: 3; background: var(--background-fill-primary);}
.board-table [role="gridcell"][data-col="1"], .board-table th[data-heading="1"] {
  position: sticky !important; left: 64px; z-index: 3; background: var(--background-fill-primary);
  box-shadow: 2px 0 0 rgba(128,128,128,0.35);}
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
table.model-table .ci {opacity: 0.7; font-size: 0.9em; white-space: nowrap;}
.bar-cell {min-width: 120px;}
.bar {display: inline-block; height: 10px; background: rgba(59,130,246,0.6); border-radius: 2px;}
.board-scatter {min-width: 300px;}
/* The labelled scatter (ui/scatter.py): a wide SVG on desktop, a narrow one on phones. */
.scatter-svg {display: block; width: 100%; height: auto;}
.scatter-svg.scatter-wide {max-width: 880px;}
.scatter-svg text {fill: currentColor;}
.scatter-svg .grid {stroke: rgba(128,128,128,0.22); stroke-width: 1;}
.scatter-svg .tick {opacity: 0.75;}
.scatter-svg .label {paint-order: stroke; stroke: var(--background-fill-primary); stroke-width: 3px;}
.scatter-svg .point:hover circle {stroke-width: 3;}
.scatter-legend {font-size: 0.85em; display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: center;}
.scatter-key {white-space: nowrap;}
.scatter-key svg {display: inline-block; vertical-align: -1px;}
.scatter-count {opacity: 0.75;}
.scatter-narrow {display: none !important;}
@media (max-width: 640px) {
  .scatter-narrow {display: block !important;}
  span.scatter-narrow {display: inline !important;}
  .scatter-wide {display: none !important;}
  table.heatmap th.model {white-space: normal; min-width: 110px; max-width: 130px; position: sticky; left: 0;
    z-index: 1; background: var(--background-fill-primary);}  /* the groups scroll beside the names */
  .board-controls {flex-direction: column !important;}
  .board-controls > * {min-width: 100% !important;}
  .board-scatter {min-width: 0; width: 100% !important;}
}
"""


def theme() -> gr.themes.Base:
    return gr.themes.Soft(font=SYSTEM_FONTS, font_mono=MONO_FONTS)
