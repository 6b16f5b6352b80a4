// matplotlib's viridis colour map, as colours and as a CSS gradient.
// A shared file of widgets/js: whole, plain declarations (no import or export);
// base.js_source puts it in front of each module that uses one of its names.

// matplotlib's viridis sampled at 0, 0.1, ..., 1; linear interpolation in between.
const VIRIDIS = [
  [68, 1, 84], [72, 36, 117], [65, 68, 135], [53, 95, 141], [42, 120, 142],
  [33, 145, 140], [34, 168, 132], [68, 191, 112], [122, 209, 81], [189, 223, 38],
  [253, 231, 37],
];

// value in [lo, hi] as a viridis colour; a missing value is grey.
function viridisColour(value, lo, hi) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "#d0d0d0";
  const t = Math.min(1, Math.max(0, (value - lo) / (hi - lo || 1))) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(t));
  const f = t - i;
  const rgb = VIRIDIS[i].map((a, k) => Math.round(a + f * (VIRIDIS[i + 1][k] - a)));
  return `rgb(${rgb.join(",")})`;
}

// The colour bar: the viridis ramp as a CSS gradient, lo on the left.
function viridisGradient() {
  return `linear-gradient(to right, ${VIRIDIS.map((c) => `rgb(${c.join(",")})`).join(", ")})`;
}
