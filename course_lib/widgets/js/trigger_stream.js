// TriggerStreamView front end (course_lib/widgets/trigger_stream.py). Chapter 10.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes.
// Traits read: probs (Y), truths, step_seconds, refractory, tolerance, threshold, image,
// title. The detector and the scoring repeat course_lib.speech.events in JavaScript.

const CSS = `
.cw-ts-title { font-weight: 600; margin-bottom: 4px; }
.cw-ts-controls { display: flex; align-items: center; gap: 6px; margin-bottom: 6px; }
.cw-ts input[type=range] { width: 240px; accent-color: #3b528b; }
.cw-ts-img { display: block; width: 760px; height: 90px; }
.cw-ts-readout { margin-top: 4px; font-variant-numeric: tabular-nums; }
`;
const W = 760;
const H = 120;

// Firing steps: p >= threshold while armed; a firing disarms, and the detector is armed
// again at the first step with p < threshold at least `refractory` steps after it
// (course_lib.speech.events.detect_events).
function detect(probs, threshold, refractory) {
  const fired = [];
  let armed = true;
  probs.forEach((p, y) => {
    if (armed && p >= threshold) {
      fired.push(y);
      armed = false;
    } else if (!armed && p < threshold && y - fired[fired.length - 1] >= refractory) {
      armed = true;
    }
  });
  return fired;
}

// [hits, false alarms, misses]: each detection claims the earliest free truth in range.
function score(times, truths, tolerance) {
  const free = truths.slice().sort((a, b) => a - b);
  let hits = 0;
  times.forEach((d) => {
    const i = free.findIndex((t) => Math.abs(d - t) <= tolerance);
    if (i >= 0) {
      free.splice(i, 1);
      hits += 1;
    }
  });
  return [hits, times.length - hits, free.length];
}

function render({ model, el }) {
  const uid = uniqueId("cw-ts");
  const root = widgetRoot("cw-ts", CSS);
  const title = make("div", "cw-ts-title");
  const controls = make("div", "cw-ts-controls");
  const label = make("label", null, "Threshold");
  label.htmlFor = `${uid}-th`;
  const slider = control(make("input"));
  slider.type = "range";
  slider.id = `${uid}-th`;
  slider.min = "0.05";
  slider.max = "0.95";
  slider.step = "0.05";
  const value = liveRegion("output", null);
  controls.append(label, slider, value);
  const img = make("img", "cw-ts-img");
  img.alt = "log-mel spectrogram of the stream";
  const plot = svg("svg", { width: W, height: H, role: "img" });
  const readout = liveRegion("div", "cw-ts-readout");
  root.append(title, controls, img, plot, readout);
  el.append(root);

  function draw() {
    const probs = model.get("probs") || [];
    const truths = model.get("truths") || [];
    const dt = model.get("step_seconds");
    const th = model.get("threshold");
    const seconds = probs.length * dt;
    const x = (s) => (s / seconds) * W;
    const y = (p) => H - 8 - p * (H - 16);
    title.textContent = model.get("title") || "";
    img.src = model.get("image") || "";
    slider.value = String(th);
    value.textContent = th.toFixed(2);
    const line = probs.map((p, k) => `${x(k * dt).toFixed(1)},${y(p).toFixed(1)}`);
    const times = detect(probs, th, model.get("refractory")).map((k) => k * dt);
    const [hits, fas, misses] = score(times, truths, model.get("tolerance"));
    plot.replaceChildren(
      svg("rect", { x: 0, y: 0, width: W, height: H, fill: "#fff", stroke: "#d8dee4" }),
      ...truths.map((t) =>
        svg("line", { x1: x(t), x2: x(t), y1: 4, y2: H - 4, stroke: "#2da44e", "stroke-width": 2, opacity: 0.6 }),
      ),
      svg("polyline", { points: line.join(" "), fill: "none", stroke: "#3b528b", "stroke-width": 1.2 }),
      svg("line", { x1: 0, x2: W, y1: y(th), y2: y(th), stroke: "#57606a", "stroke-dasharray": "4 3" }),
      ...times.map((t) =>
        svg("path", { d: `M${x(t) - 5},2 L${x(t) + 5},2 L${x(t)},10 Z`, fill: "#cf222e" }),
      ),
    );
    plot.setAttribute(
      "aria-label",
      `probability over ${seconds.toFixed(0)} seconds with ${times.length} detections`,
    );
    readout.textContent =
      `threshold ${th.toFixed(2)}: ${times.length} detections — ${hits} hits, ` +
      `${fas} false alarms, ${misses} misses (green: trigger ends, red: detections)`;
  }

  slider.addEventListener("input", () => {
    model.set("threshold", Number(slider.value));
    model.save_changes();
  });
  const keys = ["probs", "truths", "step_seconds", "refractory", "tolerance", "threshold", "image", "title"];
  return listen(model, keys.map((k) => [`change:${k}`, draw]), draw);
}

export default { render };
