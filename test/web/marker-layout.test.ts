// The issue chart's deploy labels (src/web/marker-layout.ts): close deploys share a counted label,
// nearby ones are staggered onto a second row, and no two labels on a row ever overlap, whatever
// the deploys.

import { expect, test } from "bun:test";
import { DEFAULT_MARKER_LAYOUT, layoutMarkerLabels, type PlacedLabel } from "../../src/web/marker-layout";

const plot = { ...DEFAULT_MARKER_LAYOUT, left: 36, right: 1092 };

function overlapping(labels: PlacedLabel[]): [PlacedLabel, PlacedLabel][] {
  const pairs: [PlacedLabel, PlacedLabel][] = [];
  for (const [i, a] of labels.entries())
    for (const b of labels.slice(i + 1)) if (a.row === b.row && a.from < b.to && b.from < a.to) pairs.push([a, b]);
  return pairs;
}

test("two deploys a pixel apart share one label: 2 deploys", () => {
  const labels = layoutMarkerLabels(
    [
      { x: 500, label: "deploy 8,808" },
      { x: 501, label: "deploy 8,809" },
    ],
    plot,
  );
  expect(labels.map((l) => [l.label, l.count, l.row])).toEqual([["2 deploys", 2, 0]]);
});

test("deploys closer than a label's width are staggered onto a second row, farther ones share the first", () => {
  const labels = layoutMarkerLabels(
    [
      { x: 300, label: "deploy 8,808" },
      { x: 330, label: "deploy 9,120" },
      { x: 600, label: "deploy 9,500" },
    ],
    plot,
  );
  expect(labels.map((l) => [l.label, l.row])).toEqual([
    ["deploy 8,808", 0],
    ["deploy 9,120", 1],
    ["deploy 9,500", 0],
  ]);
  expect(overlapping(labels)).toEqual([]);
});

test("a label at the right edge turns left of its marker; a third close deploy is merged into a count", () => {
  const labels = layoutMarkerLabels(
    [
      { x: 1090, label: "deploy 12,345" },
      { x: 400, label: "deploy 1" },
      { x: 410, label: "deploy 2" },
      { x: 420, label: "deploy 3" },
    ],
    plot,
  );
  const last = labels.at(-1)!;
  expect(last).toMatchObject({ label: "deploy 12,345", anchor: "end" });
  expect(last.to).toBeLessThanOrEqual(plot.right);
  expect(labels.slice(0, -1).map((l) => l.count)).toEqual([1, 2]);
  expect(labels[1].label).toBe("2 deploys");
  expect(overlapping(labels)).toEqual([]);
});

test("no two labels on a row overlap, and every deploy is counted once, for random deploys", () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let round = 0; round < 300; round++) {
    const markers = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, i) => ({
      x: plot.left + random() * (plot.right - plot.left),
      label: `deploy ${Math.floor(random() * 10 ** (1 + (i % 6))).toLocaleString("en-US")}`,
    }));
    const labels = layoutMarkerLabels(markers, plot);
    expect(overlapping(labels)).toEqual([]);
    expect(labels.reduce((sum, l) => sum + l.count, 0)).toBe(markers.length);
    for (const l of labels) expect(l.row).toBeLessThan(plot.rows);
  }
});
