// GradientFlowExplorer front end (course_lib/widgets/gradient_flow.py). Chapters 3 and 6.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes, so the
// same file runs under anywidget (live) and under the book's stand-in model (html).
// Traits read: controls [{name, label, options}], selection {name: option}, states
// {key: {n, norm, q}} (log10 values, null = exactly zero), name_lists, levels, y_range,
// shared_axis, title, x_label, value_label, _kernel. A key is the options joined by "|".
// Shared helpers come from js/shared (see base.js_source).

const CSS = `
.cw-gf { line-height: 18px; } /* whole pixels: the card's height must not depend on where it sits */
.cw-gf-title { font-weight: 600; margin-bottom: 4px; }
.cw-gf-controls { display: flex; flex-wrap: wrap; gap: 4px 14px; margin-bottom: 6px; }
.cw-gf fieldset { border: 0; margin: 0; padding: 0; display: flex; align-items: center;
  gap: 2px; flex-wrap: wrap; }
.cw-gf legend { float: left; width: auto; margin: 0 4px 0 0; color: #57606a; padding: 0;
  font-size: inherit; font-weight: inherit; line-height: inherit; }
.cw-gf-opt { position: relative; }
.cw-gf-opt input { position: absolute; opacity: 0; width: 1px; height: 1px; margin: 0; }
.cw-gf-opt span { display: inline-block; padding: 0 7px; border: 1px solid #8c959f;
  border-radius: 4px; background: #f6f8fa; cursor: pointer; }
.cw-gf-opt input:checked + span { background: #3b528b; border-color: #3b528b; color: #fff; }
.cw-gf-opt input:focus-visible + span { outline: 2px solid #0969da; outline-offset: 1px; }
.cw-gf svg { display: block; max-width: 100%; height: auto; }
.cw-gf svg:focus-visible { outline: 2px solid #0969da; }
.cw-gf-axis { font-size: 11px; fill: #57606a; }
.cw-gf-grid { stroke: #eaeef2; }
.cw-gf-whisker { stroke: #8c959f; }
.cw-gf-box { fill: #9ecae1; stroke: #6baed6; }
.cw-gf-median { stroke: #08519c; stroke-width: 2; }
.cw-gf-line { fill: none; stroke: #d62728; stroke-width: 1.5; }
.cw-gf-norm { fill: #d62728; }
.cw-gf-col.cw-hl .cw-gf-band { fill: #fff8c5; }
.cw-gf-band { fill: transparent; }
.cw-gf-readout { min-height: 18px; font-variant-numeric: tabular-nums; }
.cw-gf-legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px;
  color: #57606a; align-items: center; }
.cw-gf-key { display: inline-block; width: 10px; height: 10px; margin-right: 4px;
  vertical-align: -1px; }
`;

const W = 640;
const H = 300;
const M = { left: 58, right: 12, top: 10, bottom: 40 };
const SUP = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

function power(k) {
  return "10" + String(k).split("").map((c) => SUP[c] || c).join("");
}

function sci(log10) {
  if (log10 === null || log10 === undefined) return "0";
  const [m, e] = Math.pow(10, log10).toExponential(2).split("e");
  return `${m}×${power(Number(e))}`;
}

function render({ model, el }) {
  const uid = uniqueId("cw-gf");
  const root = widgetRoot("cw-gf", CSS);
  const title = make("div", "cw-gf-title");
  const controls = make("div", "cw-gf-controls");
  const plot = control(svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, tabindex: 0 }));
  plot.setAttribute("role", "img");
  plot.setAttribute("aria-describedby", `${uid}-readout`);
  const readout = liveRegion("div", "cw-gf-readout", `${uid}-readout`);
  const legend = make("div", "cw-gf-legend");
  const norm = make("span");
  const normKey = make("span", "cw-gf-key");
  normKey.style.background = "#d62728";
  normKey.style.borderRadius = "50%";
  const box = make("span");
  const boxKey = make("span", "cw-gf-key");
  boxKey.style.background = "#9ecae1";
  const shared = make("label");
  const sharedBox = control(make("input"));
  sharedBox.type = "checkbox";
  shared.append(sharedBox, " same y axis for every setting");
  norm.append(normKey);
  box.append(boxKey);
  const normText = make("span");
  const boxText = make("span");
  norm.append(normText);
  box.append(boxText);
  legend.append(norm, box, shared);
  root.append(title, controls, plot, readout, legend);
  el.append(root);

  let cursor = null; // index of the highlighted name
  let columns = [];

  function current() {
    const sel = model.get("selection") || {};
    const key = (model.get("controls") || []).map((c) => sel[c.name]).join("|");
    const state = (model.get("states") || {})[key];
    const names = state ? (model.get("name_lists") || [])[state.n] || [] : [];
    return { key, state, names };
  }

  function range(state) {
    if (model.get("shared_axis") || !state) return model.get("y_range") || [-1, 1];
    // the norms and every quantile but the lowest (clipped at the axis, as in Python)
    const inner = state.q.map((row) => (row.length >= 3 ? row.slice(1) : row));
    const values = state.norm.concat(...inner).filter((v) => v !== null);
    if (!values.length) return model.get("y_range") || [-1, 1];
    const lo = Math.floor(Math.min(...values));
    const hi = Math.ceil(Math.max(...values));
    return [lo, Math.max(hi, lo + 1)];
  }

  function showReadout() {
    const { state, names } = current();
    if (!state) {
      readout.textContent = "No data for this setting.";
      return;
    }
    if (cursor === null || cursor >= names.length) {
      readout.textContent = "Hover over a layer, or focus the plot and use the arrow keys.";
      return;
    }
    const q = state.q[cursor];
    const levels = model.get("levels") || [];
    const pct = (p) => `${Math.round(100 * p)}%`;
    const mid = Math.floor(q.length / 2);
    readout.textContent =
      `${names[cursor]}: ‖g‖ = ${sci(state.norm[cursor])}; median |g| = ${sci(q[mid])}` +
      (q.length > 1
        ? `, ${pct(levels[0])}–${pct(levels[q.length - 1])}: ${sci(q[0])} – ${sci(q[q.length - 1])}`
        : "");
  }

  function setCursor(i) {
    if (cursor !== null && columns[cursor]) columns[cursor].classList.remove("cw-hl");
    cursor = i;
    if (cursor !== null && columns[cursor]) columns[cursor].classList.add("cw-hl");
    showReadout();
  }

  function draw() {
    const { state, names } = current();
    plot.replaceChildren();
    columns = [];
    if (!state) {
      showReadout();
      return;
    }
    const [lo, hi] = range(state);
    const ph = H - M.top - M.bottom;
    const pw = W - M.left - M.right;
    const y = (v) => M.top + ph * (1 - (Math.min(hi, Math.max(lo, v === null ? lo : v)) - lo) / (hi - lo));
    const band = pw / Math.max(1, names.length);
    const x = (i) => M.left + band * (i + 0.5);
    const step = Math.max(1, Math.ceil((hi - lo) / 8));
    for (let k = Math.ceil(lo); k <= hi; k += step) {
      plot.append(svg("line", { x1: M.left, x2: W - M.right, y1: y(k), y2: y(k), class: "cw-gf-grid" }));
      const label = svg("text", { x: M.left - 6, y: y(k) + 4, "text-anchor": "end", class: "cw-gf-axis" });
      label.textContent = power(k);
      plot.append(label);
    }
    const every = Math.max(1, Math.ceil(names.length / 16));
    const boxW = Math.max(2, Math.min(18, band * 0.6));
    names.forEach((name, i) => {
      const q = state.q[i];
      const g = svg("g", { "data-i": i, "data-norm": state.norm[i] ?? "", class: "cw-gf-col" });
      g.append(svg("rect", { x: x(i) - band / 2, y: M.top, width: band, height: ph, class: "cw-gf-band" }));
      g.append(svg("line", { x1: x(i), x2: x(i), y1: y(q[0]), y2: y(q[q.length - 1]), class: "cw-gf-whisker" }));
      if (q.length >= 3) {
        const top = y(q[q.length - 2]);
        g.append(svg("rect", { x: x(i) - boxW / 2, y: top, width: boxW, height: Math.max(1, y(q[1]) - top), class: "cw-gf-box" }));
      }
      const mid = q[Math.floor(q.length / 2)];
      g.append(svg("line", { x1: x(i) - boxW / 2, x2: x(i) + boxW / 2, y1: y(mid), y2: y(mid), class: "cw-gf-median" }));
      g.append(svg("circle", { cx: x(i), cy: y(state.norm[i]), r: 3, class: "cw-gf-norm" }));
      // every `every`-th name, and the last one unless a labelled name is too close to it
      const last = i === names.length - 1;
      const crowded = !last && names.length - 1 - i < every / 2;
      if ((i % every === 0 && !crowded) || last) {
        const label = svg("text", { x: x(i), y: H - M.bottom + 14, "text-anchor": "middle", class: "cw-gf-axis" });
        label.textContent = name.split(" ").pop();
        g.append(label);
      }
      plot.append(g);
      columns.push(g);
    });
    const points = names.map((_, i) => `${x(i)},${y(state.norm[i])}`).join(" ");
    plot.insertBefore(svg("polyline", { points, class: "cw-gf-line" }), columns[0] || null);
    const xl = svg("text", { x: M.left + pw / 2, y: H - 6, "text-anchor": "middle", class: "cw-gf-axis" });
    xl.textContent = model.get("x_label") || "";
    plot.append(xl);
    plot.setAttribute(
      "aria-label",
      `${model.get("value_label") || "gradient"} for ${names.length} ${model.get("x_label") || "names"}, log scale; arrow keys move the cursor`,
    );
    if (cursor !== null && cursor >= names.length) cursor = names.length - 1;
    setCursor(cursor);
  }

  function buildControls() {
    controls.replaceChildren();
    const sel = model.get("selection") || {};
    (model.get("controls") || []).forEach((c, ci) => {
      const set = make("fieldset");
      set.append(make("legend", null, c.label));
      c.options.forEach((option) => {
        const label = make("label", "cw-gf-opt");
        const input = control(make("input"));
        input.type = "radio";
        input.name = `${uid}-c${ci}`;
        input.value = option;
        input.checked = sel[c.name] === option;
        input.addEventListener("change", () => {
          if (!input.checked) return;
          model.set("selection", { ...(model.get("selection") || {}), [c.name]: option });
          model.save_changes();
        });
        label.append(input, make("span", null, option));
        set.append(label);
      });
      controls.append(set);
    });
    controls.hidden = !controls.childElementCount;
  }

  function syncControls() {
    const sel = model.get("selection") || {};
    controls.querySelectorAll("input").forEach((input) => {
      const ci = Number(input.name.split("-c").pop());
      const c = (model.get("controls") || [])[ci];
      input.checked = c !== undefined && sel[c.name] === input.value;
    });
    draw();
  }

  function build() {
    root.setAttribute("data-kernel", model.get("_kernel") === false ? "false" : "true");
    title.textContent = model.get("title") || "";
    title.hidden = !title.textContent;
    root.setAttribute("aria-label", title.textContent || "gradient flow");
    const levels = model.get("levels") || [];
    const pct = (p) => `${Math.round(100 * p)}%`;
    normText.textContent = `norm ‖g‖ of ${model.get("value_label") || "the gradient"}`;
    boxText.textContent =
      levels.length >= 3
        ? `entries |g|: box ${pct(levels[1])}–${pct(levels[levels.length - 2])}, whiskers ${pct(levels[0])}–${pct(levels[levels.length - 1])}, median`
        : "entries |g|";
    sharedBox.checked = !!model.get("shared_axis");
    buildControls();
    draw();
  }

  sharedBox.addEventListener("change", () => {
    model.set("shared_axis", sharedBox.checked);
    model.save_changes();
  });
  plot.addEventListener("mouseover", (event) => {
    const col = event.target.closest(".cw-gf-col");
    if (col) setCursor(Number(col.getAttribute("data-i")));
  });
  plot.addEventListener("focus", () => {
    if (cursor === null && columns.length) setCursor(0);
  });
  plot.addEventListener("keydown", (event) => {
    const n = columns.length;
    if (!n) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, Home: -n, End: n };
    if (!(event.key in moves)) return;
    event.preventDefault();
    setCursor(Math.min(n - 1, Math.max(0, (cursor ?? 0) + moves[event.key])));
  });

  const handlers = [
    ["change:selection", syncControls],
    ["change:shared_axis", build],
    ...["controls", "states", "name_lists", "levels", "y_range", "title", "x_label", "value_label"].map(
      (key) => [`change:${key}`, build],
    ),
  ];
  return listen(model, handlers, build);
}

export default { render };
