// The heatmap grid (heatmap.js, attention.js): parts, stylesheet, cells, cursor, keys.
// A shared file of widgets/js: whole, plain declarations (no import or export);
// base.js_source puts it in front of each module that uses one of its names.

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
