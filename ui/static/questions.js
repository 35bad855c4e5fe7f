// The question browser: the public question list the site serves (questions/<bench>.jsonl, what a
// team runs its model on), shown a page at a time, filtered by its own public fields. It reads that
// list and nothing else, so it shows no more than the list does (no answer, no mask). Where a row keeps
// its key, question, options and images is each benchmark's declaration's (its family's fields, in the
// page's data): no benchmark is known here by name.
(() => {
  "use strict";
  const PAGE_SIZE = 10;
  const MAX_CHOICES = 40; // a field with more distinct values (a concept, an id) is searched, not picked
  const el = (id) => document.getElementById(id);
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const BENCHES = JSON.parse(el("q-benches").textContent);
  const lists = new Map(); // bench -> its questions, fetched once
  let state = null;

  function stateFrom(search) {
    const p = new URLSearchParams(search);
    const bench = BENCHES.some((b) => b.id === p.get("bench")) ? p.get("bench") : BENCHES[0].id;
    const fields = {};
    for (const [k, v] of p) if (k.startsWith("f.")) fields[k.slice(2)] = v;
    return { bench, q: (p.get("q") || "").slice(0, 200), page: Math.max(1, parseInt(p.get("page"), 10) || 1), fields };
  }
  function searchOf(s) {
    const p = new URLSearchParams({ bench: s.bench });
    if (s.q) p.set("q", s.q);
    for (const [k, v] of Object.entries(s.fields)) if (v !== "") p.set(`f.${k}`, v);
    if (s.page > 1) p.set("page", String(s.page));
    return "?" + p.toString();
  }
  function go(change) {
    state = { ...state, ...change };
    history.pushState(null, "", searchOf(state));
    render();
  }

  async function questionsOf(bench) {
    if (!lists.has(bench)) {
      lists.set(bench, fetch(`questions/${encodeURIComponent(bench)}.jsonl`).then(async (answer) => {
        if (!answer.ok) throw new Error(`the list answered ${answer.status}`);
        return (await answer.text()).split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
      }));
    }
    return lists.get(bench);
  }

  // The fields a card shows as its key, text, options and images (the declaration's), not as facts.
  function partsOf(bench) {
    const f = bench.fields || {};
    return new Set([bench.key, bench.echo, f.question, f.options, f.grounding_prompt, ...(f.image || [])].filter(Boolean));
  }

  // The list's own fields with few values, each a picker (e.g. type, country, category).
  function filterFields(bench, questions) {
    const parts = partsOf(bench);
    const values = {};
    for (const q of questions) for (const [k, v] of Object.entries(q)) {
      if (parts.has(k) || v === null || typeof v === "object") continue;
      (values[k] = values[k] || new Set()).add(String(v));
    }
    return Object.entries(values).filter(([, set]) => set.size > 1 && set.size <= MAX_CHOICES)
      .map(([k, set]) => [k, [...set].sort((a, z) => a.localeCompare(z, "en", { numeric: true }))]);
  }

  // An image the list names: an absolute address is where the benchmark publishes it; a relative one
  // is found by its file name where the site serves the list's images (questions/<bench>/images/, the
  // "images" every harness is given); anything else is dropped.
  function imageUrl(bench, url) {
    const u = String(url || "").trim();
    if (/^https?:\/\/[^\s<>"'`]+$/i.test(u)) return u;
    const name = u.split("/").pop();
    if (/^[\w.-]+$/.test(name) && name !== "." && name !== "..") return `questions/${encodeURIComponent(bench)}/images/${name}`;
    return "";
  }
  const picture = (src, alt, w, h, fallback) => (src || fallback
    ? `<img src="${esc(src || fallback)}" alt="${esc(alt)}" loading="lazy"${w && h ? ` width="${Number(w)}" height="${Number(h)}"` : ""}${fallback && src ? ` data-fallback="${esc(fallback)}"` : ""}>`
    : "");

  function card(bench, q) {
    const f = bench.fields || {};
    const parts = partsOf(bench);
    const facts = Object.entries(q).filter(([k, v]) => !parts.has(k) && v !== null && typeof v !== "object")
      .map(([k, v]) => `${esc(k.replace(/_/g, " "))}: <b>${esc(v)}</b>`).join(" · ");
    const options = Array.isArray(q[f.options]) ? q[f.options] : [];
    let body = "";
    if (f.kind === "images") { // the option images, one a letter
      body = `<ol class="q-images">${options.map((o) => `<li><figure>${picture(imageUrl(bench.id, o.url), `Option ${o.letter}: image ${o.image_id || ""}`, o.width, o.height)}<figcaption>${esc(o.letter)}${o.image_id ? ` · ${esc(o.image_id)}` : ""}</figcaption></figure></li>`).join("")}</ol>`;
    } else if (f.kind === "choice") { // one image (its fields tried in the declared order), the options as text
      const sources = (f.image || []).map((k) => imageUrl(bench.id, q[k])).filter(Boolean);
      const img = picture(sources[0], `The image of question ${q[bench.key]}`, null, null, sources[1]);
      body = `${img ? `<div class="q-image">${img}</div>` : ""}<ol class="q-options" type="A">${options.map((o) => `<li>${esc(o)}</li>`).join("")}</ol>`;
    }
    const prompt = f.grounding_prompt && q[f.grounding_prompt] ? `<p class="q-facts">Grounding: ${esc(q[f.grounding_prompt])}</p>` : "";
    const text = f.question ? `<p class="q-text">${esc(q[f.question])}</p>` : "";
    // Signed-in visitors report a question that looks wrong (the Gradio page's Report tab, rate-limited there).
    const report = `<p class="q-report"><a href="app?${new URLSearchParams({ tab: "report", bench: bench.id, q: String(q[bench.key]) })}">Report this question</a></p>`;
    return `<article class="question" data-id="${esc(q[bench.key])}"><h2>${esc(q[bench.key])}</h2><p class="q-facts">${facts}</p>${text}${prompt}${body}${report}</article>`;
  }

  // The text a search reads: the question, the key and every other scalar field (a concept, a name).
  function searched(bench, q) {
    return Object.entries(q).filter(([, v]) => v !== null && typeof v !== "object").map(([, v]) => String(v)).join(" ");
  }
  function kept(bench, questions, s) {
    const terms = s.q.toLowerCase().split(";").map((t) => t.trim()).filter(Boolean);
    return questions.filter((q) => Object.entries(s.fields).every(([k, v]) => v === "" || String(q[k]) === v)
      && (!terms.length || terms.some((t) => searched(bench, q).toLowerCase().includes(t))));
  }

  let renders = 0;
  async function render() {
    const mine = ++renders;
    const bench = BENCHES.find((b) => b.id === state.bench);
    for (const a of document.querySelectorAll("#bench-tabs a")) {
      const on = a.dataset.bench === bench.id;
      a.classList.toggle("on", on);
      if (on) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    }
    el("q-download").href = `questions/${encodeURIComponent(bench.id)}.jsonl`;
    document.title = `${bench.name} questions`;
    let questions;
    try { questions = await questionsOf(bench.id); }
    catch (err) { el("q-summary").textContent = `No question list for ${bench.name} (${err.message}).`; return; }
    if (mine !== renders) return;
    const focused = document.activeElement && document.activeElement.id;
    el("q-fields").innerHTML = filterFields(bench, questions).map(([k, values]) => `<label>${esc(k.replace(/_/g, " "))} <select id="q-f-${esc(k)}" name="${esc(k)}"><option value="">all</option>${values.map((v) => `<option${state.fields[k] === v ? " selected" : ""}>${esc(v)}</option>`).join("")}</select></label>`).join("");
    if (document.activeElement !== el("q-text")) el("q-text").value = state.q;
    const shown = kept(bench, questions, state);
    const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
    const page = Math.min(state.page, pages);
    const first = (page - 1) * PAGE_SIZE;
    el("q-list").innerHTML = shown.slice(first, first + PAGE_SIZE).map((q) => card(bench, q)).join("");
    el("q-summary").textContent = shown.length
      ? `Questions ${(first + 1).toLocaleString("en")}-${Math.min(first + PAGE_SIZE, shown.length).toLocaleString("en")} of ${shown.length.toLocaleString("en")}${shown.length < questions.length ? ` (of ${questions.length.toLocaleString("en")} in the list)` : ""}.`
      : "No question matches these filters.";
    el("q-page").textContent = `Page ${page} of ${pages}`;
    el("q-prev").disabled = page <= 1;
    el("q-next").disabled = page >= pages;
    if (focused && el(focused)) el(focused).focus(); // a redrawn filter keeps the keyboard's place
    document.body.dataset.shown = String(renders);
  }

  el("bench-tabs").addEventListener("click", (e) => {
    const a = e.target.closest("a[data-bench]");
    if (!a || e.metaKey || e.ctrlKey) return;
    e.preventDefault();
    go({ bench: a.dataset.bench, q: "", fields: {}, page: 1 });
  });
  el("q-fields").addEventListener("change", (e) => {
    if (!e.target.name) return;
    const name = e.target.name;
    go({ fields: { ...state.fields, [name]: e.target.value }, page: 1 });
  });
  el("q-filters").addEventListener("submit", (e) => e.preventDefault());
  let typing = null;
  el("q-text").addEventListener("input", (e) => { clearTimeout(typing); typing = setTimeout(() => go({ q: e.target.value, page: 1 }), 250); });
  el("q-prev").addEventListener("click", () => { go({ page: state.page - 1 }); });
  el("q-next").addEventListener("click", () => { go({ page: state.page + 1 }); });
  // an image the site does not serve (a deployment's own) comes from where the benchmark publishes it
  document.addEventListener("error", (e) => {
    const img = e.target;
    if (img.tagName === "IMG" && img.dataset.fallback) { const next = img.dataset.fallback; delete img.dataset.fallback; img.src = next; }
  }, true);
  window.addEventListener("popstate", () => { state = stateFrom(location.search); render(); });
  state = stateFrom(location.search);
  history.replaceState(null, "", searchOf(state));
  render();
})();
