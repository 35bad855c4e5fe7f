"""A Gradio page at rest, as a person would judge it: every event it sent has answered, no other
request is on its way, and no block is faded (Gradio's ``.pending``).

Not Playwright's "networkidle" (500 ms with no request open): Gradio's client at times opens one
more ``/queue/data`` stream after its last event has answered, and that stream stays open with a
heartbeat every 15 s and nothing to carry. Seen here one run in four on the a11y module's Gradio
pages; CI at stop 37 waited out two 180 s bounds on it. So the queue streams are not counted as
open requests; the events are counted instead: joined (``/queue/join`` answers an ``event_id``)
against completed (``process_completed`` on a stream)."""

from __future__ import annotations

EVENTS_JS = """
(() => {
  const events = { joined: new Set(), completed: new Set() };
  window.__gradioEvents = events;
  const original = window.fetch;
  window.fetch = async function (...args) {
    const response = await original.apply(this, args);
    const url = String((args[0] && args[0].url) || args[0]);
    if (url.includes("/queue/join")) {
      response.clone().json().then((b) => b.event_id && events.joined.add(b.event_id)).catch(() => {});
    } else if (url.includes("/queue/data") && response.body) {
      const reader = response.clone().body.getReader();
      const decoder = new TextDecoder();
      let text = "";
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
          const lines = text.split("\\n");
          text = lines.pop();
          for (const line of lines.filter((l) => l.startsWith("data:"))) {
            const msg = JSON.parse(line.slice(5));
            if (msg.msg === "process_completed") events.completed.add(msg.event_id);
          }
        }
      })().catch(() => {});
    }
    return response;
  };
})();
"""

BUSY_JS = """() => {
  const e = window.__gradioEvents;
  const waiting = e ? [...e.joined].filter((id) => !e.completed.has(id)) : [];
  return { waiting, faded: !!document.querySelector(".pending") };
}"""

STREAMS = ("/queue/data", "/heartbeat/")


class GradioSettled:
    """Install before ``page.goto``; then ``wait(page)`` after each action."""

    def __init__(self, page) -> None:
        self.open: dict[object, str] = {}
        page.add_init_script(EVENTS_JS)
        page.on("request", self._opened)
        page.on("requestfinished", lambda r: self.open.pop(r, None))
        page.on("requestfailed", lambda r: self.open.pop(r, None))

    def _opened(self, request) -> None:
        if not any(stream in request.url for stream in STREAMS):
            self.open[request] = request.url

    def wait(self, page, quiet_ms: int = 500, bound_ms: int = 180_000) -> None:
        """Until the page has been at rest for ``quiet_ms`` on end; else say what kept it busy."""
        quiet = waited = 0
        while quiet < quiet_ms:
            page.wait_for_timeout(100)  # also lets Playwright deliver the request events
            waited += 100
            state = page.evaluate(BUSY_JS)
            busy = bool(self.open) or bool(state["waiting"]) or state["faded"]
            quiet = 0 if busy else quiet + 100
            assert waited < bound_ms, f"not at rest after {bound_ms} ms: {sorted(self.open.values())}, {state}"
