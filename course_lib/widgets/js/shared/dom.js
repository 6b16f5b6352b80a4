// Elements: a page-unique id, HTML and SVG nodes, controls that keep JupyterLab's
// shortcuts off their keys, the widget's root with its stylesheet, readouts, options.
// A shared file of widgets/js: whole, plain declarations (no import or export);
// base.js_source puts it in front of each module that uses one of its names.

let counter = 0;

// A page-unique id for one rendering: prefix, a counter, a random tail (two outputs of
// the same notebook on one page each count from 1).
function uniqueId(prefix) {
  return `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
}

// The SVG namespace, read from the HTML parser rather than written out as a URL.
const SVG_NS = (() => {
  const box = document.createElement("div");
  box.innerHTML = "<svg></svg>";
  return box.firstChild.namespaceURI;
})();

function make(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, String(v)));
  if (text !== undefined) node.textContent = text;
  return node;
}

function control(node) {
  node.setAttribute("data-lm-suppress-shortcuts", "true"); // JupyterLab: keep arrow keys
  return node;
}

function button(text, label) {
  const b = control(make("button", null, text));
  b.type = "button";
  if (label) b.setAttribute("aria-label", label);
  return b;
}

// The widget's root: a group with class "cw" and its own, carrying the shared stylesheet
// (WIDGET_CSS, shared/widget.css) and then the widget's css, which may override it.
function widgetRoot(className, css) {
  const root = make("div", `cw ${className}`);
  root.setAttribute("role", "group");
  root.append(make("style", null, `\n${WIDGET_CSS}\n${css}`));
  return root;
}

// An element that screen readers read out politely when its text changes (a readout).
function liveRegion(tag, className, id) {
  const node = make(tag, className);
  if (id) node.id = id;
  node.setAttribute("aria-live", "polite");
  return node;
}

// A <select>'s options: texts, valued "0", "1", ...
function fillOptions(select, texts) {
  select.replaceChildren(
    ...texts.map((text, i) => {
      const option = make("option", null, text);
      option.value = String(i);
      return option;
    }),
  );
}
