// ParserStateExplorer front end (course_lib/widgets/parser.py). Chapter 4.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes, so the
// same file runs under anywidget (live) and under the book's stand-in model (html).
// Traits read: sentences [{name, words, tags, gold_heads, gold_labels, score,
// steps: [{stack, next, t, top: [[transition, p]], arc: [h, d, label] | null}]}],
// index, step, title, has_model, error, _kernel. Written: index, step, request.
// Shared helpers come from js/shared (see base.js_source).

const COLOURS = { ok: "#2e7d32", label: "#ef6c00", head: "#c62828", plain: "#1f2328",
  gold: "#6e7781" };

const CSS = `
.cw-ps-title { font-weight: 600; margin-bottom: 4px; }
.cw-ps-controls, .cw-ps-ask { display: flex; align-items: center; gap: 6px;
  flex-wrap: wrap; margin-bottom: 6px; }
.cw-ps select, .cw-ps input[type=text] { font: inherit; max-width: 100%; }
.cw-ps select { max-width: 24em; }
.cw-ps input[type=range] { width: 160px; accent-color: #3b528b; }
.cw-ps input[type=text] { width: 26em; }
.cw-ps-where { font-variant-numeric: tabular-nums; min-width: 7em; }
.cw-ps-row { display: flex; align-items: baseline; gap: 6px; margin: 3px 0; flex-wrap: wrap; }
.cw-ps-key { color: #57606a; width: 4.5em; flex: none; }
.cw-ps-chip { display: inline-block; padding: 0 6px; border-radius: 10px;
  border: 1px solid #d8dee4; background: #f6f8fa; white-space: nowrap; }
.cw-ps-chip.cw-stack { background: #ddf4ff; border-color: #54aeff; }
.cw-ps-chip.cw-top { font-weight: 700; }
.cw-ps-empty { color: #6e7781; font-style: italic; }
.cw-ps-probs { display: grid; grid-template-columns: max-content 120px max-content;
  gap: 2px 6px; align-items: center; font-variant-numeric: tabular-nums; }
.cw-ps-bar { height: 10px; background: #8c959f; border-radius: 2px; }
.cw-ps-probs .cw-chosen { font-weight: 700; }
.cw-ps-probs .cw-bar-chosen { background: #3b528b; }
.cw-ps-scroll { overflow-x: auto; max-width: 100%; margin-top: 4px; }
.cw-ps-legend, .cw-ps-score { font-size: 12px; color: #57606a; }
.cw-ps-score { font-weight: 600; color: #1f2328; min-height: 1.4em; }
.cw-ps-error { color: #c62828; }
`;

function render({ model, el }) {
  const uid = uniqueId("cw-ps");
  const root = widgetRoot("cw-ps", CSS);
  const title = make("div", "cw-ps-title");
  const { controls, pick, first, prev, slider, next, last, where } = stepBar(uid, "cw-ps", [
    "sentence", "first state", "previous state", "state", "next state", "last state",
  ]);

  const stackRow = make("div", "cw-ps-row cw-ps-stack");
  const bufferRow = make("div", "cw-ps-row cw-ps-buffer");
  const nextRow = make("div", "cw-ps-row cw-ps-next");
  const probs = make("div", "cw-ps-probs");
  const scroll = make("div", "cw-ps-scroll");
  const legend = make("div", "cw-ps-legend");
  const score = liveRegion("div", "cw-ps-score");

  const asking = ["I/PRON ate/VERB fish/NOUN", "new sentence as word/UPOS tokens", "parse"];
  const { ask, text } = askForm("cw-ps-ask", ...asking);
  const error = make("span", "cw-ps-error");
  ask.append(error);

  root.append(title, controls, stackRow, bufferRow, nextRow, probs, scroll, score, legend, ask);
  el.append(root);

  function record() {
    const all = model.get("sentences") || [];
    const i = clampIndex(model.get("index"), all.length);
    return all[i] || { words: [], steps: [{ stack: [0], next: 1, t: "", top: [], arc: null }] };
  }

  function currentStep(r) {
    return Math.min(Math.max(0, model.get("step") | 0), r.steps.length - 1);
  }

  function chips(row, key, ids, names, cls) {
    row.replaceChildren(make("span", "cw-ps-key", key));
    if (!ids.length) row.append(make("span", "cw-ps-empty", "empty"));
    ids.forEach((id, k) => {
      const chip = make("span", `cw-ps-chip ${cls}`, names[id]);
      if (cls === "cw-stack" && k === ids.length - 1) chip.classList.add("cw-top");
      row.append(chip);
    });
  }

  function drawArcs(r, k, stackSet, bufferFrom) {
    const names = ["ROOT", ...r.words];
    const xs = [];
    let x = 10;
    names.forEach((w) => {
      const width = Math.max(56, 7.5 * w.length + 18);
      xs.push(x + width / 2);
      x += width;
    });
    const arcs = r.steps.slice(1, k + 1).map((s) => s.arc).filter((a) => a);
    const gold = r.gold_heads;
    const height = (h, d) => 10 + 22 * Math.sqrt(Math.abs(h - d)); // long arcs stay low
    const up = Math.max(30, ...arcs.map(([h, d]) => height(h, d) + 16));
    const down = gold ? Math.max(30, ...gold.map((h, i) => height(h, i + 1) + 16)) : 8;
    const base = up + 12;
    const box = svg("svg", { width: x + 10, height: base + 14 + down, role: "img",
      class: "cw-ps-svg" });
    box.setAttribute("aria-label", `dependency arcs after state ${k}: ${arcs.length} arcs`);
    const defs = svg("defs");
    Object.entries(COLOURS).forEach(([name, colour]) => {
      const marker = svg("marker", { id: `${uid}-${name}`, viewBox: "0 0 10 10", refX: 5,
        refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" });
      marker.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: colour }));
      defs.append(marker);
    });
    box.append(defs);
    function arc(h, d, label, colour, below, cls) {
      const y0 = below ? base + 12 : base - 12;
      const lift = (below ? 1 : -1) * height(h, d) * 4 / 3;
      const path = svg("path", {
        d: `M${xs[h]},${y0} C${xs[h]},${y0 + lift} ${xs[d]},${y0 + lift} ${xs[d]},${y0}`,
        fill: "none", stroke: COLOURS[colour], "stroke-width": 1.5,
        "marker-end": `url(#${uid}-${colour})`, class: cls });
      if (below) path.setAttribute("stroke-dasharray", "4 3");
      box.append(path);
      const ty = y0 + lift * 0.75 + 4;
      const tag = svg("text", { x: (xs[h] + xs[d]) / 2, y: ty, "text-anchor": "middle",
        "font-size": 11, fill: COLOURS[colour], "paint-order": "stroke", stroke: "#fff",
        "stroke-width": 3, class: `${cls}-label` }, label);
      box.append(tag);
    }
    if (gold) gold.forEach((h, i) => arc(h, i + 1, r.gold_labels[i], "gold", true, "cw-gold"));
    arcs.forEach(([h, d, label]) => {
      let colour = "plain";
      if (gold) {
        if (gold[d - 1] !== h) colour = "head";
        else colour = r.gold_labels[d - 1] === label ? "ok" : "label";
      }
      arc(h, d, label, colour, false, "cw-arc");
    });
    names.forEach((w, i) => {
      const fill = stackSet.has(i) ? "#0969da" : i >= bufferFrom ? "#57606a" : "#1f2328";
      box.append(svg("text", { x: xs[i], y: base + 4, "text-anchor": "middle",
        "font-size": 13, "font-weight": i === 0 || stackSet.has(i) ? 700 : 400, fill,
        class: "cw-word" }, w));
    });
    scroll.replaceChildren(box);
  }

  function paint() {
    const r = record();
    const k = currentStep(r);
    const s = r.steps[k];
    const names = ["ROOT", ...r.words];
    const n = r.words.length;
    const buffer = [];
    for (let i = s.next; i <= n; i++) buffer.push(i);
    slider.max = String(r.steps.length - 1);
    slider.value = String(k);
    slider.setAttribute("aria-valuetext", `state ${k} of ${r.steps.length - 1}`);
    where.textContent = `state ${k} / ${r.steps.length - 1}`;
    first.disabled = prev.disabled = k <= 0;
    next.disabled = last.disabled = k >= r.steps.length - 1;
    chips(stackRow, "Stack", s.stack, names, "cw-stack");
    chips(bufferRow, "Buffer", buffer, names, "cw-buffer");
    const who = model.get("has_model") === false ? "Oracle" : "Next";
    nextRow.replaceChildren(make("span", "cw-ps-key", who));
    nextRow.append(make("span", "cw-ps-transition", s.t || "done: the parse is complete"));
    probs.replaceChildren();
    (s.top || []).forEach(([name, p]) => {
      const chosen = name === s.t;
      const label = make("span", chosen ? "cw-chosen" : "", name);
      const bar = make("span", `cw-ps-bar${chosen ? " cw-bar-chosen" : ""}`);
      bar.style.width = `${Math.max(1, Math.round(120 * p))}px`;
      probs.append(label, bar, make("span", chosen ? "cw-chosen" : "", p.toFixed(3)));
    });
    probs.hidden = !(s.top || []).length;
    drawArcs(r, k, new Set(s.stack), s.next);
    score.textContent = k === r.steps.length - 1 && r.score ? `Final tree: ${r.score}` : "";
    legend.textContent = r.gold_heads
      ? "Above: the arcs so far (green: right head and label; orange: right head, wrong " +
        "label; red: wrong head). Below, dashed: the gold tree."
      : "Above: the arcs so far (no gold tree for this sentence).";
  }

  function build() {
    const names = (model.get("sentences") || []).map((r) => r.name);
    drawHeader(model, { root, title, pick, error }, names, "parser state");
    paint();
  }

  stepControls(model, () => record().steps.length, { pick, slider, first, prev, next, last });
  sendRequests(model, ask, text);

  const handlers = [
    ["change:sentences", build],
    ["change:title", build],
    ["change:error", build],
    ["change:index", build],
    ["change:step", paint],
  ];
  return listen(model, handlers, build);
}

export default { render };
