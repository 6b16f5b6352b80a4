// AttentionExplorer front end (course_lib/widgets/attention.py). Chapters 7, 8.
// A dependency-free ES module (no imports; only model.get/set/on/off/save_changes), so the
// same file runs under anywidget (live) and the book's stand-in model (html). The grid is
// js/heatmap.js's, extended with a sentence selector, a map selector and the candidates.
// Traits read: examples [{name, source, target, map_names, maps, candidates, note}], index,
// map_index, candidate, title, value_range, can_translate, error, _kernel.
// Written: index, map_index, candidate, request.

// matplotlib's viridis sampled at 0, 0.1, ..., 1 (as in heatmap.js).
const VIRIDIS = [
  [68, 1, 84], [72, 36, 117], [65, 68, 135], [53, 95, 141], [42, 120, 142],
  [33, 145, 140], [34, 168, 132], [68, 191, 112], [122, 209, 81], [189, 223, 38],
  [253, 231, 37],
];

function colour(value, lo, hi) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "#d0d0d0";
  const t = Math.min(1, Math.max(0, (value - lo) / (hi - lo || 1))) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(t));
  const f = t - i;
  const rgb = VIRIDIS[i].map((a, k) => Math.round(a + f * (VIRIDIS[i + 1][k] - a)));
  return `rgb(${rgb.join(",")})`;
}

const CSS = `
.cw-at { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #1f2328; background: #fff; padding: 8px; display: inline-block;
  max-width: 100%; box-sizing: border-box; border: 1px solid #d8dee4; border-radius: 6px; }
.cw-at * { box-sizing: border-box; }
.cw-at[data-kernel="false"] [data-kernel-only] { display: none; }
.cw-at-title { font-weight: 600; margin-bottom: 4px; }
.cw-at-controls { display: flex; align-items: center; gap: 6px; margin-bottom: 6px;
  flex-wrap: wrap; }
.cw-at button, .cw-at select, .cw-at input[type=text] { font: inherit; padding: 0 6px;
  border: 1px solid #8c959f; border-radius: 4px; background: #f6f8fa; color: #1f2328; }
.cw-at button { cursor: pointer; }
.cw-at button:disabled { opacity: 0.4; cursor: default; }
.cw-at select { max-width: 22em; }
.cw-at :focus-visible { outline: 2px solid #0969da; outline-offset: 2px; }
.cw-at-scroll { overflow-x: auto; max-width: 100%; }
.cw-at-grid { display: inline-grid; gap: 1px; padding: 2px; }
.cw-at-row, .cw-at-col { color: #57606a; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; font-size: 12px; }
.cw-at-row { text-align: right; padding-right: 6px; align-self: center; max-width: 12em; }
.cw-at-col { writing-mode: vertical-rl; transform: rotate(180deg); justify-self: center;
  padding-top: 4px; max-height: 9em; }
.cw-at-row.cw-hl, .cw-at-col.cw-hl { color: #1f2328; font-weight: 700; }
.cw-at-grid.cw-hovering .cw-at-cell:not(.cw-hl) { opacity: 0.45; }
.cw-at-cell.cw-cursor { box-shadow: inset 0 0 0 2px #fff, 0 0 0 1px #1f2328; }
.cw-at-readout { margin-top: 6px; min-height: 1.4em; font-variant-numeric: tabular-nums; }
.cw-at-note { color: #57606a; font-size: 12px; }
.cw-at-legend { display: flex; align-items: center; gap: 6px; margin-top: 4px;
  font-size: 12px; color: #57606a; font-variant-numeric: tabular-nums; }
.cw-at-ramp { width: 160px; height: 10px; border: 1px solid #d8dee4; }
.cw-at-cands { margin-top: 6px; border-collapse: collapse; font-size: 12px; }
.cw-at-cands td, .cw-at-cands th { padding: 1px 6px; text-align: left; }
.cw-at-cands th { color: #57606a; font-weight: 600; }
.cw-at-cands td.num { text-align: right; font-variant-numeric: tabular-nums; }
.cw-at-cands tr.cw-on td { background: #ddf4ff; font-weight: 600; }
.cw-at-cands button { border: none; background: none; padding: 0; text-align: left;
  cursor: pointer; color: #0969da; }
.cw-at-ask { margin-top: 6px; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.cw-at-ask input { width: 22em; }
.cw-at-error { color: #c62828; }
`;

let counter = 0;

function make(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function control(node) {
  node.setAttribute("data-lm-suppress-shortcuts", "true"); // JupyterLab: keep arrow keys
  return node;
}

function button(text, label) {
  const b = control(make("button", null, text));
  b.type = "button";
  if (label) b.setAttribute("aria-label", label);
  return b;
}

function render({ model, el }) {
  const uid = `cw-at-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const root = make("div", "cw-at");
  root.setAttribute("role", "group");
  root.append(make("style", null, CSS));
  const title = make("div", "cw-at-title");
  const controls = make("div", "cw-at-controls");
  const pickLabel = make("label", null, "Sentence");
  const pick = control(make("select"));
  pick.id = `${uid}-sentence`;
  pickLabel.htmlFor = pick.id;
  const mapLabel = make("label", null, "Map");
  const prev = button("◀", "previous map");
  const maps = control(make("select"));
  maps.id = `${uid}-map`;
  mapLabel.htmlFor = maps.id;
  const next = button("▶", "next map");
  controls.append(pickLabel, pick, mapLabel, prev, maps, next);
  const scroll = make("div", "cw-at-scroll");
  const grid = control(make("div", "cw-at-grid"));
  grid.tabIndex = 0;
  grid.setAttribute("aria-describedby", `${uid}-readout`);
  scroll.append(grid);
  const readout = make("div", "cw-at-readout");
  readout.id = `${uid}-readout`;
  readout.setAttribute("aria-live", "polite");
  const note = make("div", "cw-at-note");
  const legend = make("div", "cw-at-legend");
  const lo = make("span");
  const ramp = make("span", "cw-at-ramp");
  ramp.style.background = `linear-gradient(to right, ${VIRIDIS.map(
    (c) => `rgb(${c.join(",")})`,
  ).join(", ")})`;
  const hi = make("span");
  legend.append(lo, ramp, hi);
  const cands = make("table", "cw-at-cands");
  const ask = make("form", "cw-at-ask");
  ask.setAttribute("data-kernel-only", "");
  const text = control(make("input"));
  text.type = "text";
  text.placeholder = "type a sentence to translate";
  text.setAttribute("aria-label", "a new source sentence");
  const go = control(make("button", null, "translate"));
  go.type = "submit";
  const error = make("span", "cw-at-error");
  error.setAttribute("aria-live", "polite");
  ask.append(text, go, error);
  root.append(title, controls, scroll, readout, note, legend, cands, ask);
  el.append(root);

  let cells = [];
  let rowHeads = [];
  let colHeads = [];
  let cursor = null;
  const HINT = "Hover over a cell, or focus the grid and use the arrow keys.";

  function example() {
    const all = model.get("examples") || [];
    const i = Math.min(Math.max(0, model.get("index") | 0), Math.max(0, all.length - 1));
    return all[i] || { source: [], target: [], map_names: [], maps: [], candidates: [] };
  }

  function view() {
    const ex = example();
    const k = model.get("candidate") | 0;
    const cand = k >= 0 ? (ex.candidates || [])[k] : null;
    if (cand && cand.maps) return { target: cand.tokens, maps: cand.maps, ex };
    return { target: ex.target, maps: ex.maps, ex };
  }

  function mapIndex() {
    const n = (example().map_names || []).length;
    return Math.min(Math.max(0, model.get("map_index") | 0), Math.max(0, n - 1));
  }

  function format(v) {
    return v === null || v === undefined ? "n/a" : String(v);
  }

  function highlight(on) {
    if (!cursor) return;
    const [r, c] = cursor;
    const toggle = (node) => node && node.classList.toggle("cw-hl", on);
    toggle(rowHeads[r]);
    toggle(colHeads[c]);
    (cells[r] || []).forEach(toggle);
    cells.forEach((row) => toggle(row[c]));
    if (cells[r] && cells[r][c]) cells[r][c].classList.toggle("cw-cursor", on);
    grid.classList.toggle("cw-hovering", on);
  }

  function showReadout() {
    if (!cursor) {
      readout.textContent = HINT;
      return;
    }
    const [r, c] = cursor;
    const v = view();
    const m = v.maps[mapIndex()] || [];
    const value = (m[r] || [])[c];
    readout.textContent = `${v.target[r]} ← ${v.ex.source[c]} = ${format(value)}`;
  }

  function setCursor(nextCursor) {
    highlight(false);
    cursor = nextCursor;
    highlight(true);
    showReadout();
  }

  function paint() {
    const v = view();
    const m = v.maps[mapIndex()] || [];
    const [vlo, vhi] = model.get("value_range") || [0, 1];
    cells.forEach((row, r) =>
      row.forEach((cell, c) => {
        cell.style.background = colour((m[r] || [])[c], vlo, vhi);
      }),
    );
    const names = v.ex.map_names || [];
    maps.value = String(mapIndex());
    prev.disabled = mapIndex() <= 0;
    next.disabled = mapIndex() >= names.length - 1;
    showReadout();
  }

  function buildCandidates() {
    const ex = example();
    const list = ex.candidates || [];
    cands.replaceChildren();
    cands.hidden = list.length === 0;
    if (!list.length) return;
    const head = make("tr");
    ["#", "candidate", "score", "log P"].forEach((h) => head.append(make("th", null, h)));
    cands.append(head);
    const chosen = model.get("candidate") | 0;
    list.forEach((c, k) => {
      const row = make("tr");
      if (k === chosen) row.classList.add("cw-on");
      const show = button(c.tokens.join(" "), `show candidate ${k + 1}`);
      show.disabled = !c.maps;
      show.addEventListener("click", () => setCandidate(k));
      const cell = make("td");
      cell.append(show);
      row.append(
        make("td", "num", String(k + 1)),
        cell,
        make("td", "num", format(c.score)),
        make("td", "num", format(c.log_prob)),
      );
      row.dataset.k = String(k);
      cands.append(row);
    });
  }

  function build() {
    highlight(false);
    cursor = null;
    const all = model.get("examples") || [];
    const v = view();
    const ex = v.ex;
    root.setAttribute("data-kernel", model.get("_kernel") === false ? "false" : "true");
    ask.hidden = !model.get("can_translate");
    error.textContent = model.get("error") || "";
    title.textContent = model.get("title") || "";
    title.hidden = !title.textContent;
    root.setAttribute("aria-label", title.textContent || "attention");
    pick.replaceChildren(
      ...all.map((e, i) => {
        const o = make("option", null, e.name);
        o.value = String(i);
        return o;
      }),
    );
    pick.value = String(Math.min(Math.max(0, model.get("index") | 0), all.length - 1));
    pick.hidden = pickLabel.hidden = all.length <= 1;
    const names = ex.map_names || [];
    maps.replaceChildren(
      ...names.map((n, i) => {
        const o = make("option", null, n);
        o.value = String(i);
        return o;
      }),
    );
    [mapLabel, prev, maps, next].forEach((n) => (n.hidden = names.length <= 1));
    controls.hidden = all.length <= 1 && names.length <= 1;
    note.textContent = ex.note || "";
    const [vlo, vhi] = model.get("value_range") || [0, 1];
    lo.textContent = format(vlo);
    hi.textContent = format(vhi);
    const rows = v.target;
    const cols = ex.source;
    const size = Math.max(12, Math.min(32, Math.floor(520 / Math.max(1, cols.length))));
    grid.style.gridTemplateColumns = `max-content repeat(${cols.length}, ${size}px)`;
    grid.style.gridAutoRows = `${size}px`;
    grid.style.gridTemplateRows = "max-content";
    grid.setAttribute(
      "aria-label",
      `${rows.length} target by ${cols.length} source tokens; arrow keys move the cursor`,
    );
    grid.replaceChildren(make("div"));
    colHeads = cols.map((t) => {
      const h = make("div", "cw-at-col", t);
      h.title = t;
      grid.append(h);
      return h;
    });
    rowHeads = [];
    cells = rows.map((t, r) => {
      const h = make("div", "cw-at-row", t);
      h.title = t;
      grid.append(h);
      rowHeads.push(h);
      return cols.map((_, c) => {
        const cell = make("div", "cw-at-cell");
        cell.dataset.r = String(r);
        cell.dataset.c = String(c);
        grid.append(cell);
        return cell;
      });
    });
    buildCandidates();
    paint();
  }

  function setTrait(key, value) {
    if (model.get(key) !== value) {
      model.set(key, value);
      model.save_changes();
    }
  }

  function setMap(i) {
    const n = (example().map_names || []).length;
    setTrait("map_index", Math.min(Math.max(0, i), n - 1));
  }

  function setCandidate(k) {
    setTrait("candidate", (model.get("candidate") | 0) === k ? -1 : k);
  }

  pick.addEventListener("change", () => {
    // the kernel resets candidate (and map_index when out of range); html mode has no
    // kernel, so the view resets them itself
    const i = Number(pick.value);
    if (model.get("_kernel") === false) {
      model.set("candidate", -1);
      const n = ((model.get("examples") || [])[i] || { map_names: [] }).map_names.length;
      if ((model.get("map_index") | 0) >= n) model.set("map_index", 0);
    }
    setTrait("index", i);
  });
  maps.addEventListener("change", () => setMap(Number(maps.value)));
  prev.addEventListener("click", () => setMap(mapIndex() - 1));
  next.addEventListener("click", () => setMap(mapIndex() + 1));
  grid.addEventListener("mouseover", (event) => {
    const cell = event.target.closest(".cw-at-cell");
    if (cell) setCursor([Number(cell.dataset.r), Number(cell.dataset.c)]);
  });
  grid.addEventListener("mouseleave", () => {
    if (document.activeElement !== grid) highlight(false);
  });
  grid.addEventListener("focus", () => {
    if (cells.length && cells[0].length) setCursor(cursor || [0, 0]);
  });
  grid.addEventListener("blur", () => highlight(false));
  grid.addEventListener("keydown", (event) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const nr = cells.length;
    const nc = nr ? cells[0].length : 0;
    if (!nr || !nc) return;
    let [r, c] = cursor || [0, 0];
    if (event.key in moves) {
      r = Math.min(nr - 1, Math.max(0, r + moves[event.key][0]));
      c = Math.min(nc - 1, Math.max(0, c + moves[event.key][1]));
    } else if (event.key === "PageUp" || event.key === "PageDown") {
      event.preventDefault();
      setMap(mapIndex() + (event.key === "PageUp" ? -1 : 1));
      return;
    } else return;
    event.preventDefault();
    setCursor([r, c]);
  });
  ask.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = text.value.trim();
    if (!value) return;
    model.set("request", value);
    model.save_changes();
    text.value = "";
  });

  const handlers = [
    ["change:examples", build],
    ["change:index", build],
    ["change:candidate", build],
    ["change:title", build],
    ["change:value_range", build],
    ["change:map_index", paint],
    ["change:error", () => (error.textContent = model.get("error") || "")],
  ];
  handlers.forEach(([event, cb]) => model.on(event, cb));
  build();
  return () => handlers.forEach(([event, cb]) => model.off(event, cb));
}

export default { render };
