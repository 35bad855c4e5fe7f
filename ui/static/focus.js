// A group focus (issue 44): the board of one group (a country, a category, a type) by one metric.
// Its state is in the address with the board's own (?bench=<benchmark>&focus=<grouping>:<group>&metric=<metric>),
// so Back and Forward and a copied link bring it back. The rows the board's filters keep are ranked
// by that group's figure with the board's own rule (board.js ranked(), a port of leaderboard/ranks.py:
// 1 + rows whose 95% interval lies wholly above; shared where intervals overlap), each with its
// interval, the group's question count, its overall rank and the change (overall minus group rank,
// LMArena's Delta: positive = better placed in this group than overall).
//
// A group figure's interval: the bootstrap one the results carry (the page's _group_ci, as the model
// page shows it); for a metric with none that is a share of the group's questions (GAcc@0.5), the
// Wilson score interval of that share (leaderboard/ranks.py's rule needs an interval, and a share of
// n questions has this one); a paper's row, which publishes no group interval, stands as its point
// figure (as leaderboard/ranks.py ranks it). Everything is computed from the page's own data.
(() => {
  "use strict";
  const Z95 = 1.959963984540054;
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const missing = (v) => v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));

  // The Wilson score interval of a share (in percent) of n questions, in percent.
  function wilson(value, n) {
    const p = value / 100, z2 = Z95 * Z95;
    const den = 1 + z2 / n;
    const centre = (p + z2 / (2 * n)) / den;
    const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / den;
    return [100 * (centre - half), 100 * (centre + half)];
  }

  // The focus in an address, checked against the benchmark's declaration (else none).
  function fromParams(p, b) {
    const raw = p.get("focus") || "";
    const at = raw.indexOf(":");
    const grouping = b.groupings.find((g) => g.name === raw.slice(0, at));
    const label = raw.slice(at + 1);
    if (at < 0 || !grouping || !grouping.labels.includes(label)) return { focus: null, metric: null };
    const metric = b.group_metrics.includes(p.get("metric")) ? p.get("metric") : b.group_metrics[0];
    return { focus: `${grouping.name}:${label}`, metric };
  }
  function toParams(p, s) {
    if (!s.focus) return;
    p.set("focus", s.focus);
    p.set("metric", s.metric);
  }

  // What the focus names: the grouping, the label, its shown name, the metric, the figure's key, n.
  function parts(b, s) {
    const at = s.focus.indexOf(":");
    const grouping = b.groupings.find((g) => g.name === s.focus.slice(0, at));
    const label = s.focus.slice(at + 1);
    const metric = b.metrics.find((m) => m.name === s.metric);
    const shown = (grouping.shown || grouping.labels)[grouping.labels.indexOf(label)];
    const n = (b.sizes[grouping.name] || {})[label];
    return { grouping, label, shown, metric, key: `${grouping.name}.${label}.${metric.name}`, n };
  }

  // A row's figure in the group and its 95% interval [lo, hi] (module doc), or null without the figure.
  function interval(f, row) {
    const v = row[f.key];
    if (missing(v)) return null;
    if (f.metric.interval === "bootstrap") {
      const half = (((row._group_ci || {})[f.grouping.name] || {})[f.label] || {})[f.metric.name];
      return missing(half) ? { v, lo: v, hi: v, half: null } : { v, lo: v - half, hi: v + half, half };
    }
    if (f.metric.interval === "share" && f.n > 0) {
      const [lo, hi] = wilson(v, f.n);
      return { v, lo, hi, half: null, bounds: true };
    }
    return { v, lo: v, hi: v, half: null };
  }

  // The kept rows (already ranked overall by board.js) ranked within the group; those without the figure apart.
  function rank(b, s, rows, ranked) {
    const f = parts(b, s);
    const withFigure = [], without = [];
    rows.forEach((r, i) => {
      const iv = interval(f, r);
      if (!iv) { without.push(r); return; }
      withFigure.push({ ...r, _overall: [r.rank, r.rank_worst], lo: iv.lo, hi: iv.hi, _fv: iv.v, _iv: iv, _i: i });
    });
    const inGroup = ranked({ primary: { higher: f.metric.higher !== false, key: "_fv" } }, withFigure);
    return { f, rows: inGroup, without };
  }

  const rangeText = (best, worst) => (best === worst ? String(best) : `${best}\u2013${worst}`);
  const deltaText = (d) => (d > 0 ? `+${d}` : d < 0 ? `\u2212${-d}` : "0");
  function figureText(f, iv) {
    const d = f.metric.decimals;
    if (iv.half !== null) return `${iv.v.toFixed(d)} ± ${iv.half.toFixed(d)}`;
    if (iv.bounds) return `${iv.v.toFixed(d)} <span class="focus-bounds">(${iv.lo.toFixed(d)}\u2013${iv.hi.toFixed(d)})</span>`;
    return iv.v.toFixed(d);
  }
  function intervalName(f) {
    if (f.metric.interval === "bootstrap") return "± half-width of its 95% bootstrap interval";
    if (f.metric.interval === "share") return "(95% Wilson interval of a share of the group's questions)";
    return "(no interval)";
  }

  // The focused table: one row per model, its name linking its model page (h.modelHref).
  function table(b, s, rows, h) {
    const { f, rows: ranked, without } = rank(b, s, rows, h.ranked);
    const n = missing(f.n) ? "-" : Number(f.n).toLocaleString("en");
    const head = `<thead><tr><th scope="col"><abbr title="rank within ${esc(f.shown)}">Rank</abbr></th><th scope="col">Model</th>` +
      `<th scope="col">${esc(f.metric.abbrev)} <span class="focus-how">${esc(intervalName(f))}</span></th>` +
      `<th scope="col" class="focus-n"><abbr title="questions in ${esc(f.shown)}">n</abbr></th>` +
      `<th scope="col"><abbr title="rank on the whole board">Overall</abbr></th>` +
      `<th scope="col"><abbr title="change: overall rank minus rank in ${esc(f.shown)} (positive: placed better here)">\u0394</abbr></th></tr></thead>`;
    const body = ranked.map((r) => {
      const groupRank = rangeText(r.rank, r.rank_worst), overall = rangeText(...r._overall);
      const delta = deltaText(r._overall[0] - r.rank);
      const team = `<span class="team-line">${esc(r.team)}${r.source === h.paperSource ? " · reported in paper" : ""}</span>`;
      const label = `rank ${groupRank} in ${f.shown}, ${r.model}, ${f.metric.label} ${r._iv.v.toFixed(f.metric.decimals)}, overall rank ${overall}`;
      return `<tr data-row="${esc(r.row_id)}"><td class="focus-rank">${groupRank}</td>` +
        `<th scope="row"><a href="${esc(h.modelHref(r.row_id))}" data-model="${esc(r.row_id)}" aria-label="${esc(label)}: open the model page">${esc(r.model)}</a>${team}</th>` +
        `<td class="focus-figure">${figureText(f, r._iv)}</td><td class="focus-n">${n}</td>` +
        `<td class="focus-overall">${overall}</td><td class="focus-delta">${delta}</td></tr>`;
    }).join("");
    const caption = `${esc(f.grouping.label)}: ${esc(f.shown)} · ${esc(f.metric.label)} (${esc(f.metric.about)}) · ${n} questions`;
    const left = without.length ? `<p class="focus-note">${without.length} ${without.length === 1 ? "row has" : "rows have"} no ${esc(f.metric.abbrev)} for ${esc(f.shown)}: ${without.map((r) => esc(r.model)).join(", ")}.</p>` : "";
    const browse = `questions?${new URLSearchParams({ bench: b.id, [`f.${f.grouping.field}`]: f.label }).toString()}`;
    return `<div class="focus-wrap" role="region" aria-labelledby="focus-caption" tabindex="0"><table class="focus-table">` +
      `<caption id="focus-caption">${caption}</caption>${head}<tbody>${body}</tbody></table></div>${left}` +
      `<p class="focus-note">Ranked within the group by the board's rule: a rank is shared where the 95% intervals overlap. ` +
      `<a href="${esc(browse)}">Browse the ${n} questions of ${esc(f.shown)}</a>.</p>`;
  }

  // The picker: grouping, group and metric (a select each); "" leaves the focus.
  function controls(b, s) {
    const f = s.focus ? parts(b, s) : null;
    const option = (value, text, on) => `<option value="${esc(value)}"${on ? " selected" : ""}>${esc(text)}</option>`;
    const groupings = [option("", "Whole board", !f), ...b.groupings.map((g) => option(g.name, `One ${g.label.toLowerCase()}`, f && f.grouping.name === g.name))].join("");
    let more = "";
    if (f) {
      const labels = f.grouping.labels.map((l, i) => option(l, (f.grouping.shown || f.grouping.labels)[i], l === f.label)).join("");
      const metrics = b.group_metrics.map((name) => b.metrics.find((m) => m.name === name)).map((m) => option(m.name, m.label, m.name === f.metric.name)).join("");
      more = `<select id="focus-group" name="focus-group" aria-label="Group">${labels}</select><select id="focus-metric" name="focus-metric" aria-label="Ranked by">${metrics}</select>`;
    }
    return `<span class="choice-label" id="focus-label">Focus</span><span class="choice" role="group" aria-labelledby="focus-label">` +
      `<select id="focus-grouping" name="focus-grouping" aria-label="Focus on">${groupings}</select>${more}</span>`;
  }

  // The state change a picker asks for (null: not a picker of the focus).
  function changed(b, s, name, value) {
    if (name === "focus-grouping") {
      const g = b.groupings.find((x) => x.name === value);
      return g ? { focus: `${g.name}:${g.labels[0]}`, metric: s.metric || b.group_metrics[0] } : { focus: null, metric: null };
    }
    if (!s.focus) return null;
    const f = parts(b, s);
    if (name === "focus-group") return { focus: `${f.grouping.name}:${value}` };
    if (name === "focus-metric") return { metric: value };
    return null;
  }

  window.lbFocus = { fromParams, toParams, rank, table, controls, changed, wilson };
})();
