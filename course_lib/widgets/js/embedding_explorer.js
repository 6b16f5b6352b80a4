// EmbeddingExplorer front end (course_lib/widgets/embedding_explorer.py). Chapter 2.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes, so the
// same file runs under anywidget (live) and under the book's stand-in model (html).
// Traits read: title, words (Q), neighbours (Q lists of [word, cosine]), analogies
// ([{a, b, c, expected, answers}]), points (N x 2), labels (N), word_index, analogy_index,
// message, _kernel. Traits written: word_index, analogy_index, query (kernel only).
// Shared helpers come from js/shared (see base.js_source).

const CSS = `
.cw-ee-title { font-weight: 600; margin-bottom: 4px; }
.cw-ee-body { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
.cw-ee-side { min-width: 230px; max-width: 300px; }
.cw-ee-row { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin: 4px 0; }
.cw-ee select, .cw-ee input, .cw-ee button { font: inherit; }
.cw-ee select { max-width: 200px; }
.cw-ee input[type=text] { width: 150px; padding: 1px 4px; }
.cw-ee button { padding: 0 8px; border: 1px solid #8c959f; border-radius: 4px;
  background: #f6f8fa; color: #1f2328; cursor: pointer; }
.cw-ee-message { color: #cf222e; min-height: 1.2em; }
.cw-ee ol { margin: 2px 0 8px; padding-left: 22px; }
.cw-ee li { font-variant-numeric: tabular-nums; white-space: nowrap; }
.cw-ee-word { display: inline-block; min-width: 6.5em; }
.cw-ee-bar { display: inline-block; height: 8px; background: #f4a582; margin: 0 6px;
  vertical-align: 0; }
.cw-ee-value { color: #57606a; }
.cw-ee-good { color: #1a7f37; font-weight: 700; }
.cw-ee svg { display: block; max-width: 100%; height: auto; border: 1px solid #eaeef2; }
.cw-ee-pt { fill: #c0c6cc; }
.cw-ee-pt.cw-q { fill: #d62728; }
.cw-ee-pt.cw-n { fill: #f28e2b; }
.cw-ee-pt.cw-a { fill: #1f77b4; }
.cw-ee-pt.cw-ans { fill: #2ca02c; }
.cw-ee-pt.cw-cursor { stroke: #1f2328; stroke-width: 1.5; }
.cw-ee-label { font-size: 11px; fill: #1f2328; paint-order: stroke; stroke: #fff;
  stroke-width: 3px; pointer-events: none; }
.cw-ee-readout { min-height: 1.4em; margin-top: 4px; font-variant-numeric: tabular-nums; }
.cw-ee-legend { display: flex; flex-wrap: wrap; gap: 2px 12px; font-size: 12px; color: #57606a; }
.cw-ee-key { display: inline-block; width: 9px; height: 9px; border-radius: 50%;
  margin-right: 4px; vertical-align: 0; }
`;

const W = 440;
const H = 360;
const PAD = 24;

function labelled(text, node, uid) {
  const label = make("label", null, text);
  node.id = uid;
  label.htmlFor = uid;
  return label;
}

function render({ model, el }) {
  const uid = uniqueId("cw-ee");
  const root = widgetRoot("cw-ee", CSS);
  const title = make("div", "cw-ee-title");
  const body = make("div", "cw-ee-body");
  const side = make("div", "cw-ee-side");

  const wordSelect = control(make("select"));
  const wordRow = make("div", "cw-ee-row");
  wordRow.append(labelled("Word", wordSelect, `${uid}-word`), wordSelect);
  const queryRow = make("div", "cw-ee-row");
  queryRow.setAttribute("data-kernel-only", "");
  const input = control(make("input"));
  input.type = "text";
  input.placeholder = "any word, or a b c";
  input.setAttribute("aria-label", "look up a word, or three words for an analogy");
  const go = button("Look up");
  queryRow.append(input, go);
  const message = liveRegion("div", "cw-ee-message");
  const neighbourHead = make("div");
  const neighbourList = make("ol", "cw-ee-neighbours");

  const analogySelect = control(make("select"));
  const analogyRow = make("div", "cw-ee-row");
  analogyRow.append(labelled("Analogy", analogySelect, `${uid}-analogy`), analogySelect);
  const answerList = make("ol", "cw-ee-answers");
  side.append(wordRow, queryRow, message, neighbourHead, neighbourList, analogyRow, answerList);

  const mapBox = make("div");
  const map = control(svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H }));
  map.setAttribute("tabindex", "0");
  map.setAttribute("role", "img");
  const dots = svg("g");
  const tags = svg("g");
  map.append(dots, tags);
  const readout = liveRegion("div", "cw-ee-readout");
  const legend = make("div", "cw-ee-legend");
  [
    ["#d62728", "the word"],
    ["#f28e2b", "its neighbours"],
    ["#1f77b4", "analogy a, b, c"],
    ["#2ca02c", "top answer"],
  ].forEach(([colour, text]) => {
    const item = make("span");
    const key = make("span", "cw-ee-key");
    key.style.background = colour;
    item.append(key, text);
    legend.append(item);
  });
  mapBox.append(map, legend, readout);
  body.append(side, mapBox);
  root.append(title, body);
  el.append(root);

  let circles = [];
  let xy = [];
  let cursor = -1;
  const HINT = "Hover over a point (or focus the map and use the arrow keys) to read its word.";

  function scale() {
    const pts = model.get("points") || [];
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
    const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    return pts.map(([x, y]) => [
      PAD + ((x - x0) / (x1 - x0 || 1)) * (W - 2 * PAD),
      H - PAD - ((y - y0) / (y1 - y0 || 1)) * (H - 2 * PAD),
    ]);
  }

  function buildMap() {
    xy = scale();
    const labels = model.get("labels") || [];
    dots.replaceChildren();
    circles = xy.map(([x, y], i) => {
      const c = svg("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 3, class: "cw-ee-pt" });
      c.dataset.i = String(i);
      const tip = svg("title");
      tip.textContent = labels[i];
      c.append(tip);
      dots.append(c);
      return c;
    });
    map.setAttribute("aria-label", `PCA map of ${labels.length} words`);
    highlight();
  }

  function current(listName, indexName) {
    const items = model.get(listName) || [];
    const i = clampIndex(model.get(indexName), items.length);
    return { i, item: items[i], items };
  }

  function fillSelect(select, texts, index) {
    fillOptions(select, texts);
    select.value = String(index);
  }

  function analogyText(q) {
    return `${q.a} : ${q.b} :: ${q.c} : ?`;
  }

  function showWord() {
    const { i, items } = current("words", "word_index");
    const lists = model.get("neighbours") || [];
    wordSelect.value = String(i);
    neighbourHead.textContent = items.length ? `Nearest neighbours of “${items[i]}” (cosine)` : "";
    neighbourList.replaceChildren(
      ...(lists[i] || []).map(([word, cos]) => {
        const li = make("li");
        const bar = make("span", "cw-ee-bar");
        bar.style.width = `${Math.max(0, cos) * 80}px`;
        li.append(make("span", "cw-ee-word", word), bar, make("span", "cw-ee-value", String(cos)));
        return li;
      }),
    );
  }

  function showAnalogy() {
    const { i, item } = current("analogies", "analogy_index");
    analogySelect.value = String(i);
    answerList.replaceChildren(
      ...(item ? item.answers : []).map(([word, cos]) => {
        const li = make("li");
        const good = item.expected && word === item.expected;
        li.append(
          make("span", good ? "cw-ee-word cw-ee-good" : "cw-ee-word", good ? `${word} ✓` : word),
          make("span", "cw-ee-value", `  ${cos}`),
        );
        return li;
      }),
    );
  }

  // Colour the selected word (red) and its neighbours (orange), the analogy's a, b, c (blue)
  // and its top answer (green), and label them on the map.
  function highlight() {
    const labels = model.get("labels") || [];
    const where = new Map(labels.map((w, i) => [w, i]));
    const roles = new Map(); // later roles win: neighbours, the analogy, the query word
    const { i, items } = current("words", "word_index");
    ((model.get("neighbours") || [])[i] || []).forEach(([w]) => roles.set(w, "cw-n"));
    const analogyItem = current("analogies", "analogy_index").item;
    if (analogyItem) {
      [analogyItem.a, analogyItem.b, analogyItem.c].forEach((w) => roles.set(w, "cw-a"));
      if (analogyItem.answers.length) roles.set(analogyItem.answers[0][0], "cw-ans");
    }
    if (items.length) roles.set(items[i], "cw-q");
    circles.forEach((c) => c.setAttribute("class", "cw-ee-pt"));
    tags.replaceChildren();
    roles.forEach((role, word) => {
      const k = where.get(word);
      if (k === undefined) return;
      circles[k].setAttribute("class", `cw-ee-pt ${role}`);
      circles[k].setAttribute("r", "4.5");
      dots.append(circles[k]); // drawn on top
      const left = xy[k][0] > W - 80; // near the right edge: write the label to the left
      const text = svg("text", {
        x: (xy[k][0] + (left ? -5 : 5)).toFixed(1),
        y: (xy[k][1] - 5).toFixed(1),
        class: "cw-ee-label",
        "text-anchor": left ? "end" : "start",
      });
      text.textContent = word;
      tags.append(text);
    });
    circles.forEach((c, k) => {
      if (!roles.has(labels[k])) c.setAttribute("r", "3");
    });
    if (cursor >= 0 && circles[cursor]) circles[cursor].classList.add("cw-cursor");
  }

  function setCursor(k) {
    if (cursor >= 0 && circles[cursor]) circles[cursor].classList.remove("cw-cursor");
    cursor = k;
    const labels = model.get("labels") || [];
    const pts = model.get("points") || [];
    if (k < 0 || !circles[k]) {
      readout.textContent = HINT;
      return;
    }
    circles[k].classList.add("cw-cursor");
    readout.textContent = `${labels[k]}  (${pts[k][0]}, ${pts[k][1]})`;
  }

  function build() {
    root.setAttribute("data-kernel", model.get("_kernel") === false ? "false" : "true");
    title.textContent = model.get("title") || "";
    title.hidden = !title.textContent;
    root.setAttribute("aria-label", title.textContent || "word vector explorer");
    fillSelect(wordSelect, model.get("words") || [], current("words", "word_index").i);
    const analogies = model.get("analogies") || [];
    analogyRow.hidden = analogies.length === 0;
    fillSelect(analogySelect, analogies.map(analogyText), current("analogies", "analogy_index").i);
    message.textContent = model.get("message") || "";
    showWord();
    showAnalogy();
    buildMap();
    setCursor(-1);
  }

  function pick(name, value) {
    if (value !== model.get(name)) {
      model.set(name, value);
      model.save_changes();
    }
  }

  function ask() {
    const text = input.value.trim();
    if (!text) return;
    model.set("query", text);
    model.save_changes();
  }

  wordSelect.addEventListener("change", () => pick("word_index", Number(wordSelect.value)));
  analogySelect.addEventListener("change", () => pick("analogy_index", Number(analogySelect.value)));
  go.addEventListener("click", ask);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") ask();
  });
  map.addEventListener("mouseover", (event) => {
    const k = event.target.dataset ? event.target.dataset.i : undefined;
    if (k !== undefined) setCursor(Number(k));
  });
  map.addEventListener("keydown", (event) => {
    const n = circles.length;
    if (!n) return;
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    setCursor((((cursor < 0 ? -1 : cursor) + step) % n + n) % n);
  });

  const handlers = [
    ["change:words", build],
    ["change:neighbours", build],
    ["change:analogies", build],
    ["change:points", build],
    ["change:labels", build],
    ["change:title", build],
    ["change:word_index", () => { showWord(); highlight(); }],
    ["change:analogy_index", () => { showAnalogy(); highlight(); }],
    ["change:message", () => { message.textContent = model.get("message") || ""; }],
  ];
  return listen(model, handlers, build);
}

export default { render };
