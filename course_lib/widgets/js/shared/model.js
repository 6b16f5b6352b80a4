// Model plumbing: subscriptions and cleanup, clamped indices, numbers for the page.
// A shared file of widgets/js: whole, plain declarations (no import or export);
// base.js_source puts it in front of each module that uses one of its names.

// Subscribes render's [event, callback] pairs, draws once, and returns render's cleanup.
function listen(model, handlers, draw) {
  handlers.forEach(([event, cb]) => model.on(event, cb));
  draw();
  return () => handlers.forEach(([event, cb]) => model.off(event, cb));
}

// An index trait clamped to 0..n-1 (0 when there is nothing).
function clampIndex(value, n) {
  return Math.min(Math.max(0, value | 0), Math.max(0, n - 1));
}

// A number for the page; "n/a" where Python sent None (NaN, ±inf).
function formatValue(v) {
  return v === null || v === undefined ? "n/a" : String(v);
}
