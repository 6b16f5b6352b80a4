// HeatmapExplorer front end (course_lib/widgets/heatmap.py). Chapters 1, 7, 8.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes, so the
// same file runs under anywidget (live) and under the book's stand-in model (html).
// Traits read: matrices (M x R x C, null = missing), names (M), row_labels (R),
// col_labels (C), title, slider_label, value_range [vmin, vmax], index, _kernel.
// Shared helpers come from js/shared (see base.js_source).

const CSS = `
.cw-hm-title { font-weight: 600; margin-bottom: 4px; }
.cw-hm-controls { display: flex; align-items: center; gap: 6px; margin-bottom: 6px;
  flex-wrap: wrap; }
.cw-hm-controls[hidden] { display: none; }
.cw-hm input[type=range] { width: 180px; accent-color: #3b528b; }
.cw-hm-name { font-weight: 600; min-width: 4em; }
${heatmapCss("cw-hm")}
.cw-hm-cell { border-radius: 1px; }
`;

function render({ model, el }) {
  const uid = uniqueId("cw-hm");
  const root = widgetRoot("cw-hm", CSS);
  const title = make("div", "cw-hm-title");
  const controls = make("div", "cw-hm-controls");
  const label = make("label", null, "");
  label.htmlFor = `${uid}-slider`;
  const prev = button("◀", "previous matrix");
  const slider = stepSlider(`${uid}-slider`);
  const next = button("▶", "next matrix");
  const name = liveRegion("output", "cw-hm-name");
  name.htmlFor = slider.id;
  controls.append(label, prev, slider, next, name);
  const { scroll, grid, readout, legend, lo, hi } = heatmapParts("cw-hm", uid);
  root.append(title, controls, scroll, readout, legend);
  el.append(root);

  const HINT = "Hover over a cell, or focus the grid and use the arrow keys.";
  // cursor.at: [r, c] of the readout's cell, kept after the pointer leaves
  const cursor = gridCursor(grid, readout, "cw-hm", HINT, (r, c) => {
    const rows = model.get("row_labels") || [];
    const cols = model.get("col_labels") || [];
    const v = (current().m[r] || [])[c];
    return `${rows[r]} · ${cols[c]} = ${formatValue(v)}`;
  });

  function current() {
    const mats = model.get("matrices") || [];
    const i = clampIndex(model.get("index"), mats.length);
    return { i, m: mats[i] || [] };
  }

  // The focus left the grid: drop the highlight, keep the readout (it follows the
  // slider, so one cell can be compared across matrices).
  function release() {
    if (document.activeElement !== grid) cursor.highlight(false);
  }

  function paint() {
    const { i, m } = current();
    const [vlo, vhi] = model.get("value_range") || [0, 1];
    cursor.parts.cells.forEach((row, r) =>
      row.forEach((cell, c) => {
        const v = (m[r] || [])[c];
        cell.style.background = viridisColour(v, vlo, vhi);
      }),
    );
    const names = model.get("names") || [];
    slider.value = String(i);
    slider.setAttribute("aria-valuetext", names[i] ?? String(i));
    name.textContent = names.length > 1 ? `${names[i]}  (${i + 1}/${names.length})` : "";
    prev.disabled = i <= 0;
    next.disabled = i >= names.length - 1;
    cursor.show();
  }

  function build() {
    cursor.clear();
    const rows = model.get("row_labels") || [];
    const cols = model.get("col_labels") || [];
    const names = model.get("names") || [];
    const [vlo, vhi] = model.get("value_range") || [0, 1];
    root.setAttribute("data-kernel", model.get("_kernel") === false ? "false" : "true");
    title.textContent = model.get("title") || "";
    title.hidden = !title.textContent;
    label.textContent = model.get("slider_label") || "Matrix";
    root.setAttribute("aria-label", title.textContent || "heatmap");
    controls.hidden = names.length <= 1;
    slider.max = String(Math.max(0, names.length - 1));
    if (names.length === 1) title.textContent += title.textContent ? ` — ${names[0]}` : names[0];
    lo.textContent = formatValue(vlo);
    hi.textContent = formatValue(vhi);
    const size = Math.max(10, Math.min(36, Math.floor(560 / Math.max(1, cols.length))));
    grid.style.gridTemplateColumns = `max-content repeat(${cols.length}, ${size}px)`;
    grid.style.gridAutoRows = `${size}px`;
    grid.style.gridTemplateRows = "max-content";
    grid.setAttribute(
      "aria-label",
      `${rows.length} by ${cols.length} heatmap; arrow keys move the cursor`,
    );
    cursor.fill(rows, cols);
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
  grid.addEventListener("blur", release);
  grid.addEventListener("keydown", (event) => {
    const [nr, nc] = cursor.size();
    if (!nr || !nc) return;
    let [r, c] = cursor.at || [0, 0];
    const moved = arrowMove(event.key, [r, c], nr, nc);
    if (moved) [r, c] = moved;
    else if (event.key === "Home") c = 0;
    else if (event.key === "End") c = nc - 1;
    else if (event.key === "PageUp" || event.key === "PageDown") {
      event.preventDefault();
      setIndex((model.get("index") | 0) + (event.key === "PageUp" ? -1 : 1));
      return;
    } else return;
    event.preventDefault();
    cursor.set([r, c]);
  });

  const rebuildOn = ["matrices", "names", "row_labels", "col_labels", "title", "slider_label", "value_range"];
  const handlers = rebuildOn.map((key) => [`change:${key}`, build]);
  handlers.push(["change:index", paint]);
  readout.textContent = HINT;
  return listen(model, handlers, build);
}

export default { render };
