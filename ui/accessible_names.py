"""Names for Gradio's own controls where its names miss what they show (issue 44, axe-core 4.14).

Gradio's file box is a button named "Click to upload or drop files" that shows "Drop File Here - or -
Click to Upload": someone who names a control by what they see (speech input) misses it, and axe-core
4.14 reports it (``label-content-name-mismatch``, serious). Its name becomes the text it shows, set in
the browser when the page loads and again whenever Gradio draws the box anew (a watcher, at most once
a frame).
"""

from __future__ import annotations

import gradio as gr

UPLOAD_NAMES_JS = """() => {
  const named = () => {
    for (const box of document.querySelectorAll("button.upload-container[aria-label]")) {
      const text = box.innerText.replace(/\\s+/g, " ").trim();
      if (text && box.getAttribute("aria-label") !== text) box.setAttribute("aria-label", text);
    }
  };
  let planned = false;
  new MutationObserver(() => {
    if (planned) return;
    planned = true;
    requestAnimationFrame(() => { planned = false; named(); });
  }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-label"] });
  named();
}"""


def wire(page: gr.Blocks) -> None:
    """Name the page's file boxes by their text (module doc); no event reaches the server."""
    page.load(None, None, None, js=UPLOAD_NAMES_JS)
