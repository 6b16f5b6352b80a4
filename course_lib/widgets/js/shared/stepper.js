// The controls of a stepped explorer (parser states, BPE merges, CTC frames).
// A shared file of widgets/js: whole, plain declarations (no import or export);
// base.js_source puts it in front of each module that uses one of its names.

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
