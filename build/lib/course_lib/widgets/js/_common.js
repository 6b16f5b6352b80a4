// Helpers shared by the widget modules in this folder, declared once. js_source() in
// course_lib/widgets/base.py puts the blocks of this file that a module uses (by name, with
// what they use in turn) in front of it, in live and html mode alike: no import or export
// here, and a module must not declare these names again.

let counter = 0;

// A page-unique id for one rendering: prefix, a counter, a random tail (two outputs of
// the same notebook on one page each count from 1).
function uniqueId(prefix) {
  return `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
}

// The SVG namespace, read from the HTML parser rather than written out as a URL.
const SVG_NS = (() => {
  const box = document.createElement("div");
  box.innerHTML = "<svg></svg>";
  return box.firstChild.namespaceURI;
})();

function make(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, String(v)));
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

// The widget's root: a group that carries its own stylesheet, css after the frame every
// widget shares (font, colours, padding, border).
function widgetRoot(className, css) {
  const root = make("div", className);
  root.setAttribute("role", "group");
  const frame =
    `.${className} { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;\n` +
    "  color: #1f2328; background: #fff; padding: 8px; display: inline-block; max-width: 100%;\n" +
    "  box-sizing: border-box; border: 1px solid #d8dee4; border-radius: 6px; }\n" +
    // an element's own display (flex, grid) would otherwise override its hidden attribute
    `.${className} [hidden] { display: none !important; }`;
  root.append(make("style", null, `\n${frame}${css}`));
  return root;
}

// An element that screen readers read out politely when its text changes (a readout).
function liveRegion(tag, className, id) {
  const node = make(tag, className);
  if (id) node.id = id;
  node.setAttribute("aria-live", "polite");
  return node;
}

// A <select>'s options: texts, valued "0", "1", ...
function fillOptions(select, texts) {
  select.replaceChildren(
    ...texts.map((text, i) => {
      const option = make("option", null, text);
      option.value = String(i);
      return option;
    }),
  );
}

// A kernel-only form: a text box and a submit button (the caller appends its message).
function askForm(className, placeholder, label, action) {
  const ask = make("form", className);
  ask.setAttribute("data-kernel-only", "");
  const text = control(make("input"));
  text.type = "text";
  text.placeholder = placeholder;
  text.setAttribute("aria-label", label);
  const go = control(make("button", null, action));
  go.type = "submit";
  // JupyterLab swallows Enter's implicit submission inside an output (jupyterlab#6555)
  text.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      ask.requestSubmit();
    }
  });
  ask.append(text, go);
  return { ask, text, go };
}

// A range input over the steps 0, 1, ... of a stepped view (its max is set when drawn).
function stepSlider(id, label) {
  const slider = control(make("input"));
  slider.type = "range";
  slider.id = id;
  slider.min = "0";
  slider.step = "1";
  if (label) slider.setAttribute("aria-label", label);
  return slider;
}

// The control bar of a stepped explorer: a record picker, first/prev buttons, the step
// slider, next/last buttons and a live readout of where the view is. labels name the
// picker, then the five step controls, for screen readers.
function stepBar(uid, prefix, labels) {
  const [pickLabel, firstLabel, prevLabel, sliderLabel, nextLabel, lastLabel] = labels;
  const controls = make("div", `${prefix}-controls`);
  const pick = control(make("select", `${prefix}-select`));
  pick.setAttribute("aria-label", pickLabel);
  const first = button("«", firstLabel);
  const prev = button("◀", prevLabel);
  const slider = stepSlider(`${uid}-slider`, sliderLabel);
  const next = button("▶", nextLabel);
  const last = button("»", lastLabel);
  const where = liveRegion("output", `${prefix}-where`);
  where.htmlFor = slider.id;
  controls.append(pick, first, prev, slider, next, last, where);
  return { controls, pick, first, prev, slider, next, last, where };
}

// Redraws a stepped explorer's header from the model: whether a kernel is there, the title
// (also the widget's accessible name, else fallback), the picker's records and the error.
function drawHeader(model, { root, title, pick, error }, names, fallback) {
  root.setAttribute("data-kernel", model.get("_kernel") === false ? "false" : "true");
  title.textContent = model.get("title") || "";
  title.hidden = !title.textContent;
  root.setAttribute("aria-label", title.textContent || fallback);
  fillOptions(pick, names);
  pick.value = String(model.get("index") | 0);
  pick.hidden = names.length <= 1;
  error.textContent = model.get("error") || "";
}

// Sends the ask form's text to the kernel as the "request" trait (the Python side answers).
function sendRequests(model, ask, text) {
  ask.addEventListener("submit", (event) => {
    event.preventDefault();
    model.set("request", text.value);
    model.save_changes();
  });
}

// The controls of a stepped widget (parser states, BPE merges, CTC frames): the picker
// selects record "index" and starts it at step 0; the slider and the first/prev/next/last
// buttons (any may be absent) move "step" within 0..count()-1. Returns the step setter.
function stepControls(model, count, { pick, slider, first, prev, next, last }) {
  const setStep = (k) => {
    const clamped = clampIndex(k, count());
    if (clamped !== model.get("step")) {
      model.set("step", clamped);
      model.save_changes();
    }
  };
  const by = (d) => () => setStep((model.get("step") | 0) + d);
  pick.addEventListener("change", () => {
    model.set("index", Number(pick.value));
    model.set("step", 0);
    model.save_changes();
  });
  slider.addEventListener("input", () => setStep(Number(slider.value)));
  if (first) first.addEventListener("click", () => setStep(0));
  prev.addEventListener("click", by(-1));
  next.addEventListener("click", by(1));
  if (last) last.addEventListener("click", () => setStep(count() - 1));
  return setStep;
}

// Subscribes render's [event, callback] pairs, draws once, and returns render's cleanup.
function listen(model, handlers, draw) {
  handlers.forEach(([event, cb]) => model.on(event, cb));
  draw();
  return () => handlers.forEach(([event, cb]) => model.off(event, cb));
}

// An index trait clamped to 0..n-1 (0 when there is nothing).
function clampIndex(value, n) {
  return Math.min(Math.max(0, value | 0), Math.max(0, n - 1));
}

// A number for the page; "n/a" where Python sent None (NaN, ±inf).
function formatValue(v) {
  return v === null || v === undefined ? "n/a" : String(v);
}

// matplotlib's viridis sampled at 0, 0.1, ..., 1; linear interpolation in between.
const VIRIDIS = [
  [68, 1, 84], [72, 36, 117], [65, 68, 135], [53, 95, 141], [42, 120, 142],
  [33, 145, 140], [34, 168, 132], [68, 191, 112], [122, 209, 81], [189, 223, 38],
  [253, 231, 37],
];

// value in [lo, hi] as a viridis colour; a missing value is grey.
function viridisColour(value, lo, hi) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "#d0d0d0";
  const t = Math.min(1, Math.max(0, (value - lo) / (hi - lo || 1))) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(t));
  const f = t - i;
  const rgb = VIRIDIS[i].map((a, k) => Math.round(a + f * (VIRIDIS[i + 1][k] - a)));
  return `rgb(${rgb.join(",")})`;
}

// The colour bar: the viridis ramp as a CSS gradient, lo on the left.
function viridisGradient() {
  return `linear-gradient(to right, ${VIRIDIS.map((c) => `rgb(${c.join(",")})`).join(", ")})`;
}

// The parts of a heatmap (heatmap.js, attention.js): a focusable grid in a scroller, the
// readout it is described by, and the colour bar between its lo and hi labels.
function heatmapParts(prefix, uid) {
  const scroll = make("div", `${prefix}-scroll`);
  const grid = control(make("div", `${prefix}-grid`));
  grid.tabIndex = 0;
  grid.setAttribute("aria-describedby", `${uid}-readout`);
  scroll.append(grid);
  const readout = liveRegion("div", `${prefix}-readout`, `${uid}-readout`);
  const legend = make("div", `${prefix}-legend`);
  const lo = make("span");
  const ramp = make("span", `${prefix}-ramp`);
  ramp.style.background = viridisGradient();
  const hi = make("span");
  legend.append(lo, ramp, hi);
  return { scroll, grid, readout, legend, lo, hi };
}

// The stylesheet rules of heatmapParts and fillGrid, for the class prefix p.
function heatmapCss(p) {
  return `
.${p}-scroll { overflow-x: auto; max-width: 100%; }
.${p}-grid { display: inline-grid; gap: 1px; padding: 2px; }
.${p}-row, .${p}-col { color: #57606a; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; font-size: 12px; }
.${p}-row { text-align: right; padding-right: 6px; align-self: center; max-width: 12em; }
.${p}-col { writing-mode: vertical-rl; transform: rotate(180deg); justify-self: center;
  padding-top: 4px; max-height: 9em; }
.${p}-row.cw-hl, .${p}-col.cw-hl { color: #1f2328; font-weight: 700; }
.${p}-grid.cw-hovering .${p}-cell:not(.cw-hl) { opacity: 0.45; }
.${p}-cell.cw-cursor { box-shadow: inset 0 0 0 2px #fff, 0 0 0 1px #1f2328; }
.${p}-readout { margin-top: 6px; min-height: 1.4em; font-variant-numeric: tabular-nums; }
.${p}-legend { display: flex; align-items: center; gap: 6px; margin-top: 4px;
  font-size: 12px; color: #57606a; font-variant-numeric: tabular-nums; }
.${p}-ramp { width: 160px; height: 10px; border: 1px solid #d8dee4; }`;
}

// The heatmap grid (heatmap.js, attention.js): an empty corner, the column heads, then
// each row head and its cells (data-r, data-c), with class names `${prefix}-col` etc.
function fillGrid(grid, rows, cols, prefix) {
  grid.replaceChildren(make("div"));
  const colHeads = cols.map((text) => {
    const head = make("div", `${prefix}-col`, text);
    head.title = text;
    grid.append(head);
    return head;
  });
  const rowHeads = [];
  const cells = rows.map((text, r) => {
    const head = make("div", `${prefix}-row`, text);
    head.title = text;
    grid.append(head);
    rowHeads.push(head);
    return cols.map((_, c) => {
      const cell = make("div", `${prefix}-cell`);
      cell.dataset.r = String(r);
      cell.dataset.c = String(c);
      grid.append(cell);
      return cell;
    });
  });
  return { colHeads, rowHeads, cells };
}

// Highlights (on) or clears the cursor cell of a fillGrid grid with its row and column.
function highlightCross(grid, parts, cursor, on) {
  if (!cursor) return;
  const [r, c] = cursor;
  const { rowHeads, colHeads, cells } = parts;
  const toggle = (node) => node && node.classList.toggle("cw-hl", on);
  toggle(rowHeads[r]);
  toggle(colHeads[c]);
  (cells[r] || []).forEach(toggle);
  cells.forEach((row) => toggle(row[c]));
  if (cells[r] && cells[r][c]) cells[r][c].classList.toggle("cw-cursor", on);
  grid.classList.toggle("cw-hovering", on);
}

// The cursor of a fillGrid grid: the cell the readout describes (describe(r, c) gives the
// text, hint stands while there is none), highlighted while the pointer or focus is on
// the grid. Hovering a cell or focusing the grid moves it; the caller handles the keys.
function gridCursor(grid, readout, prefix, hint, describe) {
  const g = { parts: { cells: [], rowHeads: [], colHeads: [] }, at: null };
  g.highlight = (on) => highlightCross(grid, g.parts, g.at, on);
  g.show = () => {
    readout.textContent = g.at ? describe(...g.at) : hint;
  };
  g.set = (next) => {
    g.highlight(false);
    g.at = next;
    g.highlight(true);
    g.show();
  };
  g.clear = () => {
    g.highlight(false);
    g.at = null;
  };
  g.fill = (rows, cols) => {
    g.parts = fillGrid(grid, rows, cols, prefix);
  };
  g.size = () => [g.parts.cells.length, g.parts.cells.length ? g.parts.cells[0].length : 0];
  grid.addEventListener("mouseover", (event) => {
    const cell = event.target.closest(`.${prefix}-cell`);
    if (cell) g.set([Number(cell.dataset.r), Number(cell.dataset.c)]);
  });
  // the pointer left: drop the highlight unless the keyboard is on the grid; the readout stays
  grid.addEventListener("mouseleave", () => {
    if (document.activeElement !== grid) g.highlight(false);
  });
  grid.addEventListener("focus", () => {
    const [nr, nc] = g.size();
    if (nr && nc) g.set(g.at || [0, 0]);
  });
  return g;
}

// The cell an arrow key moves [r, c] to in an nr x nc grid (null for other keys).
const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
function arrowMove(key, [r, c], nr, nc) {
  if (!(key in ARROWS)) return null;
  return [
    Math.min(nr - 1, Math.max(0, r + ARROWS[key][0])),
    Math.min(nc - 1, Math.max(0, c + ARROWS[key][1])),
  ];
}
