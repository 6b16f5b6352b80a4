// CTCAlignmentExplorer front end (course_lib/widgets/ctc_alignment.py). Chapter 10.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes.
// Traits read: names (U), states (U x S'), trellis (U x S' x T), paths (U x T),
// outputs (U x T), title, index, step, _kernel. Heatmap helpers from js/shared/grid.js.

const CSS = `
.cw-ctc-title { font-weight: 600; margin-bottom: 4px; }
.cw-ctc-controls { display: flex; align-items: center; gap: 6px; margin-bottom: 6px;
  flex-wrap: wrap; }
.cw-ctc button, .cw-ctc select { font: inherit; padding: 0 8px; border: 1px solid #8c959f;
  border-radius: 4px; background: #f6f8fa; color: #1f2328; cursor: pointer; }
.cw-ctc input[type=range] { width: 240px; accent-color: #3b528b; }
.cw-ctc-out { font-weight: 600; font-family: ui-monospace, monospace; min-width: 8em; }
${heatmapCss("cw-ctc")}
.cw-ctc-col { font-size: 9px; }
.cw-ctc-cell.cw-ctc-path { box-shadow: inset 0 0 0 2px #ffffff; }
.cw-ctc-cell.cw-ctc-now { box-shadow: inset 0 0 0 2px #ff6b00; }
`;

function render({ model, el }) {
  const uid = uniqueId("cw-ctc");
  const root = widgetRoot("cw-ctc", CSS);
  const title = make("div", "cw-ctc-title");
  const controls = make("div", "cw-ctc-controls");
  const pick = control(make("select"));
  pick.setAttribute("aria-label", "utterance");
  const label = make("label", null, "Frame");
  label.htmlFor = `${uid}-step`;
  const prev = button("◀", "previous frame");
  const slider = stepSlider(`${uid}-step`);
  const next = button("▶", "next frame");
  const out = liveRegion("output", "cw-ctc-out");
  controls.append(pick, label, prev, slider, next, out);
  const { scroll, grid, readout, legend, lo, hi } = heatmapParts("cw-ctc", uid);
  root.append(title, controls, scroll, readout, legend);
  el.append(root);

  const HINT = "Hover over a cell: its state posterior. The slider walks the best path.";
  const cursor = gridCursor(grid, readout, "cw-ctc", HINT, (r, c) => {
    const u = current();
    const v = ((model.get("trellis") || [])[u][r] || [])[c];
    return `frame ${c}, state ${r} (${(model.get("states")[u] || [])[r]}): posterior ${formatValue(v)}`;
  });

  function current() {
    return clampIndex(model.get("index"), (model.get("names") || []).length);
  }

  function paint() {
    const u = current();
    const path = (model.get("paths") || [])[u] || [];
    const outs = (model.get("outputs") || [])[u] || [];
    const t = clampIndex(model.get("step"), path.length);
    const m = (model.get("trellis") || [])[u] || [];
    cursor.parts.cells.forEach((row, r) =>
      row.forEach((cell, c) => {
        cell.style.background = viridisColour((m[r] || [])[c], 0, 1);
        cell.classList.toggle("cw-ctc-path", c < t && path[c] === r);
        cell.classList.toggle("cw-ctc-now", c === t && path[c] === r);
      }),
    );
    slider.value = String(t);
    slider.setAttribute("aria-valuetext", `frame ${t}`);
    prev.disabled = t <= 0;
    next.disabled = t >= path.length - 1;
    const states = (model.get("states") || [])[u] || [];
    out.textContent = `t = ${t}: π_t = ${states[path[t]] ?? ""} → "${outs[t] ?? ""}"`;
    cursor.show();
  }

  function build() {
    cursor.clear();
    const u = current();
    const names = model.get("names") || [];
    const rows = (model.get("states") || [])[u] || [];
    const T = ((model.get("paths") || [])[u] || []).length;
    title.textContent = model.get("title") || "";
    title.hidden = !title.textContent;
    root.setAttribute("aria-label", title.textContent || "CTC alignment");
    fillOptions(pick, names);
    pick.value = String(u);
    pick.hidden = names.length <= 1;
    slider.max = String(Math.max(0, T - 1));
    lo.textContent = "0";
    hi.textContent = "1";
    const size = Math.max(6, Math.min(20, Math.floor(640 / Math.max(1, T))));
    grid.style.gridTemplateColumns = `max-content repeat(${T}, ${size}px)`;
    grid.style.gridAutoRows = `${Math.max(size, 12)}px`;
    grid.style.gridTemplateRows = "max-content";
    grid.setAttribute("aria-label", `${rows.length} states by ${T} frames`);
    const cols = Array.from({ length: T }, (_, c) => (c % 5 === 0 ? String(c) : ""));
    cursor.fill(rows, cols);
    paint();
  }

  const frames = () => ((model.get("paths") || [])[current()] || []).length;
  stepControls(model, frames, { pick, slider, prev, next });
  grid.addEventListener("keydown", (event) => {
    const [nr, nc] = cursor.size();
    if (!nr || !nc) return;
    const moved = arrowMove(event.key, cursor.at || [0, 0], nr, nc);
    if (!moved) return;
    event.preventDefault();
    cursor.set(moved);
  });

  const rebuildOn = ["names", "states", "trellis", "paths", "outputs", "title", "index"];
  const handlers = rebuildOn.map((key) => [`change:${key}`, build]);
  handlers.push(["change:step", paint]);
  readout.textContent = HINT;
  return listen(model, handlers, build);
}

export default { render };
