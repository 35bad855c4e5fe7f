"""Deep links of the Gradio page (``/app``): which tab is open.

``?tab=submit`` (any tab by its id: ``submit``, ``mine``, ``about``, ``admin``) opens that tab;
``?bench=<id>&compare=<id>,<id>`` and ``?tab=compare`` go to the board page, whose Compare it is.
The board's own links (``?bench=..&view=..``,
``&model=``) are the board page's (:mod:`ui.board_page`, which redirects old Gradio-tab links here).
This module reads the address once, when the page loads (in the browser; the server hears of it
only when there is a query string). On the pinned Gradio a click on a tab also puts it in the
address (:data:`TAB_SWITCH_JS`, which reads Gradio's tab bar: off on other versions,
:mod:`ui.gradio_pin`). Unknown values are ignored, never trusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

import gradio as gr

from ui.gradio_pin import internals_allowed

READ_ADDRESS_JS = """() => {
  const p = new URLSearchParams(window.location.search);
  if (p.get("compare") || p.get("tab") === "compare") { window.location.replace("./" + window.location.search); }
  return window.location.search;
}"""
"""The query string as the visitor opened the page, read in the browser. A browser-only load
event: only a non-empty query string changes the hidden address box, and only that change asks the
server to restore the page. A comparison's link (``app?bench=..&compare=..``, ``app?tab=compare``)
goes to the board page, where Compare now is (``ui/static/compare.js``)."""
TAB_SWITCH_JS = """() => {
  if (!window.lbTabBack) {  // Back and Forward open the tab of the address they return to
    window.lbTabBack = true;
    window.addEventListener("popstate", () => {
      const p = new URLSearchParams(window.location.search);
      const id = "tab-" + (p.get("tab") || "submit");
      const button = document.querySelector(`#main-tabs [data-tab-id="${CSS.escape(id)}"]`);
      if (button) { window.lbTabPopping = true; button.click(); }
    });
  }
  if (window.lbTabPopping) { window.lbTabPopping = false; return []; }  // a Back, not a new entry
  const write = (tries) => {  // the tab bar settles a moment after the click (one selected tab)
    const on = document.querySelectorAll('#main-tabs [role="tab"][aria-selected="true"][data-tab-id]');
    const ids = new Set([...on].map((b) => b.getAttribute("data-tab-id")));
    if (ids.size !== 1) { if (tries > 0) setTimeout(() => write(tries - 1), 25); return; }
    const id = [...ids][0];
    const kept = window.lbTabAddress = window.lbTabAddress || {};
    const p = new URLSearchParams(window.location.search);
    kept["tab-" + (p.get("tab") || "")] = window.location.search;
    history.pushState(null, "", (kept[id] || "?tab=" + id.slice(4)) + window.location.hash);
  };
  setTimeout(() => write(40), 0);
  return [];
}"""
"""A click on a tab puts it in the address bar (client-side, a new history entry): the address
that tab last had, else ``?tab=<id>``; Back and Forward open the tab of the address.
The Tabs' select fires on clicks only."""
TAB_SWITCH = "putting the open tab in the address (ui/links.py TAB_SWITCH_JS, reads Gradio's tab DOM)"


def params_of(search: str | None) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs((search or "").lstrip("?")).items()}


@dataclass(frozen=True, eq=False)
class DeepLinks:
    """Restores the Gradio page's tab from its address once on load."""

    tabs: gr.Tabs

    def restore(self, search: str | None) -> gr.Tabs:
        """The tab of the address's query string (``search``, as ``window.location.search`` gives it).

        Not the first tab: the page opens on it, and selecting it again when the answer comes (late on
        a busy server) only undoes a tab the visitor clicked meanwhile (seen in CI: ``?tab=submit``,
        a click on My submissions, then Submit again, My submissions' panel hidden for a minute)."""
        tab = f"tab-{params_of(search).get('tab', '')}"
        known = [t.id for t in self.tabs.children if isinstance(t, gr.Tab)]
        return gr.Tabs(selected=tab) if tab in known[1:] else gr.skip()

    def wire(self, page: gr.Blocks) -> None:
        if internals_allowed(TAB_SWITCH):
            self.tabs.select(None, None, None, js=TAB_SWITCH_JS, queue=False)
        address = gr.Textbox("", visible="hidden", elem_id="page-address")  # in the DOM: its change fires
        page.load(None, None, address, js=READ_ADDRESS_JS)
        address.change(self.restore, address, self.tabs, api_visibility="private")
