// Compare, computed in the browser from the board page's own data (ui/board_data.py), as the
// board's views are: 2-4 models scored here on one benchmark, the first against each other one,
// per group: the two figures as shown, their difference, its 95% interval and a p-value. A port of
// leaderboard/compare.py (tests/ui/test_browser_compare.py holds the two equal on the demo data):
// a function of published figures only, so it costs the server nothing and shows nothing the rows
// do not. Opened by ?tab=compare or ?bench=<id>&compare=<row id>,<row id> (docs/board.md's deep links).
(() => {
  "use strict";
  const DATA = JSON.parse(document.getElementById("board-data").textContent);
  const BENCHES = Object.fromEntries(DATA.benchmarks.map((b) => [b.id, b]));
  const MIN_MODELS = 2, MAX_MODELS = 4;
  const Z95 = 1.959963984540054; // leaderboard/compare.py Z95
  const TEST = "from the published intervals";
  const SCORED = DATA.scored_source;
  const el = (id) => document.getElementById(id);
  // The address as opened: board.js, which runs next, rewrites it to its own view's state.
  const OPENED = window.location.search;
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const number = (v) => (typeof v === "number" && Number.isFinite(v) ? v : null);

  // ------------------------------------------------------------------ the statistics (leaderboard/compare.py)
  // erfc as CPython's own pure implementation had it (a series below 1.5, a continued fraction above):
  // within a few ulps of the platform's, which the Python side uses (p is shown to 3 decimals).
  function erfc(x) {
    const ax = Math.abs(x);
    if (ax < 1.5) {
      const x2 = x * x;
      let acc = 0, fk = 25 + 0.5;
      for (let i = 0; i < 25; i++) { acc = 2.0 + x2 * acc / fk; fk -= 1.0; }
      return 1 - acc * x * Math.exp(-x2) / Math.sqrt(Math.PI);
    }
    if (ax >= 30) return x > 0 ? 0 : 2;
    const x2 = ax * ax;
    let a = 0, da = 0.5, p = 1, pLast = 0, q = da + x2, qLast = 1;
    for (let i = 0; i < 50; i++) {
      a += da; da += 2; const b = da + x2;
      [p, pLast] = [b * p - a * pLast, p];
      [q, qLast] = [b * q - a * qLast, q];
    }
    const cf = p / q * ax * Math.exp(-x2) / Math.sqrt(Math.PI);
    return x > 0 ? cf : 2 - cf;
  }
  const normalP = (z) => erfc(Math.abs(z) / Math.SQRT2);

  function compareStats(metric, a, b) {
    const fa = number(a[metric.name]), fb = number(b[metric.name]);
    if (fa === null || fb === null) return [fa, fb, null, null, null, null];
    const diff = fa - fb;
    const ha = number(a.ci), hb = number(b.ci);
    if (ha === null || hb === null) return [fa, fb, diff, null, null, null];
    const spread = Math.sqrt(ha * ha + hb * hb);
    const p = spread > 0 ? normalP(diff / (spread / Z95)) : Number(diff === 0);
    return [fa, fb, diff, diff - spread, diff + spread, p];
  }

  // One metric's published stats of a row in a group: its figure as shown and the "±" of its
  // interval: overall the row's own column, in a group the one its model page shows (_group_ci).
  function stats(bench, row, metric, grouping, label) {
    const key = grouping === "overall" ? `overall.${metric.name}` : `${grouping}.${label}.${metric.name}`;
    const group = grouping === "overall" ? null : (((row._group_ci || {})[grouping] || {})[label] || {})[metric.name];
    const ci = grouping === "overall" ? row[`${key}_ci`] : group;
    return { [metric.name]: row[key], ci: ci ?? null };
  }

  function groups(bench) {
    const out = [["overall", "", bench.gold_questions]];
    for (const g of bench.groupings) for (const label of g.labels) out.push([g.name, label, (bench.sizes[g.name] || {})[label]]);
    return out;
  }

  function comparePair(bench, a, b) {
    const out = [];
    for (const metric of bench.metrics) {
      for (const [grouping, label, questions] of groups(bench)) {
        const sa = stats(bench, a, metric, grouping, label), sb = stats(bench, b, metric, grouping, label);
        const [fa, fb, difference, low, high, p] = compareStats(metric, sa, sb);
        out.push({ metric: metric.name, grouping, label, questions: questions || 0, a: fa, b: fb, difference, low, high, p_value: p, test: TEST });
      }
    }
    return { a: nameOf(a), b: nameOf(b), differences: out };
  }

  const nameOf = (row) => `${row.model} (${row.team})`;
  const scoredRows = (bench) => bench.rows.filter((r) => r.source === SCORED);

  // The first row against each other one; an Error says what is wrong (as Leaderboard.compare's ValueError).
  function compare(benchId, rowIds) {
    const bench = BENCHES[benchId];
    if (!bench) throw new Error(`no benchmark ${benchId}`);
    if (rowIds.length < MIN_MODELS || rowIds.length > MAX_MODELS) throw new Error(`pick ${MIN_MODELS} to ${MAX_MODELS} models to compare, not ${rowIds.length}`);
    if (!bench.has_gold) throw new Error(`${benchId} has no gold yet: nothing is scored here to compare`);
    const rows = rowIds.map((id) => {
      const row = bench.rows.find((r) => r.row_id === id);
      if (!row) throw new Error(`no row ${id} on the ${benchId} board`);
      if (row.source !== SCORED) throw new Error(`${row.model} is a paper's published row: it has no intervals to compare`);
      return row;
    });
    return rows.slice(1).map((other) => comparePair(bench, rows[0], other));
  }
  window.lbCompare = { compare, erfc }; // tests/ui/test_browser_compare.py reads the figures from here

  // ------------------------------------------------------------------ the view
  const MISSING = "-";
  const fixed = (v, d, signed) => (v === null ? MISSING : (signed && v >= 0 ? "+" : "") + v.toFixed(d));
  const pText = (p) => (p === null ? MISSING : p >= 0.001 ? p.toFixed(3) : "<0.001");

  // The table of one pairing: a row per metric and group either model has a figure in (a row of
  // two "-" says nothing); on a phone each row stacks as a card, its cells named (board.css).
  function pairingHtml(bench, pairing) {
    const metrics = Object.fromEntries(bench.metrics.map((m) => [m.name, m]));
    const groupings = Object.fromEntries(bench.groupings.map((g) => [g.name, g]));
    const heads = ["Group", "n", "Metric", pairing.a, pairing.b, "Difference", "95% interval", "p"];
    const cell = (i, html) => `<td data-label="${esc(heads[i])}">${html}</td>`;
    const rows = pairing.differences.filter((d) => d.a !== null || d.b !== null).map((d) => {
      const m = metrics[d.metric], dec = m.decimals;
      const g = groupings[d.grouping];
      const where = d.grouping === "overall" ? "Overall" : `${g.label}: ${(g.shown || g.labels)[g.labels.indexOf(d.label)]}`;
      const clear = d.low !== null && (d.low > 0 || d.high < 0);
      const diff = fixed(d.difference, dec, true);
      // the board's interval format: the half-width of the 95% interval (the difference is the cell before)
      const interval = d.low === null || d.high === null ? "" : `± ${fixed((d.high - d.low) / 2, dec)}`;
      return `<tr><th scope="row">${esc(where)}</th>${cell(1, d.questions.toLocaleString("en"))}${cell(2, esc(m.label))}` +
        `${cell(3, fixed(d.a, dec))}${cell(4, fixed(d.b, dec))}${cell(5, clear ? `<b>${diff}</b>` : diff)}` +
        `${cell(6, interval)}${cell(7, pText(d.p_value))}</tr>`;
    });
    const a = esc(pairing.a), b = esc(pairing.b);
    const tests = [...new Set(pairing.differences.map((d) => d.test))].map(esc).join("; ");
    return `<h3>${a} vs ${b}</h3><p class="compare-test">Test: ${tests}.</p><div class="compare-wrap" tabindex="0" role="region" aria-label="${a} vs ${b}">` +
      `<table class="compare-table"><thead><tr>${heads.map((h) => `<th scope="col">${esc(h)}</th>`).join("")}</tr></thead>` +
      `<tbody>${rows.join("")}</tbody></table></div>`;
  }

  const PICKS = ["Reference model", "Compared with", "And (optional)", "And (optional)"];

  function fillModels(benchId, picked) {
    const rows = scoredRows(BENCHES[benchId]);
    const options = [`<option value="">-</option>`, ...rows.map((r) => `<option value="${esc(r.row_id)}">${esc(nameOf(r))}</option>`)];
    el("cmp-models").innerHTML = PICKS.map((label, i) =>
      `<label>${esc(label)} <select id="cmp-model-${i}">${options.join("")}</select></label>`).join("");
    picked.slice(0, MAX_MODELS).forEach((id, i) => {
      if (rows.some((r) => r.row_id === id)) el(`cmp-model-${i}`).value = id;
    });
    el("cmp-none").hidden = rows.length >= MIN_MODELS;
  }

  const pickedIds = () => PICKS.map((_, i) => el(`cmp-model-${i}`).value).filter(Boolean);

  function show(benchId, ids) {
    let body;
    try {
      body = compare(benchId, ids).map((p) => pairingHtml(BENCHES[benchId], p)).join("");
    } catch (e) {
      body = `<p class="empty-note">${esc(e.message)}</p>`;
    }
    el("cmp-result").innerHTML = body;
  }

  function open(search) {
    const p = new URLSearchParams(search);
    if (!p.get("compare") && p.get("tab") !== "compare") { el("compare").hidden = true; return; }
    const benchId = BENCHES[p.get("bench")] ? p.get("bench") : DATA.benchmarks[0].id;
    const picked = (p.get("compare") || "").split(",").filter(Boolean);
    el("compare").hidden = false;
    el("cmp-bench").value = benchId;
    fillModels(benchId, picked);
    if (picked.length >= MIN_MODELS) show(benchId, pickedIds());
    else el("cmp-result").innerHTML = "";
  }

  // The comparison's ?bench=..&compare=.. kept in the address beside the board's view (Copy link keeps it).
  function keepInAddress(benchId, ids) {
    const p = new URLSearchParams(window.location.search);
    p.delete("tab");
    p.set("bench", benchId);
    if (ids.length) p.set("compare", ids.join(",")); else { p.delete("compare"); p.set("tab", "compare"); }
    history.replaceState(history.state, "", "?" + p.toString());
  }

  function mount() {
    el("cmp-bench").innerHTML = DATA.benchmarks.map((b) => `<option value="${esc(b.id)}">${esc(b.name)}</option>`).join("");
    el("cmp-bench").addEventListener("change", () => { fillModels(el("cmp-bench").value, []); el("cmp-result").innerHTML = ""; });
    el("cmp-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const benchId = el("cmp-bench").value, ids = pickedIds();
      show(benchId, ids);
      keepInAddress(benchId, ids);
    });
    el("cmp-close").addEventListener("click", () => {
      el("compare").hidden = true;
      const p = new URLSearchParams(window.location.search);
      p.delete("compare"); p.delete("tab");
      history.replaceState(history.state, "", "?" + p.toString());
    });
    window.addEventListener("popstate", () => open(window.location.search));
    open(OPENED);
    if (!el("compare").hidden) {
      keepInAddress(el("cmp-bench").value, pickedIds());
      el("compare-title").focus();
    }
  }
  document.addEventListener("DOMContentLoaded", mount); // after board.js has set the address to its view
})();
