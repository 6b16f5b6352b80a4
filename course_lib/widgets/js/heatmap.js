// HeatmapExplorer front end (course_lib/widgets/heatmap.py). Chapters 1, 7, 8.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes, so the
// same file runs under anywidget (live) and under the book's stand-in model (html).
// Traits read: matrices (M x R x C, null = missing), names (M), row_labels (R),
// col_labels (C), title, value_range [vmin, vmax], index, _kernel.

// matplotlib's viridis sampled at 0, 0.1, ..., 1; linear interpolation in between.
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
.cw-hm { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #1f2328; background: #fff; padding: 8px; display: inline-block;
  max-width: 100%; box-sizing: border-box; border: 1px solid #d8dee4; border-radius: 6px; }
.cw-hm * { box-sizing: border-box; }
.cw-hm[data-kernel="false"] [data-kernel-only] { display: none; }
.cw-hm-title { font-weight: 600; margin-bottom: 4px; }
.cw-hm-controls { display: flex; align-items: center; gap: 6px; margin-bottom: 6px;
  flex-wrap: wrap; }
.cw-hm-controls[hidden] { display: none; }
.cw-hm button { font: inherit; padding: 0 8px; border: 1px solid #8c959f;
  border-radius: 4px; background: #f6f8fa; color: #1f2328; cursor: pointer; }
.cw-hm button:disabled { opacity: 0.4; cursor: default; }
.cw-hm input[type=range] { width: 180px; accent-color: #3b528b; }
.cw-hm :focus-visible { outline: 2px solid #0969da; outline-offset: 2px; }
.cw-hm-name { font-weight: 600; min-width: 4em; }
.cw-hm-scroll { overflow-x: auto; max-width: 100%; }
.cw-hm-grid { display: inline-grid; gap: 1px; padding: 2px; }
.cw-hm-row, .cw-hm-col { color: #57606a; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; font-size: 12px; }
.cw-hm-row { text-align: right; padding-right: 6px; align-self: center; max-width: 12em; }
.cw-hm-col { writing-mode: vertical-rl; transform: rotate(180deg); justify-self: center;
  padding-top: 4px; max-height: 9em; }
.cw-hm-row.cw-hl, .cw-hm-col.cw-hl { color: #1f2328; font-weight: 700; }
.cw-hm-cell { border-radius: 1px; }
.cw-hm-grid.cw-hovering .cw-hm-cell:not(.cw-hl) { opacity: 0.45; }
.cw-hm-cell.cw-cursor { box-shadow: inset 0 0 0 2px #fff, 0 0 0 1px #1f2328; }
.cw-hm-readout { margin-top: 6px; min-height: 1.4em; font-variant-numeric: tabular-nums; }
.cw-hm-legend { display: flex; align-items: center; gap: 6px; margin-top: 4px;
  font-size: 12px; color: #57606a; font-variant-numeric: tabular-nums; }
.cw-hm-ramp { width: 160px; height: 10px; border: 1px solid #d8dee4; }
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

function render({ model, el }) {
  const uid = `cw-hm-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const root = make("div", "cw-hm");
  root.setAttribute("role", "group");
  root.append(make("style", null, CSS));
  const title = make("div", "cw-hm-title");
  const controls = make("div", "cw-hm-controls");
  const label = make("label", null, "Matrix");
  label.htmlFor = `${uid}-slider`;
  const prev = control(make("button", null, "◀"));
  prev.type = "button";
  prev.setAttribute("aria-label", "previous matrix");
  const slider = control(make("input"));
  slider.type = "range";
  slider.id = `${uid}-slider`;
  slider.min = "0";
  slider.step = "1";
  const next = control(make("button", null, "▶"));
  next.type = "button";
  next.setAttribute("aria-label", "next matrix");
  const name = make("output", "cw-hm-name");
  name.htmlFor = slider.id;
  name.setAttribute("aria-live", "polite");
  controls.append(label, prev, slider, next, name);
  const scroll = make("div", "cw-hm-scroll");
  const grid = control(make("div", "cw-hm-grid"));
  grid.tabIndex = 0;
  grid.setAttribute("aria-describedby", `${uid}-readout`);
  scroll.append(grid);
  const readout = make("div", "cw-hm-readout");
  readout.id = `${uid}-readout`;
  readout.setAttribute("aria-live", "polite");
  const legend = make("div", "cw-hm-legend");
  const lo = make("span");
  const ramp = make("span", "cw-hm-ramp");
  ramp.style.background = `linear-gradient(to right, ${VIRIDIS.map(
    (c) => `rgb(${c.join(",")})`,
  ).join(", ")})`;
  const hi = make("span");
  legend.append(lo, ramp, hi);
  root.append(title, controls, scroll, readout, legend);
  el.append(root);

  let cells = []; // cells[r][c]
  let rowHeads = [];
  let colHeads = [];
  let cursor = null; // [r, c] of the readout's cell, kept after the pointer leaves

  const HINT = "Hover over a cell, or focus the grid and use the arrow keys.";

  function current() {
    const mats = model.get("matrices") || [];
    const i = Math.min(Math.max(0, model.get("index") | 0), Math.max(0, mats.length - 1));
    return { i, m: mats[i] || [] };
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
    const rows = model.get("row_labels") || [];
    const cols = model.get("col_labels") || [];
    const v = (current().m[r] || [])[c];
    readout.textContent = `${rows[r]} · ${cols[c]} = ${format(v)}`;
  }

  function setCursor(next) {
    highlight(false);
    cursor = next;
    highlight(true);
    showReadout();
  }

  // The pointer or focus left the grid: drop the highlight, keep the readout (it follows
  // the slider, so one cell can be compared across matrices).
  function release() {
    if (document.activeElement !== grid) highlight(false);
  }

  function paint() {
    const { i, m } = current();
    const [vlo, vhi] = model.get("value_range") || [0, 1];
    cells.forEach((row, r) =>
      row.forEach((cell, c) => {
        const v = (m[r] || [])[c];
        cell.style.background = colour(v, vlo, vhi);
      }),
    );
    const names = model.get("names") || [];
    slider.value = String(i);
    slider.setAttribute("aria-valuetext", names[i] ?? String(i));
    name.textContent = names.length > 1 ? `${names[i]}  (${i + 1}/${names.length})` : "";
    prev.disabled = i <= 0;
    next.disabled = i >= names.length - 1;
    showReadout();
  }

  function build() {
    highlight(false);
    cursor = null;
    const rows = model.get("row_labels") || [];
    const cols = model.get("col_labels") || [];
    const names = model.get("names") || [];
    const [vlo, vhi] = model.get("value_range") || [0, 1];
    root.setAttribute("data-kernel", model.get("_kernel") === false ? "false" : "true");
    title.textContent = model.get("title") || "";
    title.hidden = !title.textContent;
    root.setAttribute("aria-label", title.textContent || "heatmap");
    controls.hidden = names.length <= 1;
    slider.max = String(Math.max(0, names.length - 1));
    if (names.length === 1) title.textContent += title.textContent ? ` — ${names[0]}` : names[0];
    lo.textContent = format(vlo);
    hi.textContent = format(vhi);
    const size = Math.max(10, Math.min(36, Math.floor(560 / Math.max(1, cols.length))));
    grid.style.gridTemplateColumns = `max-content repeat(${cols.length}, ${size}px)`;
    grid.style.gridAutoRows = `${size}px`;
    grid.style.gridTemplateRows = "max-content";
    grid.setAttribute(
      "aria-label",
      `${rows.length} by ${cols.length} heatmap; arrow keys move the cursor`,
    );
    grid.replaceChildren(make("div"));
    colHeads = cols.map((text) => {
      const head = make("div", "cw-hm-col", text);
      head.title = text;
      grid.append(head);
      return head;
    });
    rowHeads = [];
    cells = rows.map((text, r) => {
      const head = make("div", "cw-hm-row", text);
      head.title = text;
      grid.append(head);
      rowHeads.push(head);
      return cols.map((_, c) => {
        const cell = make("div", "cw-hm-cell");
        cell.dataset.r = String(r);
        cell.dataset.c = String(c);
        grid.append(cell);
        return cell;
      });
    });
    paint();
  }

  function setIndex(i) {
    const n = (model.get("names") || []).length;
    const clamped = Math.min(Math.max(0, i), n - 1);
    if (clamped !== model.get("index")) {
      model.set("index", clamped);
      model.save_changes();
    }
  }

  slider.addEventListener("input", () => setIndex(Number(slider.value)));
  prev.addEventListener("click", () => setIndex((model.get("index") | 0) - 1));
  next.addEventListener("click", () => setIndex((model.get("index") | 0) + 1));
  grid.addEventListener("mouseover", (event) => {
    const cell = event.target.closest(".cw-hm-cell");
    if (cell) setCursor([Number(cell.dataset.r), Number(cell.dataset.c)]);
  });
  grid.addEventListener("mouseleave", () => {
    release();
  });
  grid.addEventListener("focus", () => {
    if (cells.length && cells[0].length) setCursor(cursor || [0, 0]);
  });
  grid.addEventListener("blur", release);
  grid.addEventListener("keydown", (event) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const nr = cells.length;
    const nc = nr ? cells[0].length : 0;
    if (!nr || !nc) return;
    let [r, c] = cursor || [0, 0];
    if (event.key in moves) {
      r = Math.min(nr - 1, Math.max(0, r + moves[event.key][0]));
      c = Math.min(nc - 1, Math.max(0, c + moves[event.key][1]));
    } else if (event.key === "Home") c = 0;
    else if (event.key === "End") c = nc - 1;
    else if (event.key === "PageUp" || event.key === "PageDown") {
      event.preventDefault();
      setIndex((model.get("index") | 0) + (event.key === "PageUp" ? -1 : 1));
      return;
    } else return;
    event.preventDefault();
    setCursor([r, c]);
  });

  const rebuildOn = ["matrices", "names", "row_labels", "col_labels", "title", "value_range"];
  const handlers = rebuildOn.map((key) => [`change:${key}`, build]);
  handlers.push(["change:index", paint]);
  handlers.forEach(([event, cb]) => model.on(event, cb));
  readout.textContent = HINT;
  build();
  return () => handlers.forEach(([event, cb]) => model.off(event, cb));
}

export default { render };
