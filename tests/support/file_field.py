"""Choosing a file in a Gradio file field as a person does: pick it, see its name, pick again if not.

In full CI runs a file set on the Submit form's field sometimes never showed its name (120 s),
while the same module passed alone and under a CPU hog; its cause is not known yet. A person who
sees an empty field picks the file again: :func:`choose_file` does so (at most ``TRIES`` times)
and prints what the field showed each time it did not take, so the next CI log says why.
"""

from __future__ import annotations

TRIES = 3
SHOWN_WITHIN = 40_000  # ms for the name to show on a loaded host (it shows before the upload ends)
NAME_SHOWN = "([field, name]) => (document.querySelector(field)?.innerText || '').replace(/\\s/g, '').includes(name)"
"""A narrow screen puts a name's stem and extension on two lines: compare without white space."""


def choose_file(page, field: str, path) -> None:
    """Set ``path`` on the file input of the field ``field`` (a CSS selector, e.g. ``#sub-file``),
    first clearing a file it holds, until its name shows."""
    clear = page.locator(f"{field} button[aria-label='Clear']")
    if clear.count():
        clear.first.click()  # the field draws a new file input: wait for it, not the old one
        clear.first.wait_for(state="detached", timeout=SHOWN_WITHIN)
    for attempt in range(1, TRIES + 1):
        chooser = page.locator(f"{field} input[type=file]")
        chooser.wait_for(state="attached", timeout=SHOWN_WITHIN)
        chooser.set_input_files(str(path))
        try:
            page.wait_for_function(NAME_SHOWN, arg=[field, path.name], timeout=SHOWN_WITHIN)
            return
        except Exception as error:  # Playwright's TimeoutError
            shown = page.locator(field).inner_html()[:1500]
            print(f"choose_file: {path.name} not shown in {field} after try {attempt}: {error}\n{shown}")
            if attempt == TRIES:
                raise
