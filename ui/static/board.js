// The public board, computed in the browser from the data baked into the page (ui/board_page.py).
// Every view (benchmark, grouping, filters, search, sort, columns, the model page) is a state;
// the state is the address's query string (history.pushState), so Back and Forward move through
// views and the old board's deep links (?bench=..&view=..&types=..&sources=..&sizes=..&q=..&hide=..&model=..)
// open the same view. The filters are declared on the fields (submissions/fields.py, filter=): the data's
// "filters" say each one's address key, control and choices, and each row carries the value each matches. What a row shows of its declared fields (links, size, Hub facts) comes
// computed in the data (ui/board_data.py: rows' _links, _size, _size_text, _facts). The table is Tabulator (vendored: ui/static/vendor/tabulator).
(() => {
  "use strict";
  let DATA, BENCHES, FILTERS;
  function load(text) {
    DATA = JSON.parse(text);
    BENCHES = Object.fromEntries(DATA.benchmarks.map((b) => [b.id, b]));
    FILTERS = Object.fromEntries(DATA.filters.map((f) => [f.param, f]));
    DATA.benchmarks.forEach((b) => b.rows.forEach((r, i) => { r._i = i; }));
  }
  load(document.getElementById("board-data").textContent);
  const choiceKeys = (f) => f.choices.map(([value]) => value);
  const PHONE = window.matchMedia("(max-width: 640px)");
  // a narrow desktop (a small window, or 200 % zoom on a 1440 screen: 720 CSS px) keeps the team under
  // the name and the model's type and source after the figures, so the headline figures stay in sight
  const NARROW = window.matchMedia("(max-width: 1100px)");
  const MODEL_GROUP = "Model";
  const root = document.getElementById("board");
  const el = (id) => document.getElementById(id);

  // ------------------------------------------------------------------ text
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const URL_RE = /^https?:\/\/[^\s<>"'`]+$/i;
  const safeUrl = (u) => (typeof u === "string" && URL_RE.test(u.trim()) ? u.trim() : "");
  const link = (u, text) => (safeUrl(u) ? `<a href="${esc(safeUrl(u))}" target="_blank" rel="noopener noreferrer nofollow">${esc(text)}</a>` : esc(text));
  const missing = (v) => v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));
  const fmt = (v, d) => (missing(v) ? "-" : Number(v).toFixed(d));
  const fmtCi = (v, ci, d) => (missing(v) ? "-" : missing(ci) ? fmt(v, d) : `${fmt(v, d)} ± ${fmt(ci, d)}`);
  // Download CSV: a text cell a spreadsheet would run as a formula gets a quote first, as the public CSV's (leaderboard/table.py csv_safe)
  const csvSafe = (v) => (typeof v === "string" && /^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
  const rankText = (r) => (r.rank === r.rank_worst ? String(r.rank) : `${r.rank}\u2013${r.rank_worst}`);
  const typeLabel = (t) => DATA.type_labels[String(t || "").toLowerCase()] || t || "-";
  // the declared badge of a model type (submissions/fields.py: each choice's tone)
  const typeBadge = (t) => {
    const tone = DATA.type_tones[String(t || "").toLowerCase()];
    return tone ? `<span class="type-badge tone-${esc(tone)}">${esc(typeLabel(t))}</span>` : esc(typeLabel(t));
  };
  const links = (row) => (row._links || []).map(([u, t]) => link(u, t)).join(" · ");
  // "new": submitted in the last NEW_DAYS days, by the visitor's clock (a row's date is its UTC day)
  const NEW_DAYS = 7, DAY = 86400e3;
  function isNew(row) {
    const t = row.submitted ? Date.parse(`${String(row.submitted).slice(0, 10)}T00:00:00Z`) : NaN;
    const age = Date.now() - t;
    return Number.isFinite(t) && age > -DAY && age < NEW_DAYS * DAY;
  }
  const newTag = (row) => (isNew(row) ? ` <span class="new-tag" title="submitted in the last ${NEW_DAYS} days (${esc(row.submitted)})">new</span>` : "");
  // the mark of a row whose file had responses read by rules looser than the official exact letter
  function lenientMark(row) {
    const n = row[DATA.lenient.key];
    if (missing(n) || !(n > 0)) return "";
    const title = `${Number(n).toLocaleString("en")} responses read by rules looser than the official exact-letter protocol: see Acc strict`;
    return `<span class="lenient-mark" title="${esc(title)}">${esc(DATA.lenient.mark)}</span> `;
  }

  // ------------------------------------------------------------------ state <-> address
  const viewOf = (b, id) => b.views.find((v) => v.id === id) || b.views[0];
  const groupsOf = (view) => [...new Set(view.columns.filter(shownKind).map((c) => c.group))].filter((g) => g !== MODEL_GROUP);
  const allGroups = (b) => [...new Set(b.views.flatMap(groupsOf))];
  function shownKind(c) { return !["data", "url", "ci"].includes(c.kind); }

  function stateFrom(search) {
    const p = new URLSearchParams(search);
    const bench = BENCHES[p.get("bench")] ? p.get("bench") : DATA.benchmarks[0].id;
    const b = BENCHES[bench];
    const view = viewOf(b, p.get("view")).id;
    const listed = (key, known, dflt) => (p.has(key) ? p.get(key).split(",").filter((v) => known.includes(v)) : dflt);
    // a checkbox group keeps the values ticked (all at first); a dropdown the one picked ("" for all)
    const picked = (f) => (f.type === "dropdown" ? (choiceKeys(f).includes(p.get(f.param)) ? p.get(f.param) : "") : listed(f.param, choiceKeys(f), choiceKeys(f)));
    let sort = null;
    const [key, dir] = (p.get("sort") || "").split(":");
    if (key && (dir === "asc" || dir === "desc") && viewOf(b, view).columns.some((c) => c.key === key)) sort = { key, dir };
    return {
      bench, view, sort,
      filters: Object.fromEntries(DATA.filters.map((f) => [f.param, picked(f)])),
      q: (p.get("q") || "").slice(0, 200),
      hide: listed("hide", allGroups(b), []),
      model: (p.get("model") || "").slice(0, 64) || null,
      ...window.lbFocus.fromParams(p, b), // focus, metric (ui/static/focus.js)
    };
  }

  function searchOf(s) {
    const p = new URLSearchParams();
    p.set("bench", s.bench);
    const put = (k, v, dflt) => { if (v !== dflt) p.set(k, v); };
    put("view", s.view, "overall");
    for (const f of DATA.filters) {
      const v = s.filters[f.param];
      if (f.type === "dropdown") put(f.param, v, "");
      else put(f.param, [...v].sort().join(","), [...choiceKeys(f)].sort().join(","));
    }
    put("q", s.q.trim(), "");
    put("hide", [...s.hide].sort().join(","), "");
    if (s.sort) p.set("sort", `${s.sort.key}:${s.sort.dir}`);
    window.lbFocus.toParams(p, s);
    if (s.model) p.set("model", s.model);
    return "?" + p.toString().replace(/\+/g, "%20");
  }

  let state = stateFrom(window.location.search);
  history.replaceState(null, "", searchOf(state) + window.location.hash);
  let fromHere = 0; // entries this page pushed (Back from a model page then stays on the site)

  function go(change, { replace = false } = {}) {
    state = { ...state, ...change };
    const url = searchOf(state);
    if (url !== window.location.search) {
      if (replace) history.replaceState(null, "", url);
      else { history.pushState(null, "", url); fromHere += 1; }
    }
    render();
  }
  window.addEventListener("popstate", () => { state = stateFrom(window.location.search); fromHere = Math.max(0, fromHere - 1); render(); });

  // ------------------------------------------------------------------ rows: filters and honest ranks
  function kept(b, s) {
    const tests = DATA.filters.map((f) => {
      const v = s.filters[f.param];
      if (f.type === "dropdown") return (r) => !v || r._filters[f.param] === v;
      const ticked = new Set(v);
      return (r) => ticked.has(r._filters[f.param]);
    });
    const terms = s.q.split(";").map((t) => t.trim().toLowerCase()).filter(Boolean);
    return b.rows.filter((r) => {
      if (!tests.every((keeps) => keeps(r))) return false;
      const hay = `${r.model} ${r.team}`.toLowerCase();
      return !terms.length || terms.some((t) => hay.includes(t));
    });
  }

  // 1 + rows wholly better; worst = ranked rows - rows wholly worse (leaderboard/ranks.py), O(n log n).
  function ranked(b, rows) {
    const up = b.primary.higher;
    const lo = rows.map((r) => (r.lo === null ? NaN : up ? r.lo : -r.hi));
    const hi = rows.map((r) => (r.hi === null ? NaN : up ? r.hi : -r.lo));
    const ok = rows.map((_, i) => Number.isFinite(lo[i]) && Number.isFinite(hi[i]));
    const los = lo.filter((_, i) => ok[i]).sort((a, c) => a - c);
    const his = hi.filter((_, i) => ok[i]).sort((a, c) => a - c);
    const count = los.length;
    const firstAbove = (arr, x) => { let a = 0, z = arr.length; while (a < z) { const m = (a + z) >> 1; if (arr[m] <= x) a = m + 1; else z = m; } return a; };
    const firstAtOrAbove = (arr, x) => { let a = 0, z = arr.length; while (a < z) { const m = (a + z) >> 1; if (arr[m] < x) a = m + 1; else z = m; } return a; };
    const value = (r) => { const v = r[b.primary.key]; return missing(v) ? Infinity : up ? -v : v; };
    // ties keep the server's order (rank, primary figure, then the row's own keys: leaderboard/table.py)
    const out = rows.map((r, i) => {
      const best = ok[i] ? count - firstAbove(los, hi[i]) + 1 : count + 1;
      const worst = ok[i] ? count - firstAtOrAbove(his, lo[i]) : rows.length;
      return { ...r, rank: best, rank_worst: ok[i] ? worst : rows.length };
    });
    out.sort((a, c) => a.rank - c.rank || value(a) - value(c) || a._i - c._i);
    out.forEach((r, i) => { r._order = i; });
    return out;
  }

  // ------------------------------------------------------------------ the table
  const tints = ["rgba(59,130,246,0.10)", "rgba(16,185,129,0.10)", "rgba(245,158,11,0.12)", "rgba(168,85,247,0.10)", "rgba(236,72,153,0.09)"];
  let applyingSort = false;

  // the name links the model's first link (its Hub page, else its paper, else its code: display.row_links)
  function modelCell(row, phone) {
    const target = (row._links || []).map(([u]) => safeUrl(u)).find(Boolean) || "";
    const name = target ? `<a href="${esc(target)}" target="_blank" rel="noopener noreferrer nofollow" tabindex="-1">${esc(row.model)}</a>` : esc(row.model);
    const paper = row.source === DATA.paper_source ? ' <span class="paper-tag">reported in paper</span>' : "";
    const team = phone ? `<div class="team-line">${esc(row.team)}</div>` : "";
    return `<div class="model-cell" title="${esc(row.model)} (${esc(row.team)})"><div class="model-name">${lenientMark(row)}<span class="name">${name}</span>${newTag(row)}${paper}</div>${team}</div>`;
  }

  // What a figure's header abbreviates ("Acc T1": "Accuracy (share of ...), T1 within culture"), for a
  // screen reader (a hidden text after it) and a pointer (the tooltip); "" for a column that is no figure.
  function spelledOut(b, c) {
    if (!c.figure) return "";
    const [section, label, name] = c.figure;
    const m = b.metrics.find((x) => x.name === name);
    if (!m) return "";
    const g = b.groupings.find((x) => x.name === section);
    const where = g && label !== null ? `, ${(g.shown || g.labels)[g.labels.indexOf(label)]}` : "";
    return `${m.label} (${m.about})${where}`;
  }
  // A row as a screen reader names it: its rank, model and headline figures with their names.
  function rowLabel(b, row) {
    const overall = viewOf(b, "overall").columns;
    const figures = b.headline.map((key) => {
      const c = overall.find((x) => x.key === key);
      const m = c && c.figure && b.metrics.find((x) => x.name === c.figure[2]);
      const name = m ? m.label : c ? c.header : key;
      return !c ? "" : missing(row[key]) ? `no ${name}` : `${name} ${fmtCi(row[key], c.ci ? row[c.ci] : null, c.decimals)}`;
    }).filter(Boolean);
    const who = row.source === DATA.paper_source ? "reported in paper" : row.team;
    return `Rank ${rankText(row)}, ${row.model}, ${who}: ${figures.join(", ")}. Enter opens its model page.`;
  }

  const DESKTOP_WIDTHS = { rank: 72, model: 250, team: 140, model_type: 130, number: 92, date: 100, links: 150, params: 76 };
  function columnDefs(b, view, hide, phone, narrow = false) {
    const shown = view.columns.filter(shownKind).filter((c) => c.group === MODEL_GROUP || !hide.includes(c.group));
    const groupTint = {};
    shown.forEach((c) => { if (c.kind === "number" && !(c.group in groupTint)) groupTint[c.group] = Object.keys(groupTint).length % tints.length; });
    // A phone keeps two figures beside the name: the view's first two shown (its headline ones in the
    // overview); Tabulator folds the rest into the row (highest "responsive" first: text, then figures).
    const figures = shown.filter((c) => c.kind === "number").map((c) => c.key);
    const firstShown = view.id === "overall" ? b.headline.filter((k) => figures.includes(k)) : figures;
    // A phone's group view (by country, type, ...) keeps instead the primary figure of as many groups as
    // fit, in order, beside a narrower name (at 390 px three or more); the other figures fold into the row.
    const compact = phone && view.id !== "overall";
    const primaryMetric = b.primary.key.slice(b.primary.key.indexOf(".") + 1);
    const keptFirst = (c) => compact && c.figure && c.figure[2] === primaryMetric;
    const headline = new Set(compact ? [] : phone ? firstShown.slice(0, 2) : figures);
    let priority = 1, kept = 1;
    const defs = [];
    for (const c of shown) {
      if ((phone || narrow) && c.key === "team") continue; // on a phone or a narrow window the team sits under the name
      const spelled = spelledOut(b, c);
      const d = { title: c.header, field: c.key, headerTooltip: `${spelled || c.header}: click to sort`, cssClass: `k-${c.kind}` };
      if (spelled) d.titleFormatter = () => `<abbr title="${esc(spelled)}">${esc(c.header)}</abbr><span class="sr-only">, ${esc(spelled)}</span>`;
      if (c.group in groupTint) d.cssClass += ` tint-${groupTint[c.group]}`;
      if (keptFirst(c)) d.cssClass += " compact-figure";
      if (c.kind === "rank") {
        Object.assign(d, { formatter: (cell) => rankText(cell.getRow().getData()), sorter: (a, z, ra, rz) => ra.getData()._order - rz.getData()._order, width: phone ? (compact ? 44 : 50) : 72, hozAlign: "right", headerSortStartingDir: "asc", frozen: !phone, responsive: 0 });
      } else if (c.kind === "model") {
        Object.assign(d, { formatter: (cell) => modelCell(cell.getRow().getData(), phone || narrow), sorter: "string", minWidth: phone ? (compact ? 110 : 170) : narrow ? 170 : 200, widthGrow: compact ? 1 : 2, frozen: !phone, responsive: 0, variableHeight: true });
      } else if (c.key === "team") {
        Object.assign(d, { formatter: (cell) => `<span title="${esc(cell.getValue())}">${esc(cell.getValue())}</span>`, minWidth: 130, frozen: true, responsive: 0 });
      } else if (c.kind === "model_type") {
        Object.assign(d, { formatter: (cell) => typeBadge(cell.getValue()), responsive: 1000 + priority++ });
      } else if (c.kind === "params") { // a parameter count: "8.3B", sorted by the count, unknown last
        Object.assign(d, { formatter: (cell) => esc(cell.getRow().getData()._size_text), sorter: "number", sorterParams: { alignEmptyValues: "bottom" }, hozAlign: "right", headerSortStartingDir: "desc", responsive: 1000 + priority++ });
      } else if (c.kind === "number") {
        Object.assign(d, {
          formatter: (cell) => {
            const ci = c.ci ? cell.getRow().getData()[c.ci] : null;
            if (!phone || missing(ci) || missing(cell.getValue())) return fmtCi(cell.getValue(), ci, c.decimals);
            return `<div>${fmt(cell.getValue(), c.decimals)}<span class="ci-line">± ${fmt(ci, c.decimals)}</span></div>`; // stacked: fits a phone
          },
          sorter: "number", sorterParams: { alignEmptyValues: "bottom" }, hozAlign: "right",
          headerSortStartingDir: c.higher === false ? "asc" : "desc",
          responsive: headline.has(c.key) ? 0 : keptFirst(c) ? 10 + kept++ : 100 + priority++,
          minWidth: c.ci && !phone ? 112 : keptFirst(c) ? 54 : 62,
        });
      } else if (c.kind === "links") {
        Object.assign(d, { formatter: (cell) => links(cell.getRow().getData()).replace(/<a /g, '<a tabindex="-1" ') || "-", headerSort: false, download: false, responsive: 1000 + priority++ });
      } else {
        Object.assign(d, { formatter: (cell) => esc(missing(cell.getValue()) || cell.getValue() === "" ? "-" : cell.getValue()), responsive: 1000 + priority++ });
      }
      // Download CSV: figures as the board shows them (70.00), the type's label, formulas quoted
      const asShown = (v) => (missing(v) ? "" : Number(v).toFixed(c.decimals));
      d.accessorDownload = c.kind === "model_type" ? (v) => csvSafe(typeLabel(v)) : c.kind === "number" ? asShown : csvSafe;
      if (!phone) d.width = (narrow && c.kind === "model" ? 180 : DESKTOP_WIDTHS[c.kind === "text" && c.key === "team" ? "team" : c.kind]) || 120; // no measuring
      defs.push(d);
      // Download CSV: the half-width of the figure's 95% interval in its own column, "Acc ±", as the board shows it
      if (c.kind === "number" && c.ci) defs.push({ title: `${c.header} ±`, field: c.ci, visible: false, download: true, titleDownload: `${c.header} ± (95% interval)`, accessorDownload: asShown });
    }
    if (phone) defs.unshift({ title: '<span class="sr-only">More figures</span>', formatter: "responsiveCollapse", width: 26, minWidth: 26, hozAlign: "center", headerSort: false, resizable: false, responsive: 0, cssClass: "collapse-toggle" });
    if (narrow) { // the headline figures right after the name, then the other figures, then what describes the row
      const place = (d) => (d.field === "rank" || d.field === "model" ? 0 : b.headline.includes(d.field) ? 1
        : /\bk-number\b/.test(d.cssClass || "") ? 2 : 3);
      let last = 0; // a figure's hidden "±" column (Download CSV) stays right after it
      const placed = defs.map((d, i) => [(last = d.visible === false ? last : place(d)), i, d]);
      return placed.sort((x, y) => x[0] - y[0] || x[1] - y[1]).map(([, , d]) => d);
    }
    return defs;
  }

  // ------------------------------------------------------------------ keyboard and screen readers
  // Sortable headers and rows are in the tab order (Enter or Space on a header sorts it, Enter on a
  // row opens its model page); the scrolling holder is not a stop of its own (the rows in it are),
  // which also leaves the grid holding rows only.
  function focusableRow(b, row) {
    const element = row.getElement();
    element.tabIndex = 0;
    element.setAttribute("aria-label", rowLabel(b, row.getData()));
  }
  // The skip link's target: the first row of the table in sight (or of the focus, or the model page's heading).
  function focusFirstRow() {
    if (state.model) { el("model-body").querySelector("h2")?.focus(); return; }
    const first = state.focus ? el("focus-table").querySelector("a[data-model]") : el("board-table").querySelector(".tabulator-row");
    if (first) { first.focus(); first.scrollIntoView({ block: "nearest" }); }
  }
  // Back from a model page, the focus goes to the row it was opened from (scrolled, or paged, into sight).
  async function focusRow(id) {
    if (state.focus) { el("focus-table").querySelector(`a[data-model="${CSS.escape(id)}"]`)?.focus(); return; }
    const table = shown && shown.table, row = table && table.getRow(id);
    if (!row) return;
    try {
      if (PHONE.matches) await table.setPageToRow(row);
      else await table.scrollToRow(row, "nearest", false);
    } catch (err) { /* already in sight */ }
    row.getElement().focus({ preventScroll: !PHONE.matches });
  }
  function keyboardReady(grid) {
    grid.querySelector(".tabulator-tableholder")?.removeAttribute("tabindex");
    for (const col of grid.querySelectorAll(".tabulator-col.tabulator-sortable")) col.tabIndex = 0;
  }
  function onTableKey(e, table) {
    const activate = e.key === "Enter" || (e.key === " " && !e.target.closest("a, button, input"));
    if (!activate) return;
    if (e.target.matches(".tabulator-col.tabulator-sortable")) {
      e.preventDefault();
      const field = e.target.getAttribute("tabulator-field");
      e.target.click(); // Tabulator's own header sort: direction, aria-sort, the address
      requestAnimationFrame(() => table.element.querySelector(`.tabulator-col[tabulator-field="${CSS.escape(field)}"]`)?.focus());
    } else if (e.target.matches(".tabulator-row")) {
      e.preventDefault();
      const row = table.getRow(e.target);
      if (row) go({ model: row.getData().row_id });
    }
  }
  // A control redrawn by a view or filter change takes the focus back (else it falls to <body>).
  function keepingFocus(redraw) {
    const f = document.activeElement;
    const which = f && f.name && f.matches("#board-main .choice input, #board-main .choice select") ? [f.name, f.value, f.tagName] : null;
    redraw();
    if (!which) return;
    const [name, value, tag] = which;
    const same = tag === "SELECT" ? `select[name="${CSS.escape(name)}"]` : `input[name="${CSS.escape(name)}"][value="${CSS.escape(value)}"]`;
    root.querySelector(same)?.focus();
  }

  // One table per set of columns (benchmark, view, hidden groups, phone or not), kept once built:
  // changing the view shows the view's table, already drawn, instead of building its rows' cells
  // again (Tabulator rebuilds every cell when columns change: 1 s and more for 1,000 rows). The idle
  // browser builds the tables of the benchmark's other views and brings stale ones up to date (other
  // filters); a desktop table draws only the rows and columns in sight (virtual rendering), a phone's
  // a page of rows.
  const tables = new Map(); // columns key -> { table, host, ready, rowsKey, sortKey }
  const MAX_TABLES = 12;
  let shown = null; // the entry in the page

  function makeTable(columns, b) {
    const host = document.createElement("div");
    host.className = "board-grid";
    const grid = document.createElement("div");
    const pager = document.createElement("nav"); // outside the grid: a grid holds rows only (axe: aria-required-children)
    pager.className = "board-pager";
    pager.setAttribute("aria-label", "Pages of rows");
    host.append(grid, pager);
    el("board-idle").append(host); // in the page, so Tabulator measures what it builds, but never drawn
    const table = new Tabulator(grid, {
      layout: PHONE.matches ? "fitColumns" : "fitData",
      responsiveLayout: PHONE.matches ? "collapse" : false,
      responsiveLayoutCollapseStartOpen: false,
      nestedFieldSeparator: false,
      height: PHONE.matches ? false : "75vh", // a fixed height: the table's layouts stop at its box
      renderVertical: PHONE.matches ? "basic" : "virtual",
      // a phone's table (folded rows, no virtual rows) is drawn a page of rows at a time
      pagination: PHONE.matches, paginationSize: 50, paginationCounter: "rows", paginationButtonCount: 3,
      paginationElement: pager, paginationCounterElement: pager,
      rowFormatter: (row) => focusableRow(b, row),
      renderVerticalBuffer: 120, // rows drawn beyond those in sight, in px (Tabulator's default is a whole table's height more)
      renderHorizontal: PHONE.matches ? "basic" : "virtual", // only the columns in sight get cells
      columnDefaults: { headerSortTristate: false, headerWordWrap: true, vertAlign: "middle", tooltip: false },
      placeholder: "No rows match these filters.",
      autoResize: false, // moving a kept table into sight is no resize: the page redraws on a real one (wireControls)
      index: "row_id",
      data: [],
      columns,
    });
    const entry = { table, host, rowsKey: null, sortKey: null, width: window.innerWidth };
    entry.ready = new Promise((ok) => table.on("tableBuilt", ok));
    table.on("tableBuilt", () => keyboardReady(grid));
    host.addEventListener("keydown", (e) => onTableKey(e, table));
    table.on("rowClick", (e, row) => {
      if (e.target.closest("a, .tabulator-responsive-collapse-toggle, .collapse-toggle")) return;
      go({ model: row.getData().row_id });
    });
    table.on("dataSorted", (sorters) => {
      // a header click on the table shown (sorting never returns to "none" by a click); loading
      // data also reports its sort
      if (applyingSort || shown !== entry || !sorters.length) return;
      const sort = { key: sorters[0].field, dir: sorters[0].dir };
      entry.sortKey = JSON.stringify(sort);
      if (entry.sortKey !== JSON.stringify(state.sort)) go({ sort });
    });
    return entry;
  }

  const columnsKeyOf = (b, view, hide) => JSON.stringify([b.id, view.id, [...hide].sort(), PHONE.matches, NARROW.matches]);
  const sortOf = (view, s) => (s.sort && view.columns.some((c) => c.key === s.sort.key) ? s.sort : null);

  function forgetTables() {
    for (const entry of tables.values()) entry.table.destroy();
    tables.clear();
    shown = null;
    el("board-table").replaceChildren();
    el("board-idle").replaceChildren();
  }

  // The entry of these columns, built if new (the oldest other one goes past MAX_TABLES).
  async function tableFor(b, view, hide) {
    const key = columnsKeyOf(b, view, hide);
    let entry = tables.get(key);
    if (!entry) {
      entry = makeTable(columnDefs(b, view, hide, PHONE.matches, NARROW.matches && !PHONE.matches), b);
      tables.set(key, entry);
      if (tables.size > MAX_TABLES) {
        const [oldKey, old] = [...tables].find(([, e]) => e !== shown && e !== entry);
        old.table.destroy();
        tables.delete(oldKey);
      }
    } else {
      tables.delete(key);
      tables.set(key, entry); // most recently used last
    }
    await entry.ready;
    return entry;
  }

  // Give a table these rows in this sort. Tabulator loads rows into an empty table three times as
  // fast as it replaces loaded ones and sorts again when the sort is set after the rows, so an
  // update empties the table, sets the sort, then loads.
  function fill(entry, rows, rowsKey, sort) {
    entry.filling = (entry.filling || Promise.resolve()).then(() => loadRows(entry, rows, rowsKey, sort)); // one at a time
    return entry.filling;
  }
  async function loadRows(entry, rows, rowsKey, sort) {
    const sortKey = JSON.stringify(sort);
    if (entry.rowsKey === rowsKey && entry.sortKey === sortKey) return;
    applyingSort = true;
    try {
      if (entry.rowsKey === rowsKey) {
        if (sort) entry.table.setSort(sort.key, sort.dir); else entry.table.clearSort();
      } else {
        await entry.table.clearData();
        if (sort) entry.table.setSort(sort.key, sort.dir); else entry.table.clearSort();
        await entry.table.replaceData(rows);
      }
      entry.rowsKey = rowsKey;
      entry.sortKey = sortKey;
    } finally { applyingSort = false; }
  }

  // The table shown sits in #board-table; the others wait in #board-idle, which the browser keeps
  // laid out but never draws (content-visibility: hidden), so showing one is a move, not a rebuild.
  function show(entry) {
    el("first-screen")?.remove(); // the baked first screen (ui/first_screen.py) gives way in this frame
    if (shown === entry) return;
    if (shown) el("board-idle").append(shown.host);
    el("board-table").append(entry.host);
    shown = entry;
    if (entry.width !== window.innerWidth) redraw(entry); // the window was resized since it was drawn
  }

  // Tabulator's own resize watch is off (autoResize: false) because it also fires when a kept table
  // moves into sight; a real resize redraws the table shown, and the others when they are shown.
  function redraw(entry) {
    entry.width = window.innerWidth;
    entry.table.redraw();
  }

  const rowsKeyOf = (b, s) => JSON.stringify([DATA.version, b.id, s.filters, s.q.trim()]);

  async function drawTable(b, view, rows, isLatest) {
    const entry = await tableFor(b, view, state.hide);
    await fill(entry, rows, rowsKeyOf(b, state), sortOf(view, state));
    if (!isLatest()) return; // a later click draws its own view
    show(entry);
    idleWork(b, rows);
  }

  // While the visitor reads, the benchmark's other views get their tables, with the rows shown.
  let idleToken = 0;
  // The rows are those just drawn: any change of state renders again and starts a new token.
  function idleWork(b, rows) {
    const token = ++idleToken;
    const s = state, rowsKey = rowsKeyOf(b, s);
    const later = window.requestIdleCallback || ((fn) => setTimeout(fn, 200));
    const step = async () => {
      if (token !== idleToken) return; // the visitor moved on: the next render plans again
      const view = b.views.find((v) => {
        const entry = tables.get(columnsKeyOf(b, v, s.hide));
        return !entry || entry.rowsKey !== rowsKey;
      });
      if (!view || s.model || s.bench !== b.id) return;
      const entry = await tableFor(b, view, s.hide);
      if (token !== idleToken) return;
      await fill(entry, rows, rowsKey, sortOf(view, { ...s, sort: view.id === s.view ? s.sort : null }));
      later(step, { timeout: 2000 });
    };
    later(step, { timeout: 2000 });
  }

  // ------------------------------------------------------------------ controls
  function radio(name, items, current) {
    return items.map(([value, label]) => `<label class="chip${value === current ? " on" : ""}"><input type="radio" name="${name}" value="${esc(value)}"${value === current ? " checked" : ""}>${esc(label)}</label>`).join("");
  }
  function boxes(name, items, ticked) {
    return items.map(([value, label]) => `<label class="chip${ticked.includes(value) ? " on" : ""}"><input type="checkbox" name="${name}" value="${esc(value)}"${ticked.includes(value) ? " checked" : ""}>${esc(label)}</label>`).join("");
  }
  const checked = (name) => [...root.querySelectorAll(`input[name="${name}"]:checked`)].map((i) => i.value);
  // a declared filter's control (ui/board_data.py filter_data): its label, then its boxes or its list
  function filterControl(f) {
    const v = state.filters[f.param];
    const label = `<span class="choice-label" id="${esc(f.id)}-label">${esc(f.label)}</span>`;
    if (f.type !== "dropdown") return `${label}<span id="${esc(f.id)}" class="choice" role="group" aria-labelledby="${esc(f.id)}-label">${boxes(f.param, f.choices, v)}</span>`;
    const options = [["", "All"], ...f.choices].map(([value, text]) => `<option value="${esc(value)}"${value === v ? " selected" : ""}>${esc(text)}</option>`).join("");
    return `${label}<span class="choice"><select id="${esc(f.id)}" name="${esc(f.param)}" aria-labelledby="${esc(f.id)}-label">${options}</select></span>`;
  }

  const DATE_KEY = "submitted"; // leaderboard/columns.py: the Submitted column
  const newestFirst = (s) => Boolean(s.sort && s.sort.key === DATE_KEY && s.sort.dir === "desc");
  function drawControls(b, view) { keepingFocus(() => drawControlsNow(b, view)); }
  function drawControlsNow(b, view) {
    el("bench-tabs").innerHTML = DATA.benchmarks.map((x) => `<a href="${esc(searchOf({ ...stateFrom(""), bench: x.id }))}" data-bench="${esc(x.id)}" class="bench-tab${x.id === b.id ? " on" : ""}"${x.id === b.id ? ' aria-current="page"' : ""}>${esc(x.name)}</a>`).join("");
    el("bench-about").innerHTML = `${esc(b.description)} <em>${esc(b.paper)}.</em>`;
    el("view-choice").innerHTML = radio("view", b.views.map((v) => [v.id, v.label]), view.id);
    el("filters-list").innerHTML = DATA.filters.map(filterControl).join("");
    el("focus-choice").innerHTML = window.lbFocus.controls(b, state);
    const groups = groupsOf(view);
    el("columns-choice").innerHTML = boxes("show", groups.map((g) => [g, g]), groups.filter((g) => !state.hide.includes(g)));
    el("columns-count").textContent = `${groups.filter((g) => !state.hide.includes(g)).length} of ${groups.length} groups shown`;
    const q = el("query");
    if (document.activeElement !== q) q.value = state.q;
    const byDate = view.columns.some((c) => c.key === DATE_KEY);
    el("newest").hidden = !byDate;
    el("newest").setAttribute("aria-pressed", String(newestFirst(state)));
  }

  function wireControls() {
    el("bench-tabs").addEventListener("click", (e) => {
      const a = e.target.closest("a[data-bench]");
      if (!a || e.metaKey || e.ctrlKey) return;
      e.preventDefault();
      go({ ...stateFrom(""), bench: a.dataset.bench });
    });
    root.addEventListener("change", (e) => {
      const n = e.target.name;
      const focus = window.lbFocus.changed(BENCHES[state.bench], state, n, e.target.value);
      if (focus) go(focus);
      else if (n === "view") go({ view: e.target.value, sort: null });
      else if (FILTERS[n]) go({ filters: { ...state.filters, [n]: FILTERS[n].type === "dropdown" ? e.target.value : checked(n) } });
      else if (n === "show") {
        const groups = groupsOf(viewOf(BENCHES[state.bench], state.view));
        const shown = checked("show");
        go({ hide: [...state.hide.filter((g) => !groups.includes(g)), ...groups.filter((g) => !shown.includes(g))] });
      }
    });
    let typing = null, lastWasQuery = false;
    el("query").addEventListener("input", (e) => {
      clearTimeout(typing);
      typing = setTimeout(() => { go({ q: e.target.value }, { replace: lastWasQuery }); lastWasQuery = true; }, 200);
    });
    el("query").addEventListener("blur", () => { lastWasQuery = false; });
    const copyLink = async (e) => {
      const url = window.location.href;
      try { await navigator.clipboard.writeText(url); e.target.textContent = "Link copied"; setTimeout(() => { e.target.textContent = "Copy link"; }, 1500); }
      catch { window.prompt("Copy this link", url); }
    };
    const download = () => { if (shown) shown.table.download("csv", `${state.bench}-${state.view}.csv`); };
    for (const id of ["copy-link", "copy-link-2"]) el(id).addEventListener("click", copyLink);
    el("newest").addEventListener("click", () => go({ sort: newestFirst(state) ? null : { key: DATE_KEY, dir: "desc" } }));
    for (const id of ["download-csv", "download-csv-2"]) el(id).addEventListener("click", download);
    el("focus-table").addEventListener("click", (e) => {
      const a = e.target.closest("a[data-model]");
      if (a && !e.metaKey && !e.ctrlKey) { e.preventDefault(); go({ model: a.dataset.model }); }
    });
    el("model-back").addEventListener("click", (e) => { e.preventDefault(); if (fromHere > 0) history.back(); else go({ model: null }); });
    PHONE.addEventListener("change", () => { forgetTables(); render(); });
    NARROW.addEventListener("change", () => { forgetTables(); render(); });
    el("skip-link").addEventListener("click", (e) => { e.preventDefault(); focusFirstRow(); });
    let resizing = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => { if (shown && shown.width !== window.innerWidth) redraw(shown); }, 150);
    });
  }

  // ------------------------------------------------------------------ the model page
  // A grouping's lines for a row: each group's label, question count, figures as shown, the primary
  // figure and the row's place by it among the board's rows (1 + rows with a better figure; ties
  // share; only the figures the board shows, so nothing the board does not already say).
  function groupLines(b, g, row) {
    const cols = viewOf(b, g.name).columns.filter((c) => c.figure && c.figure[0] === g.name);
    return g.labels.map((label) => {
      const mine = cols.filter((c) => c.figure[1] === label);
      const ci = ((row._group_ci || {})[g.name] || {})[label] || {}; // ui/board_data.py group_intervals
      const cells = mine.map((c) => ({ metric: b.metrics.find((m) => m.name === c.figure[2]) || { name: c.figure[2], label: c.figure[2], decimals: c.decimals }, value: row[c.key], ci: ci[c.figure[2]] }));
      const primary = mine.find((c) => `overall.${c.figure[2]}` === b.primary.key);
      const v = primary ? row[primary.key] : null;
      let place = null;
      if (primary && !missing(v)) {
        const all = b.rows.map((r) => r[primary.key]).filter((x) => !missing(x));
        const better = (x) => (b.primary.higher ? x > v : x < v);
        place = { best: 1 + all.filter(better).length, worst: all.filter((x) => better(x) || x === v).length, of: all.length };
      }
      return { label: mine.length ? mine[0].group : label, n: (b.sizes[g.name] || {})[label], cells, primary: v, place };
    });
  }

  // The model page's figures as a CSV file: overall (with the interval as the board shows it) and per group.
  function modelCsv(b, row) {
    const overall = viewOf(b, "overall").columns;
    const q = (v) => { const t = String(csvSafe(v ?? "")); return /[",\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t; };
    const lines = [["benchmark", "model", "team", "source", "grouping", "group", "questions", "metric", "value", "± (95% interval)", "place"]];
    for (const m of b.metrics) {
      const c = overall.find((x) => x.figure && x.figure[0] === "overall" && x.figure[1] === null && x.figure[2] === m.name);
      if (!c || missing(row[c.key])) continue;
      lines.push([b.id, row.model, row.team, row.source, "overall", "", b.gold_questions ?? "", m.label, fmt(row[c.key], m.decimals), c.ci && !missing(row[c.ci]) ? fmt(row[c.ci], m.decimals) : "", rankText(row)]);
    }
    for (const g of b.groupings) {
      for (const l of groupLines(b, g, row)) {
        for (const c of l.cells) {
          if (missing(c.value)) continue;
          const isPrimary = `overall.${c.metric.name}` === b.primary.key && l.place;
          const place = isPrimary ? (l.place.best === l.place.worst ? `${l.place.best}` : `${l.place.best}–${l.place.worst}`) : "";
          lines.push([b.id, row.model, row.team, row.source, g.label, l.label, l.n ?? "", c.metric.label, fmt(c.value, c.metric.decimals), missing(c.ci) ? "" : fmt(c.ci, c.metric.decimals), place]);
        }
      }
    }
    return lines.map((line) => line.map(q).join(",")).join("\r\n") + "\r\n";
  }
  function downloadModel(b, row) {
    const blob = new Blob([modelCsv(b, row)], { type: "text/csv;charset=utf-8" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = `${b.id}-${row.row_id}.csv`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  // A group's primary figure as a bar on a 0-100 track with quarter marks, its 95% interval as a
  // line across it and the figure at its end; it repeats the figures beside it, so screen readers skip it.
  function groupBar(b, l) {
    if (missing(l.primary)) return "-";
    const clamp = (v) => Math.max(0, Math.min(100, v));
    const c = l.cells.find((x) => `overall.${x.metric.name}` === b.primary.key);
    let ci = "";
    if (c && !missing(c.ci)) {
      const lo = clamp(l.primary - c.ci), hi = clamp(l.primary + c.ci);
      ci = `<span class="bar-ci" style="left:${lo.toFixed(1)}%;width:${(hi - lo).toFixed(1)}%"></span>`;
    }
    return `<span class="bar-box" aria-hidden="true"><span class="bar-track"><span class="bar" style="width:${clamp(l.primary).toFixed(1)}%"></span>${ci}</span>` +
      `<span class="bar-value">${fmt(l.primary, c ? c.metric.decimals : 2)}</span></span>`;
  }

  function modelPage(b, row) {
    const overall = viewOf(b, "overall").columns;
    const ciOf = Object.fromEntries(overall.filter((c) => c.ci).map((c) => [c.key, c.ci]));
    const rowLinks = links(row);
    const facts = (row._facts || []).map(([label, text, u]) => `<b>${esc(label)}</b> ${u ? link(u, text) : `<code>${esc(text)}</code>`}`).join(" · ");
    const metrics = b.metrics.map((m) => {
      const key = overall.find((c) => c.figure && c.figure[0] === "overall" && c.figure[1] === null && c.figure[2] === m.name);
      const v = key ? row[key.key] : null;
      return `<tr><th>${esc(m.label)}</th><td>${fmtCi(v, key && ciOf[key.key] ? row[ciOf[key.key]] : null, m.decimals)}</td><td>${esc(m.about)}</td></tr>`;
    }).join("");
    const groups = b.groupings.map((g) => {
      const lines = groupLines(b, g, row);
      const metricNames = [...new Set(lines.flatMap((l) => l.cells.map((c) => c.metric.name)))];
      const heads = metricNames.map((n) => `<th>${esc((b.metrics.find((m) => m.name === n) || { label: n }).label)}</th>`).join("");
      const body = lines.map((l) => {
        const cells = metricNames.map((name) => { const c = l.cells.find((x) => x.metric.name === name); return `<td>${c ? fmtCi(c.value, c.ci, c.metric.decimals) : "-"}</td>`; }).join("");
        const bar = groupBar(b, l);
        const place = l.place ? `${l.place.best === l.place.worst ? l.place.best : `${l.place.best}–${l.place.worst}`} of ${l.place.of}` : "-";
        // a phone draws the bar under the group's name (the bar column would sit off screen)
        return `<tr><th>${esc(l.label)}<span class="bar-under">${bar}</span></th><td>${missing(l.n) ? "-" : l.n.toLocaleString("en")}</td>${cells}<td class="place">${place}</td><td class="bar-cell">${bar}</td></tr>`;
      }).join("");
      const scale = `${esc(b.primary.label)} <span class="bar-scale">0–100, line: 95% interval</span>`;
      return `<h3>By ${esc(g.label.toLowerCase())}</h3><div class="scroll-x" tabindex="0" role="region" aria-label="${esc(row.model)} by ${esc(g.label.toLowerCase())}"><table class="model-table"><thead><tr><th>${esc(g.label)}</th><th>Questions</th>${heads}<th title="${esc(b.primary.label)}: the row's place among the board's rows with this figure (ties share it)">Place</th><th class="bar-cell">${scale}</th></tr></thead><tbody>${body}</tbody></table></div>`;
    }).join("");
    const twins = (row._twins || []).map((id) => b.rows.find((r) => r.row_id === id)).filter(Boolean);
    const twinLinks = twins.map((t) => `<a href="${esc(searchOf({ ...state, model: t.row_id }))}" data-model="${esc(t.row_id)}">${esc(t.model)} (${esc(t.source)})</a>`).join(", ");
    return `<h2>${lenientMark(row)}${esc(row.model)}</h2>
      <p class="model-facts">${esc(row.team)} · ${typeBadge(row.model_type)} · ${esc(row.source)} · rank ${esc(rankText(row))} of ${b.rows.length} on ${esc(b.name)}${row.submitted ? ` · submitted ${esc(row.submitted)}${newTag(row)}` : ""}${rowLinks ? ` · ${rowLinks}` : ""}</p>
      ${facts ? `<p class="model-facts hub-facts">${facts}</p>` : ""}
      ${twinLinks ? `<p class="model-facts" id="model-twins">The same model on this board: ${twinLinks}.</p>` : ""}
      <table class="model-table"><thead><tr><th>Metric</th><th>Value ± 95% interval</th><th>What it is</th></tr></thead><tbody>${metrics}</tbody></table>${groups}
      <p class="model-facts"><button type="button" id="model-download">Download these figures (CSV)</button></p>
      <p class="model-facts">Compare it with other models: <a href="?${esc(new URLSearchParams({ bench: b.id, compare: row.row_id }).toString())}">Compare</a>.</p>
      ${row._hub_file ? `<p class="model-facts" id="model-hub-file">On the model's Hub page: <a href="${esc(row._hub_file)}" download>its .eval_results file</a> (Hugging Face Eval Results; the team can open the pull request from My submissions).</p>` : ""}`;
  }

  // ------------------------------------------------------------------ the charts
  // The plots are built once per data change (ui/board_data.py plots_html); each point and heatmap
  // row carries its table row's key (data-row). The charts follow the rows the filters keep by
  // hiding the others' marks, and a point tapped, clicked or focused shows its details in the panel
  // under its chart (aria-live: read out), so nothing needs hover.
  const SHOWN_OUT = "filtered-out";
  let chartRows = []; // the rows kept, ranked among themselves as the table ranks them
  function followFilters(b, rows) {
    chartRows = rows;
    const keep = new Set(rows.map((r) => r.row_id));
    for (const mark of el("plots").querySelectorAll("[data-row]")) mark.classList.toggle(SHOWN_OUT, !keep.has(mark.dataset.row));
    for (const scatter of el("plots").querySelectorAll(".board-scatter")) scatterFollows(scatter, rows);
    for (const heat of el("plots").querySelectorAll("table.heatmap")) heatmapFollows(heat, keep, rows.length);
  }
  function scatterFollows(scatter, rows) {
    const svg = scatter.querySelector(".scatter-svg");
    const plotted = new Set(svg ? [...svg.querySelectorAll("g.point")].map((g) => g.dataset.row) : []);
    const onChart = rows.filter((r) => plotted.has(r.row_id));
    const note = el(`${scatter.id}-note`);
    const leftOut = rows.filter((r) => !plotted.has(r.row_id)).map((r) => r.model);
    note.textContent = `${onChart.length} of ${rows.length} rows plotted.` + (leftOut.length ? ` Not plotted (${note.dataset.why}): ${leftOut.join(", ")}.` : "");
    // each layout's count of the points it shows and labels (a label left out for room stays out)
    for (const count of scatter.querySelectorAll(".scatter-count")) {
      const layout = scatter.querySelector(`svg.${count.classList.contains("scatter-narrow") ? "scatter-narrow" : "scatter-wide"}`);
      const visible = shownPoints(layout);
      const named = new Set([...layout.querySelectorAll(`text.label:not(.${SHOWN_OUT})`)].map((t) => t.dataset.row));
      const labelled = visible.filter((g) => named.has(g.dataset.row)).length;
      const all = labelled === visible.length;
      const labels = visible.length === 1 ? (all ? "labelled" : "not labelled") : `${all ? "all" : labelled} labelled`;
      count.textContent = `${visible.length} ${visible.length === 1 ? "point" : "points"} shown, ${labels}` +
        `${all ? "" : " (a label with no room in the whole chart stays out)"}; tap, click or focus a point for its figures.`;
    }
    const picked = scatter.querySelector("g.point.picked");
    if (picked && picked.classList.contains(SHOWN_OUT)) clearDetails(scatter);
    for (const svg of scatter.querySelectorAll(".scatter-svg")) rovingStop(svg);
  }
  // A heatmap holds the board's top rows (ui/display.py heatmap_html): it shows the first data-shown of those kept.
  function heatmapFollows(heat, keep, kept) {
    const note = heat.parentElement.querySelector(".heat-note");
    const most = Number(note?.dataset.shown || Infinity);
    let shownRows = 0, held = 0;
    for (const tr of heat.tBodies[0].rows) {
      const on = keep.has(tr.dataset.row);
      held += on ? 1 : 0;
      tr.hidden = !(on && shownRows < most);
      if (!tr.hidden) shownRows += 1;
    }
    if (!note) return;
    note.textContent = `${shownRows} of ${kept} rows shown` + (shownRows < held ? ` (the first ${most})` : "") +
      (held < kept ? `; the heatmap holds the board's top ${note.dataset.held} rows only` : "") + ".";
  }

  // One tab stop per chart (a thousand points are not a thousand Tabs): the picked point, else the
  // first one shown; the arrow keys, Home and End move among the points shown, in rank order.
  const shownPoints = (svg) => [...svg.querySelectorAll(`g.point:not(.${SHOWN_OUT})`)];
  function rovingStop(svg, current) {
    const points = shownPoints(svg);
    const stop = current || points.find((g) => g.classList.contains("picked")) || points[0];
    for (const g of svg.querySelectorAll("g.point")) g.tabIndex = g === stop ? 0 : -1;
  }
  const STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  function movePoint(g, key) {
    const svg = g.closest(".scatter-svg"), points = shownPoints(svg), i = points.indexOf(g);
    const next = key === "Home" ? points[0] : key === "End" ? points[points.length - 1] : points[i + STEPS[key]];
    if (!next) return;
    rovingStop(svg, next);
    next.focus();
  }

  function clearDetails(scatter) {
    scatter.querySelector("g.point.picked")?.classList.remove("picked");
    const panel = el(`${scatter.id}-details`);
    if (panel) panel.innerHTML = `<p class="point-hint">${esc(panel.dataset.hint)}</p>`;
  }
  function showPoint(g) {
    const scatter = g.closest(".board-scatter");
    const b = BENCHES[state.bench];
    const row = chartRows.find((r) => r.row_id === g.dataset.row); // a point shown is a row kept
    const panel = scatter && el(`${scatter.id}-details`);
    if (!row || !panel) return;
    for (const other of scatter.querySelectorAll("g.point.picked")) other.classList.remove("picked");
    g.classList.add("picked");
    rovingStop(g.closest(".scatter-svg"), g);
    const overall = viewOf(b, "overall").columns;
    const figure = (axis) => {
      const key = scatter.dataset[`${axis}Key`], c = overall.find((x) => x.key === key);
      return `${esc(scatter.dataset[`${axis}Label`])} <b>${fmtCi(row[key], c && c.ci ? row[c.ci] : null, c ? c.decimals : 2)}</b>`;
    };
    const href = searchOf({ ...state, model: row.row_id });
    panel.innerHTML = `<p><b>${lenientMark(row)}${esc(row.model)}</b> · ${esc(row.team)} · ${esc(row.source)}</p>` +
      `<p>${figure("y")} · ${figure("x")} · rank ${esc(rankText(row))} of ${chartRows.length}</p>` +
      `<p><a href="${esc(href)}" data-model="${esc(row.row_id)}">Open the model page of ${esc(row.model)}</a></p>`;
  }
  function wireCharts() {
    const plots = el("plots");
    const pointOf = (e) => e.target.closest && e.target.closest("g.point");
    plots.addEventListener("click", (e) => {
      const a = e.target.closest("a[data-model]");
      if (a && !e.metaKey && !e.ctrlKey) { e.preventDefault(); go({ model: a.dataset.model }); return; }
      const head = e.target.closest("a[data-focus]"); // a heatmap column's group (ui/display.py group_links)
      if (head && !e.metaKey && !e.ctrlKey) {
        e.preventDefault();
        go({ focus: head.dataset.focus, metric: head.dataset.metric, model: null });
        el("focus-table").scrollIntoView({ block: "start" });
        el("focus-caption")?.closest(".focus-wrap")?.focus();
        return;
      }
      const g = pointOf(e);
      if (g) showPoint(g);
    });
    plots.addEventListener("focusin", (e) => { const g = pointOf(e); if (g) showPoint(g); });
    plots.addEventListener("keydown", (e) => {
      const g = pointOf(e);
      if (!g) return;
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); showPoint(g); }
      else if (e.key in STEPS || e.key === "Home" || e.key === "End") { e.preventDefault(); movePoint(g, e.key); }
    });
  }

  // ------------------------------------------------------------------ a group focus (ui/static/focus.js)
  function drawFocus(b, rows) {
    el("focus-table").innerHTML = window.lbFocus.table(b, state, rows, {
      ranked, paperSource: DATA.paper_source, modelHref: (id) => searchOf({ ...state, model: id }),
    });
  }

  // ------------------------------------------------------------------ render
  let drawn = 0, plotsShown = null;
  let renders = 0, opened = null; // the row whose model page is open (focus returns to it)
  async function render() {
    const mine = ++renders;
    const b = BENCHES[state.bench];
    const view = viewOf(b, state.view);
    drawControls(b, view);
    const all = ranked(b, b.rows);
    const modelRow = state.model ? all.find((r) => r.row_id === state.model) : null;
    el("model-page").hidden = !modelRow;
    el("board-main").hidden = Boolean(modelRow);
    document.title = modelRow ? `${modelRow.model} · ${b.name}` : `${b.name} · Cultural VLM Leaderboard`;
    const back = !modelRow && opened ? opened : null;
    opened = modelRow ? modelRow.row_id : null;
    if (modelRow) {
      el("model-body").innerHTML = modelPage(b, modelRow);
      const heading = el("model-body").querySelector("h2");
      heading.tabIndex = -1; // focus moves to the page's heading, so a screen reader starts there
      heading.focus({ preventScroll: true });
      el("model-download").addEventListener("click", () => downloadModel(b, modelRow));
      for (const a of el("model-body").querySelectorAll("a[data-model]")) {
        a.addEventListener("click", (e) => { if (e.metaKey || e.ctrlKey) return; e.preventDefault(); go({ model: a.dataset.model }); });
      }
      window.scrollTo(0, 0);
    } else {
      const rows = ranked(b, kept(b, state));
      let note = "";
      if (!b.has_gold) note += ` No gold is loaded for ${esc(b.name)} yet: only the papers' published rows are shown.`;
      if (!b.rows.length) note += ` ${DATA.empty_board}`;
      else if (!rows.length) note += " No rows match these filters.";
      el("summary").innerHTML = `Showing ${rows.length} of ${b.rows.length} rows${b.gold_questions ? ` · gold: ${b.gold_questions.toLocaleString("en")} questions` : ""}.${note}`;
      el("context").textContent = b.context;
      if (plotsShown !== b.plots) { el("plots").innerHTML = b.plots; plotsShown = b.plots; } // the bench's, not the view's
      followFilters(b, rows);
      el("focus-table").hidden = !state.focus;
      el("board-table").hidden = Boolean(state.focus);
      if (state.focus) drawFocus(b, rows);
      else await drawTable(b, view, rows, () => mine === renders);
      if (back && mine === renders) await focusRow(back);
    }
    if (modelRow || state.focus) el("first-screen")?.remove();
    drawn += 1;
    root.dataset.drawn = String(drawn); // the first reveals the board (board.css: no jumps while loading)
    root.dataset.state = searchOf(state);
  }

  // New results reach an open page: every refresh_seconds it asks for the bake's version (a few
  // bytes) and, when it moved, fetches the page again and redraws the same view from its data.
  const DATA_RE = /<script type="application\/json" id="board-data">([\s\S]*?)<\/script>/;
  setInterval(async () => {
    try {
      const answer = await fetch("board-version", { cache: "no-store" });
      if (!answer.ok || (await answer.json()).version === DATA.version) return;
      const found = DATA_RE.exec(await (await fetch("./", { cache: "no-cache" })).text());
      // the state again from the address: a filter's choices may have grown (a value the rows now
      // have), and an address without the filter keeps every value, the new one too
      if (found) { load(found[1]); state = stateFrom(window.location.search); forgetTables(); render(); }
    } catch (err) { /* offline for a moment: the next tick tries again */ }
  }, 1000 * DATA.refresh_seconds);
  if (!PHONE.matches) el("filters-box").open = true;
  wireControls();
  wireCharts();
  render();
})();
