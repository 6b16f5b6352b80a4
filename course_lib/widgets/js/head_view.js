// HeadView front end (course_lib/widgets/head_view.py). Chapter 8.
// A dependency-free ES module: no imports, only model.get/set/on/off/save_changes, so the
// same file runs under anywidget (live) and under the book's stand-in model (html).
// Traits read: attention {kind: L x H x Tq x Tk}, src_tokens, tgt_tokens, kind, layer,
// head, title, _kernel. Shared helpers come from js/shared (see base.js_source).

const SIDES = { encoder: ["src", "src"], decoder: ["tgt", "tgt"], cross: ["tgt", "src"] };
const NAMES = { encoder: "encoder self", decoder: "decoder self", cross: "cross" };
const CSS = `
.cw-hv-title { font-weight: 600; margin-bottom: 4px; }
.cw-hv-kinds { display: flex; gap: 4px; margin-bottom: 6px; flex-wrap: wrap; }
.cw-hv button[aria-pressed="true"] { background: #3b528b; color: #fff; border-color: #3b528b; }
.cw-hv-body { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
.cw-hv-grid { display: grid; gap: 3px; align-items: center; }
.cw-hv-grid span { font-size: 11px; color: #57606a; text-align: center; }
.cw-hv-grid button.cw-hv-thumb { padding: 0; border: 2px solid transparent; background: none;
  line-height: 0; border-radius: 2px; }
.cw-hv-grid button.cw-hv-thumb[aria-pressed="true"] { border-color: #d95f02; }
.cw-hv-view { display: flex; align-items: stretch; }
.cw-hv-col { display: flex; flex-direction: column; }
.cw-hv-tok { height: 20px; line-height: 20px; padding: 0 4px; white-space: nowrap;
  cursor: default; border-radius: 3px; font-size: 12px; }
.cw-hv-col.cw-left .cw-hv-tok { text-align: right; }
.cw-hv-tok.cw-hl { background: #fde4cf; font-weight: 700; }
.cw-hv-readout { margin-top: 6px; min-height: 1.4em; font-variant-numeric: tabular-nums; }
`;

function viridis(v) {
  const stops = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  const t = Math.max(0, Math.min(1, v || 0)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(t));
  const f = t - i;
  return `rgb(${stops[i].map((a, k) => Math.round(a + f * (stops[i + 1][k] - a))).join(",")})`;
}

function render({ model, el }) {
  const uid = uniqueId("cw-hv");
  const root = widgetRoot("cw-hv", CSS);
  const title = make("div", "cw-hv-title");
  const kinds = make("div", "cw-hv-kinds");
  const body = make("div", "cw-hv-body");
  const grid = make("div", "cw-hv-grid");
  grid.setAttribute("role", "group");
  grid.setAttribute("aria-label", "layers (rows) by heads (columns)");
  const view = make("div", "cw-hv-view");
  const left = make("div", "cw-hv-col cw-left");
  const right = make("div", "cw-hv-col cw-right");
  const links = svg("svg", { width: 120 });
  view.append(left, links, right);
  body.append(grid, view);
  const readout = liveRegion("div", "cw-hv-readout", `${uid}-readout`);
  root.append(title, kinds, body, readout);
  el.append(root);

  let lines = []; // lines[q][k]
  let focus = null; // ["q" | "k", index] of the hovered token

  function state() {
    const att = model.get("attention") || {};
    const names = Object.keys(SIDES).filter((k) => k in att);
    const kind = names.includes(model.get("kind")) ? model.get("kind") : names[0];
    const w = att[kind] || [];
    const L = w.length;
    const H = L ? w[0].length : 0;
    const layer = clampIndex(model.get("layer"), L);
    const head = clampIndex(model.get("head"), H);
    const [qs, ks] = SIDES[kind] || ["src", "src"];
    const toks = (side) => model.get(side === "src" ? "src_tokens" : "tgt_tokens") || [];
    return { names, kind, w, L, H, layer, head, q: toks(qs), k: toks(ks) };
  }

  function choose(changes) {
    Object.entries(changes).forEach(([key, value]) => model.set(key, value));
    model.save_changes();
  }

  function buildKinds(s) {
    kinds.replaceChildren(
      ...s.names.map((name) => {
        const b = button(NAMES[name]);
        b.dataset.kind = name;
        b.setAttribute("aria-pressed", String(name === s.kind));
        b.addEventListener("click", () => choose({ kind: name }));
        return b;
      }),
    );
    kinds.hidden = s.names.length <= 1; // one kind of attention (a GPT): nothing to choose
  }

  function buildGrid(s) {
    grid.style.gridTemplateColumns = `auto repeat(${s.H}, auto)`;
    const cells = [make("span")];
    for (let h = 0; h < s.H; h++) cells.push(make("span", null, `h${h}`));
    for (let l = 0; l < s.L; l++) {
      cells.push(make("span", null, `L${l}`));
      for (let h = 0; h < s.H; h++) {
        const b = control(make("button", "cw-hv-thumb"));
        b.type = "button";
        b.dataset.layer = String(l);
        b.dataset.head = String(h);
        b.setAttribute("aria-label", `layer ${l}, head ${h}`);
        b.setAttribute("aria-pressed", String(l === s.layer && h === s.head));
        const c = make("canvas");
        const m = s.w[l][h];
        const cell = Math.max(2, Math.floor(44 / Math.max(m.length, m[0].length)));
        c.width = cell * m[0].length;
        c.height = cell * m.length;
        const ctx = c.getContext("2d");
        m.forEach((row, i) =>
          row.forEach((v, j) => {
            ctx.fillStyle = viridis(v);
            ctx.fillRect(j * cell, i * cell, cell, cell);
          }),
        );
        b.append(c);
        b.addEventListener("click", () => choose({ layer: l, head: h }));
        cells.push(b);
      }
    }
    grid.replaceChildren(...cells);
  }

  function token(text, side, i) {
    const node = control(make("div", "cw-hv-tok", text));
    node.tabIndex = 0;
    node.dataset.side = side;
    node.dataset.i = String(i);
    node.setAttribute("aria-describedby", readout.id);
    const enter = () => setFocus([side, i]);
    node.addEventListener("mouseenter", enter);
    node.addEventListener("focus", enter);
    node.addEventListener("mouseleave", () => setFocus(null));
    node.addEventListener("blur", () => setFocus(null));
    return node;
  }

  function buildView(s) {
    left.replaceChildren(...s.q.map((t, i) => token(t, "q", i)));
    right.replaceChildren(...s.k.map((t, i) => token(t, "k", i)));
    const rows = Math.max(s.q.length, s.k.length);
    links.setAttribute("height", String(20 * rows));
    links.replaceChildren();
    const m = (s.w[s.layer] || [])[s.head] || [];
    lines = m.map((row, i) =>
      row.map((v, j) => {
        const line = svg("line", {
          x1: 2,
          y1: 20 * i + 10,
          x2: 118,
          y2: 20 * j + 10,
          stroke: "#d95f02",
          "stroke-width": 0.5 + 3 * (v || 0),
        });
        line.dataset.w = String(v);
        links.append(line);
        return line;
      }),
    );
    paintLines(s);
  }

  function paintLines(s) {
    [...left.children, ...right.children].forEach((n) => n.classList.remove("cw-hl"));
    lines.forEach((row, i) =>
      row.forEach((line, j) => {
        const v = Number(line.dataset.w) || 0;
        const on = !focus || (focus[0] === "q" ? focus[1] === i : focus[1] === j);
        line.setAttribute("stroke-opacity", on ? String(Math.min(1, 0.05 + v)) : "0");
        line.setAttribute("visibility", on && v > 0.005 ? "visible" : "hidden");
      }),
    );
    if (!focus) {
      readout.textContent =
        `${NAMES[s.kind]}, layer ${s.layer}, head ${s.head}: ` +
        "hover or focus a token to see where it attends.";
      return;
    }
    const [side, i] = focus;
    const m = (s.w[s.layer] || [])[s.head] || [];
    (side === "q" ? left : right).children[i]?.classList.add("cw-hl");
    let pairs;
    if (side === "q") {
      pairs = (m[i] || []).map((v, j) => [s.k[j], v, j]);
    } else {
      pairs = m.map((row, q) => [s.q[q], row[i], q]);
    }
    pairs.sort((a, b) => b[1] - a[1]);
    pairs.slice(0, 3).forEach(([, , j]) =>
      (side === "q" ? right : left).children[j]?.classList.add("cw-hl"),
    );
    const top = pairs.slice(0, 3).map(([t, v]) => `${t} ${Number(v).toFixed(2)}`).join(", ");
    const who = side === "q" ? s.q[i] : s.k[i];
    readout.textContent = side === "q"
      ? `“${who}” attends to: ${top}`
      : `attending to “${who}”: ${top}`;
  }

  function setFocus(next) {
    focus = next;
    paintLines(state());
  }

  function build() {
    const s = state();
    title.textContent = model.get("title") || "";
    title.hidden = !title.textContent;
    root.setAttribute("aria-label", title.textContent || "attention head view");
    buildKinds(s);
    buildGrid(s);
    focus = null;
    buildView(s);
  }

  const keys = ["attention", "src_tokens", "tgt_tokens", "kind", "layer", "head", "title"];
  const handlers = keys.map((key) => [`change:${key}`, build]);
  return listen(model, handlers, build);
}

export default { render };
