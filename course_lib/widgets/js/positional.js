// PositionalExplorer front end (course_lib/widgets/positional.py). Chapter 8.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes, so the
// same file runs under anywidget (live) and under the book's stand-in model (html).
// Traits read: pe (T x D), wavelengths (D/2), learned (T' x D' or []), learned_label,
// d_model, length, base, offset, dim, title, _kernel.
// Shared helpers come from js/shared (see base.js_source).

const CSS = `
.cw-pe-title { font-weight: 600; margin-bottom: 4px; }
.cw-pe-row { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; margin: 4px 0; }
.cw-pe input[type=range] { width: 200px; accent-color: #3b528b; }
.cw-pe input[type=number] { width: 5.5em; font: inherit; }
.cw-pe-panels { display: flex; gap: 10px; flex-wrap: wrap; align-items: flex-start; }
.cw-pe-panel { display: flex; flex-direction: column; align-items: center; }
.cw-pe-panel span { font-size: 12px; color: #57606a; }
.cw-pe canvas { border: 1px solid #d8dee4; }
.cw-pe-legend { font-size: 12px; color: #57606a; }
.cw-pe-readout { margin-top: 4px; min-height: 1.4em; font-variant-numeric: tabular-nums; }
`;

const COLOURS = ["#3b528b", "#d95f02"];

function diverging(v, lim) {
  const x = Math.max(-1, Math.min(1, v / (lim || 1)));
  const a = Math.round(255 * (1 - Math.abs(x)));
  return x >= 0 ? `rgb(255,${a},${a})` : `rgb(${a},${a},255)`;
}

// cosine similarity: comparable between the sinusoids and a learned table of any scale
function cosine(a, b) {
  let s = 0;
  let na = 0;
  let nb = 0;
  for (let j = 0; j < a.length; j++) {
    s += a[j] * b[j];
    na += a[j] * a[j];
    nb += b[j] * b[j];
  }
  return s / (Math.sqrt(na * nb) || 1);
}

// cos(PE(t), PE(t+k)) along t, for one k
function alongT(table, k) {
  const out = [];
  for (let t = 0; t + k < table.length; t++) out.push(cosine(table[t], table[t + k]));
  return out;
}

function mean(xs) {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

function drawHeat(canvas, table, mark) {
  const ctx = canvas.getContext("2d");
  const T = table.length;
  const D = T ? table[0].length : 0;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!T || !D) return;
  const lim = Math.max(1e-9, ...table.map((r) => Math.max(...r.map(Math.abs))));
  const w = canvas.width / D;
  const h = canvas.height / T;
  for (let t = 0; t < T; t++) {
    for (let d = 0; d < D; d++) {
      ctx.fillStyle = diverging(table[t][d], lim);
      ctx.fillRect(d * w, t * h, Math.ceil(w), Math.ceil(h));
    }
  }
  ctx.strokeStyle = "#1f2328";
  ctx.lineWidth = 1.5;
  (mark || []).forEach((t) => {
    if (t < T) ctx.strokeRect(0.5, t * h + 0.5, canvas.width - 1, Math.max(1, h - 1));
  });
}

// y tick labels at `ticks` (default: the range's ends and 0), x labels at the first and
// last index, in a left and a bottom margin
function drawLines(canvas, series, { lo, hi, xmark, marks, ticks } = {}) {
  const ctx = canvas.getContext("2d");
  const W = canvas.width;
  const H = canvas.height;
  ctx.clearRect(0, 0, W, H);
  const all = series.flatMap((s) => s.ys).filter(Number.isFinite);
  const ymin = lo ?? Math.min(...all, 0);
  const ymax = hi ?? Math.max(...all, 0.01);
  const n = Math.max(2, ...series.map((s) => s.ys.length));
  const left = 24;
  const bottom = 13;
  const x = (i) => left + ((W - left - 5) * i) / (n - 1);
  const y = (v) => H - bottom - ((H - bottom - 6) * (v - ymin)) / (ymax - ymin || 1);
  ctx.strokeStyle = "#d8dee4";
  ctx.beginPath();
  ctx.moveTo(left, y(0));
  ctx.lineTo(W, y(0));
  ctx.stroke();
  ctx.fillStyle = "#57606a";
  ctx.font = "10px sans-serif";
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  [...new Set(ticks ?? [ymin, 0, ymax])].forEach((v) => {
    ctx.fillText(String(Number(v.toFixed(2))).replace("-", "\u2212"), left - 3, y(v));
  });
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  [0, n - 1].forEach((i) => ctx.fillText(String(i), x(i), H - bottom + 2));
  series.forEach((s, k) => {
    ctx.strokeStyle = s.colour || COLOURS[k % COLOURS.length];
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    s.ys.forEach((v, i) => (i ? ctx.lineTo(x(i), y(v)) : ctx.moveTo(x(i), y(v))));
    ctx.stroke();
  });
  if (xmark !== undefined) {
    ctx.strokeStyle = "#57606a";
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    ctx.moveTo(x(xmark), 0);
    ctx.lineTo(x(xmark), H);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  (marks || []).forEach(([i, v, colour]) => {
    ctx.fillStyle = colour;
    ctx.beginPath();
    ctx.arc(x(i), y(v), 4, 0, 2 * Math.PI);
    ctx.fill();
  });
}

function render({ model, el }) {
  const uid = uniqueId("cw-pe");
  const root = widgetRoot("cw-pe", CSS);
  const title = make("div", "cw-pe-title");

  // kernel-only controls: d_model, length, base
  const kernelRow = make("div", "cw-pe-row");
  kernelRow.setAttribute("data-kernel-only", "");
  const numbers = {};
  [["d_model", 2, 512, 2], ["length", 2, 512, 1], ["base", 2, 1e6, 1]].forEach(
    ([key, min, max, step]) => {
      const label = make("label", null, key + " ");
      const input = control(make("input"));
      input.type = "number";
      input.min = String(min);
      input.max = String(max);
      input.step = String(step);
      const commit = () => {
        let v = Number(input.value);
        if (!Number.isFinite(v)) return;
        v = Math.min(max, Math.max(min, v));
        if (key === "d_model") v = 2 * Math.round(v / 2);
        if (key !== "base") v = Math.round(v);
        model.set(key, v);
        model.save_changes();
      };
      input.addEventListener("change", commit);
      // JupyterLab swallows the change that Enter makes in an output (jupyterlab#6555)
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter") commit();
      });
      label.append(input);
      kernelRow.append(label);
      numbers[key] = input;
    },
  );

  function slider(text, key) {
    const row = make("div", "cw-pe-row");
    const label = make("label", null, text);
    const input = control(make("input"));
    input.type = "range";
    input.id = `${uid}-${key}`;
    input.min = "0";
    input.step = "1";
    label.htmlFor = input.id;
    const out = liveRegion("output");
    out.htmlFor = input.id;
    input.addEventListener("input", () => {
      model.set(key, Number(input.value));
      model.save_changes();
    });
    row.append(label, input, out);
    return { row, input, out };
  }
  const k = slider("offset k", "offset");
  const d = slider("sin/cos pair i", "dim");

  const panels = make("div", "cw-pe-panels");
  function panel(caption, w, h) {
    const box = make("div", "cw-pe-panel");
    const canvas = make("canvas");
    canvas.width = w;
    canvas.height = h;
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", caption);
    box.append(canvas, make("span", null, caption));
    panels.append(box);
    return { box, canvas };
  }
  const heat = panel("PE: position (rows) × dimension", 220, 220);
  const byK = panel("mean over t of cos(PE(t), PE(t+k)), by k", 220, 160);
  const byT = panel("cos(PE(t), PE(t+k)) by t, this k", 220, 160);
  const wave = panel("the pair's sinusoids by t; marks: t, t+k", 220, 160);
  const learnedHeat = panel("", 220, 220);
  const legend = make("div", "cw-pe-legend");
  const readout = liveRegion("div", "cw-pe-readout");
  root.append(title, kernelRow, k.row, d.row, panels, legend, readout);
  el.append(root);

  let t0 = 0; // the position hovered on the heatmap

  function draw() {
    const pe = model.get("pe") || [];
    const learned = model.get("learned") || [];
    const label = model.get("learned_label") || "learned";
    const waves = model.get("wavelengths") || [];
    const T = pe.length;
    const kk = clampIndex(model.get("offset"), T);
    const ii = clampIndex(model.get("dim"), waves.length);
    root.setAttribute("data-kernel", model.get("_kernel") === false ? "false" : "true");
    title.textContent = model.get("title") || "";
    ["d_model", "length", "base"].forEach((key) => {
      numbers[key].value = String(model.get(key));
    });
    k.input.max = String(Math.max(0, T - 1));
    k.input.value = String(kk);
    k.out.textContent = String(kk);
    d.input.max = String(Math.max(0, waves.length - 1));
    d.input.value = String(ii);
    const wl = waves[ii];
    d.out.textContent = `i = ${ii} (dims ${2 * ii}, ${2 * ii + 1}), wavelength ${wl}`;
    t0 = Math.min(t0, Math.max(0, T - 1 - kk));
    drawHeat(heat.canvas, pe, [t0, t0 + kk]);
    const sinK = [];
    for (let j = 0; j < T; j++) sinK.push(mean(alongT(pe, j)));
    const series = [{ ys: sinK }];
    const learnedK = [];
    if (learned.length) {
      for (let j = 0; j < learned.length; j++) learnedK.push(mean(alongT(learned, j)));
      series.push({ ys: learnedK });
    }
    drawLines(byK.canvas, series, { xmark: kk, lo: -1, hi: 1 });
    const along = alongT(pe, kk);
    const alongL = learned.length && kk < learned.length ? alongT(learned, kk) : [];
    drawLines(byT.canvas, [{ ys: along }, ...(alongL.length ? [{ ys: alongL }] : [])], {
      lo: -1,
      hi: 1,
    });
    legend.hidden = !learned.length;
    legend.textContent = `blue: sinusoidal; orange: ${label}`;
    const omega = (2 * Math.PI) / (wl || 1);
    const sinYs = [];
    const cosYs = [];
    for (let t = 0; t < T; t++) {
      sinYs.push(Math.sin(t * omega));
      cosYs.push(Math.cos(t * omega));
    }
    drawLines(wave.canvas, [{ ys: sinYs }, { ys: cosYs, colour: "#8c959f" }], {
      lo: -1.05,
      hi: 1.05,
      ticks: [-1, 0, 1],
      marks: [
        [t0, Math.sin(t0 * omega), "#1f2328"],
        [t0 + kk, Math.sin((t0 + kk) * omega), "#d95f02"],
      ],
    });
    learnedHeat.box.hidden = !learned.length;
    learnedHeat.box.lastChild.textContent = `${label} (trained)`;
    if (learned.length) drawHeat(learnedHeat.canvas, learned, [t0, t0 + kk]);
    const spread = along.length ? Math.max(...along) - Math.min(...along) : 0;
    let text = `k = ${kk}, t = ${t0}: cos(PE(t), PE(t+k)) = ${(along[t0] ?? NaN).toFixed(3)}` +
      ` (varies by ${spread.toFixed(3)} over t)`;
    if (alongL.length) {
      const sl = Math.max(...alongL) - Math.min(...alongL);
      text += `; ${label}: mean ${mean(alongL).toFixed(3)}, varies by ${sl.toFixed(3)}`;
    }
    readout.textContent = text;
  }

  heat.canvas.addEventListener("mousemove", (event) => {
    const pe = model.get("pe") || [];
    const rect = heat.canvas.getBoundingClientRect();
    const t = Math.floor(((event.clientY - rect.top) / rect.height) * pe.length);
    const next = Math.max(0, Math.min(pe.length - 1, t));
    if (next !== t0) {
      t0 = next;
      draw();
    }
  });

  const keys = ["pe", "wavelengths", "learned", "learned_label", "offset", "dim", "title",
    "d_model", "length", "base"];
  const handlers = keys.map((key) => [`change:${key}`, draw]);
  return listen(model, handlers, draw);
}

export default { render };
