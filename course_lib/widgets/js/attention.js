// AttentionExplorer front end (course_lib/widgets/attention.py). Chapters 7, 8.
// A dependency-free ES module (no imports; only model.get/set/on/off/save_changes), so the
// same file runs under anywidget (live) and the book's stand-in model (html). The grid is
// js/heatmap.js's, extended with a sentence selector, a map selector and the candidates.
// Traits read: examples [{name, source, target, map_names, maps, candidates, note}], index,
// map_index, candidate, title, value_range, can_translate, error, _kernel.
// Written: index, map_index, candidate, request.
// Shared helpers come from js/shared (see base.js_source).

const CSS = `
.cw-at-title { font-weight: 600; margin-bottom: 4px; }
.cw-at-controls { display: flex; align-items: center; gap: 6px; margin-bottom: 6px;
  flex-wrap: wrap; }
.cw-at button, .cw-at select, .cw-at input[type=text] { font: inherit; padding: 0 6px;
  border: 1px solid #8c959f; border-radius: 4px; background: #f6f8fa; color: #1f2328; }
.cw-at button { cursor: pointer; }
.cw-at select { max-width: 22em; }
${heatmapCss("cw-at")}
.cw-at-note { color: #57606a; font-size: 12px; }
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

function render({ model, el }) {
  const uid = uniqueId("cw-at");
  const root = widgetRoot("cw-at", CSS);
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
  const { scroll, grid, readout, legend, lo, hi } = heatmapParts("cw-at", uid);
  const note = make("div", "cw-at-note");
  const cands = make("table", "cw-at-cands");
  const asking = ["type a sentence to translate", "a new source sentence", "translate"];
  const { ask, text } = askForm("cw-at-ask", ...asking);
  const error = liveRegion("span", "cw-at-error");
  ask.append(error);
  root.append(title, controls, scroll, readout, note, legend, cands, ask);
  el.append(root);

  const HINT = "Hover over a cell, or focus the grid and use the arrow keys.";
  const cursor = gridCursor(grid, readout, "cw-at", HINT, (r, c) => {
    const v = view();
    const m = v.maps[mapIndex()] || [];
    const value = (m[r] || [])[c];
    return `${v.target[r]} ← ${v.ex.source[c]} = ${formatValue(value)}`;
  });

  function example() {
    const all = model.get("examples") || [];
    const i = clampIndex(model.get("index"), all.length);
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
    return clampIndex(model.get("map_index"), n);
  }

  function paint() {
    const v = view();
    const m = v.maps[mapIndex()] || [];
    const [vlo, vhi] = model.get("value_range") || [0, 1];
    cursor.parts.cells.forEach((row, r) =>
      row.forEach((cell, c) => {
        cell.style.background = viridisColour((m[r] || [])[c], vlo, vhi);
      }),
    );
    const names = v.ex.map_names || [];
    maps.value = String(mapIndex());
    prev.disabled = mapIndex() <= 0;
    next.disabled = mapIndex() >= names.length - 1;
    cursor.show();
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
        make("td", "num", formatValue(c.score)),
        make("td", "num", formatValue(c.log_prob)),
      );
      row.dataset.k = String(k);
      cands.append(row);
    });
  }

  function build() {
    cursor.clear();
    const all = model.get("examples") || [];
    const v = view();
    const ex = v.ex;
    root.setAttribute("data-kernel", model.get("_kernel") === false ? "false" : "true");
    ask.hidden = !model.get("can_translate");
    error.textContent = model.get("error") || "";
    title.textContent = model.get("title") || "";
    title.hidden = !title.textContent;
    root.setAttribute("aria-label", title.textContent || "attention");
    fillOptions(pick, all.map((e) => e.name));
    pick.value = String(Math.min(Math.max(0, model.get("index") | 0), all.length - 1));
    pick.hidden = pickLabel.hidden = all.length <= 1;
    const names = ex.map_names || [];
    fillOptions(maps, names);
    [mapLabel, prev, maps, next].forEach((n) => (n.hidden = names.length <= 1));
    controls.hidden = all.length <= 1 && names.length <= 1;
    note.textContent = ex.note || "";
    const [vlo, vhi] = model.get("value_range") || [0, 1];
    lo.textContent = formatValue(vlo);
    hi.textContent = formatValue(vhi);
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
    cursor.fill(rows, cols);
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
  grid.addEventListener("blur", () => cursor.highlight(false));
  grid.addEventListener("keydown", (event) => {
    const [nr, nc] = cursor.size();
    if (!nr || !nc) return;
    const moved = arrowMove(event.key, cursor.at || [0, 0], nr, nc);
    if (event.key === "PageUp" || event.key === "PageDown") {
      event.preventDefault();
      setMap(mapIndex() + (event.key === "PageUp" ? -1 : 1));
      return;
    }
    if (!moved) return;
    event.preventDefault();
    cursor.set(moved);
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
  return listen(model, handlers, build);
}

export default { render };
