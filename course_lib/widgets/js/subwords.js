// SubwordExplorer front end (course_lib/widgets/subwords.py). Chapter 9.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes, so the
// same file runs under anywidget (live) and under the book's stand-in model (html).
// Traits read: items [{name, words, steps: [{segs: [[piece]], word, at, rank, pair}],
// ids: [[id]], wordpiece: [[[piece, id]]] | null}], index, step, title, kind, error,
// _kernel. Written: index, step, request. Shared helpers come from js/shared.

const CSS = `
.cw-sw-title { font-weight: 600; margin-bottom: 4px; }
.cw-sw-controls, .cw-sw-ask { display: flex; align-items: center; gap: 6px;
  flex-wrap: wrap; margin-bottom: 6px; }
.cw-sw select, .cw-sw input[type=text] { font: inherit; max-width: 100%; }
.cw-sw input[type=text] { width: 24em; }
.cw-sw input[type=range] { width: 160px; accent-color: #3b528b; }
.cw-sw-where { font-variant-numeric: tabular-nums; min-width: 7em; }
.cw-sw-row { display: flex; align-items: center; gap: 4px; margin: 4px 0; flex-wrap: wrap; }
.cw-sw-key { color: #57606a; width: 6.5em; flex: none; }
.cw-sw-word { display: inline-flex; gap: 2px; margin-right: 10px; }
.cw-sw-piece { display: inline-flex; flex-direction: column; align-items: center;
  padding: 0 5px; border-radius: 4px; border: 1px solid #54aeff; background: #ddf4ff;
  font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre; }
.cw-sw-piece.cw-new { background: #fde4cf; border-color: #d95f02; font-weight: 700; }
.cw-sw-piece.cw-wp { background: #e6f4ea; border-color: #4caf50; }
.cw-sw-piece.cw-unk { background: #ffebe9; border-color: #cf222e; }
.cw-sw-piece small { font-size: 10px; color: #57606a; font-family: system-ui, sans-serif; }
.cw-sw-merge { min-height: 1.4em; font-variant-numeric: tabular-nums; }
.cw-sw-error { color: #c62828; }
.cw-sw-legend { font-size: 12px; color: #57606a; margin-top: 2px; }
`;

function render({ model, el }) {
  const uid = uniqueId("cw-sw");
  const root = widgetRoot("cw-sw", CSS);
  const title = make("div", "cw-sw-title");
  const { controls, pick, first, prev, slider, next, last, where } = stepBar(uid, "cw-sw", [
    "word", "characters", "previous merge", "merge step", "next merge", "final pieces",
  ]);

  const merge = liveRegion("div", "cw-sw-merge");
  const current = make("div", "cw-sw-row cw-sw-current");
  const final = make("div", "cw-sw-row cw-sw-final");
  const wordpiece = make("div", "cw-sw-row cw-sw-wordpiece");
  const { ask, text } = askForm("cw-sw-ask", "Transformerify taaaaasty", "text to tokenize",
    "tokenize");
  const error = make("span", "cw-sw-error");
  ask.append(error);
  const legend = make("div", "cw-sw-legend");
  root.append(title, controls, merge, current, final, wordpiece, legend, ask);
  el.append(root);

  function item() {
    const all = model.get("items") || [];
    const i = clampIndex(model.get("index"), all.length);
    return all[i] || { name: "", words: [], steps: [{ segs: [] }], ids: [], wordpiece: null };
  }

  function currentStep(it) {
    return Math.min(Math.max(0, model.get("step") | 0), it.steps.length - 1);
  }

  // one row: a label, then each word's pieces as boxes (ids below when given)
  function row(node, key, words, cls, isNew) {
    node.replaceChildren(make("span", "cw-sw-key", key));
    words.forEach((pieces, w) => {
      const group = make("span", "cw-sw-word");
      pieces.forEach(([piece, id], i) => {
        const box = make("span", `cw-sw-piece ${cls}`);
        box.append(make("span", null, piece));
        if (id !== undefined && id !== null) box.append(make("small", null, String(id)));
        if (isNew && isNew(w, i)) box.classList.add("cw-new");
        if (cls === "cw-wp" && piece === "[UNK]") box.classList.add("cw-unk");
        group.append(box);
      });
      node.append(group);
    });
  }

  function paint() {
    const it = item();
    const k = currentStep(it);
    const s = it.steps[k];
    const n = it.steps.length - 1;
    slider.max = String(n);
    slider.value = String(k);
    slider.setAttribute("aria-valuetext", `merge ${k} of ${n}`);
    where.textContent = `merge ${k} / ${n}`;
    first.disabled = prev.disabled = k <= 0;
    next.disabled = last.disabled = k >= n;
    merge.textContent = k === 0
      ? `“${it.name}” starts as ${s.segs.reduce((a, w) => a + w.length, 0)} symbols.`
      : `merge ${k}: ${s.pair[0]} + ${s.pair[1]} → ${s.pair[0]}${s.pair[1]} ` +
        `(rank ${s.rank} of the learnt merges)`;
    const segs = s.segs.map((w) => w.map((p) => [p]));
    row(current, k === n ? "Final" : "BPE now", segs, "", (w, i) => k > 0 &&
      w === s.word && i === s.at);
    const last_ = it.steps[n].segs;
    row(final, "BPE ids", last_.map((w, j) => w.map((p, i) => [p, it.ids[j][i]])), "");
    wordpiece.hidden = !it.wordpiece;
    if (it.wordpiece) row(wordpiece, "WordPiece", it.wordpiece, "cw-wp");
    legend.textContent = (model.get("kind") === "byte_bpe"
      ? "Byte-level BPE: each symbol is one byte, Ġ a space (GPT-2's byte map). "
      : "") + (it.wordpiece ? "WordPiece: longest match first, ## continues a word." : "");
    legend.hidden = !legend.textContent;
  }

  function build() {
    const names = (model.get("items") || []).map((it) => it.name);
    drawHeader(model, { root, title, pick, error }, names, "subword explorer");
    paint();
  }

  stepControls(model, () => item().steps.length, { pick, slider, first, prev, next, last });
  sendRequests(model, ask, text);

  const handlers = [
    ["change:items", build],
    ["change:title", build],
    ["change:kind", build],
    ["change:error", build],
    ["change:index", build],
    ["change:step", paint],
  ];
  return listen(model, handlers, build);
}

export default { render };
