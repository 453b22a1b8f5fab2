// Where the labels of a plot's vertical markers (the deploys on an issue's events chart) go, so that
// no two ever overlap: each label sits beside its marker, on the first row where it clears every
// label already there; a label that fits on no row is merged with the one before it into a count
// ("2 deploys"), and markers closer than a label's gap share one label from the start. Pure (no
// DOM): charts.ts draws what it returns, and a unit test checks it.

export type MarkerAt = { x: number; label: string };
export type PlacedLabel = {
  /** The x of the group's first marker: the label sits beside it. */
  x: number;
  label: string;
  /** Markers this label stands for (more than one: a count). */
  count: number;
  row: number;
  anchor: "start" | "end";
  /** The label's horizontal extent, in the plot's units. */
  from: number;
  to: number;
};
export type MarkerLayoutOptions = {
  /** The plot area's left and right edges. */
  left: number;
  right: number;
  /** Rows of labels above the plot. */
  rows: number;
  /** Width of one character of a label (an estimate: SVG text is not measured here). */
  charPx: number;
  /** Space between a marker and its label, and between two labels. */
  gapPx: number;
  /** The label of `n` merged markers. */
  plural: (n: number) => string;
};

export const DEFAULT_MARKER_LAYOUT: Omit<MarkerLayoutOptions, "left" | "right"> = {
  rows: 2,
  charPx: 6.5,
  gapPx: 4,
  plural: (n) => `${n} deploys`,
};

type Group = { x: number; labels: string[] };

export function layoutMarkerLabels(markers: MarkerAt[], options: MarkerLayoutOptions): PlacedLabel[] {
  const groups: Group[] = [];
  for (const marker of [...markers].sort((a, b) => a.x - b.x)) {
    const last = groups.at(-1);
    // Markers a gap apart or closer are one line to the eye: one label.
    if (last && marker.x - last.x <= options.gapPx) last.labels.push(marker.label);
    else groups.push({ x: marker.x, labels: [marker.label] });
  }
  for (;;) {
    const placed = place(groups, options);
    if (Array.isArray(placed)) return placed;
    // The group at `placed` fits on no row: it joins the one before it (the first group always fits).
    const [before, after] = [groups[placed - 1], groups[placed]];
    groups.splice(placed - 1, 2, { x: before.x, labels: [...before.labels, ...after.labels] });
  }
}

/** Every group's label on a row, or the index of the first group that fits on none. */
function place(groups: Group[], options: MarkerLayoutOptions): PlacedLabel[] | number {
  const rows: { from: number; to: number }[][] = Array.from({ length: options.rows }, () => []);
  const placed: PlacedLabel[] = [];
  for (const [i, group] of groups.entries()) {
    const count = group.labels.length;
    const label = count === 1 ? group.labels[0] : options.plural(count);
    const width = label.length * options.charPx;
    // Right of the marker, or left of it when that would run past the plot's right edge.
    const anchor = group.x + options.gapPx + width > options.right ? "end" : "start";
    const from = anchor === "start" ? group.x + options.gapPx : Math.max(options.left, group.x - options.gapPx - width);
    const to = from + width;
    const row = rows.findIndex((boxes) =>
      boxes.every((box) => to + options.gapPx <= box.from || from >= box.to + options.gapPx),
    );
    if (row === -1) {
      if (i === 0) throw new Error("a first label always has a free row");
      return i;
    }
    rows[row].push({ from, to });
    placed.push({ x: group.x, label, count, row, anchor, from, to });
  }
  return placed;
}
