// Plots. Rates with 95% intervals are drawn as small SVG "forest plots" (a dot and its whisker per
// row: nothing a time-series library helps with, and SVG keeps them crisp, tiny and readable by
// screen readers through role="img" + a text summary). Time series (the daily CU p95 trend against
// the requested limit) use uPlot: ~50 KB minified, canvas, renders thousands of points in a few ms.
// Every plot marks itself data-plot="ready" once drawn (tests and the web benchmark wait on it).

import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { h } from "./dom";
import { pct } from "./format";
import { DEFAULT_MARKER_LAYOUT, layoutMarkerLabels } from "./marker-layout";
import type { Rates } from "./types";

const SVG = "http://www.w3.org/2000/svg";
function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

export type IntervalRow = {
  label: string;
  value: number;
  ci: [number, number];
  note?: string;
  tone?: "main" | "ref" | "bad" | "good";
};

/** A forest plot: one row per label, the point estimate and its 95% interval on a shared 0…max axis. */
export function intervalPlot(title: string, rows: IntervalRow[], options: { max?: number } = {}): HTMLElement {
  const top = Math.max(...rows.map((r) => r.ci[1]), ...rows.map((r) => r.value), 0.0001);
  const max = options.max ?? niceMax(top);
  const rowHeight = 30;
  const { width, labelWidth } = layout(130);
  const plotWidth = width - labelWidth - (width < 500 ? 64 : 76);
  const height = rows.length * rowHeight + 28;
  const x = (v: number) => labelWidth + (Math.min(Math.max(v, 0), max) / max) * plotWidth;
  const summary = rows
    .map((r) => `${r.label} ${pct(r.value)} (95% interval ${pct(r.ci[0])} to ${pct(r.ci[1])})`)
    .join("; ");
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `${title}: ${summary}`,
    class: "forest",
  });
  svg.appendChild(s("title", {}, `${title}: ${summary}`));
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    svg.appendChild(s("line", { x1: x(v), x2: x(v), y1: 4, y2: height - 22, class: "grid" }));
    svg.appendChild(
      s("text", { x: x(v), y: height - 6, class: "tick", "text-anchor": "middle" }, pct(v, max < 0.05 ? 1 : 0)),
    );
  }
  rows.forEach((row, i) => {
    const y = 4 + i * rowHeight + rowHeight / 2;
    const tone = row.tone ?? "main";
    svg.appendChild(
      s("text", { x: labelWidth - 8, y: y + 4, class: `label ${tone}`, "text-anchor": "end" }, row.label),
    );
    svg.appendChild(s("line", { x1: x(row.ci[0]), x2: x(row.ci[1]), y1: y, y2: y, class: `whisker ${tone}` }));
    for (const end of row.ci)
      svg.appendChild(s("line", { x1: x(end), x2: x(end), y1: y - 6, y2: y + 6, class: `whisker ${tone}` }));
    svg.appendChild(s("circle", { cx: x(row.value), cy: y, r: 5, class: `dot ${tone}` }));
    svg.appendChild(
      s("text", { x: width - 4, y: y + 4, class: "value", "text-anchor": "end" }, row.note ?? pct(row.value)),
    );
  });
  return h("figure", { class: "plot", "data-plot": "ready" }, h("figcaption", {}, title), svg);
}

/** SVG coordinates: a narrower drawing on phones, so its text stays readable once scaled to fit. */
function layout(labelWidth: number): { width: number; labelWidth: number } {
  return window.innerWidth < 600
    ? { width: 380, labelWidth: Math.round(labelWidth * 0.7) }
    : { width: 560, labelWidth };
}

function niceMax(value: number): number {
  for (const step of [0.01, 0.02, 0.04, 0.1, 0.2, 0.4, 0.6, 0.8, 1]) if (value <= step) return step;
  return 1;
}

/**
 * Pre → post per row (release diff): a line from the old rate to the new one, coloured by the row's
 * tone (its status: red only when new or significantly worse, green when resolved, neutral otherwise).
 */
export function prePostPlot(
  title: string,
  rows: { label: string; pre: number; post: number; tone: "bad" | "good" | "muted" }[],
): HTMLElement {
  const max = niceMax(Math.max(...rows.flatMap((r) => [r.pre, r.post]), 0.0001));
  const rowHeight = 30;
  const { width, labelWidth } = layout(200);
  const plotWidth = width - labelWidth - (width < 500 ? 84 : 96);
  // Labels are issue titles: cut to what fits left of the axis (about 7 px a character at 13 px).
  const maxChars = Math.floor((labelWidth - 12) / 7.2);
  const height = rows.length * rowHeight + 28;
  const x = (v: number) => labelWidth + (Math.min(v, max) / max) * plotWidth;
  const summary = rows.map((r) => `${r.label}: ${pct(r.pre)} before, ${pct(r.post)} after`).join("; ");
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `${title}: ${summary}`,
    class: "forest",
  });
  svg.appendChild(s("title", {}, `${title}: ${summary}`));
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    svg.appendChild(s("line", { x1: x(v), x2: x(v), y1: 4, y2: height - 22, class: "grid" }));
    svg.appendChild(s("text", { x: x(v), y: height - 6, class: "tick", "text-anchor": "middle" }, pct(v, 0)));
  }
  rows.forEach((row, i) => {
    const y = 4 + i * rowHeight + rowHeight / 2;
    const tone = row.tone === "muted" ? "ref" : row.tone;
    const label = s(
      "text",
      { x: labelWidth - 8, y: y + 4, class: "label", "text-anchor": "end" },
      row.label.length > maxChars ? `${row.label.slice(0, maxChars - 1)}…` : row.label,
    );
    label.appendChild(s("title", {}, row.label));
    svg.appendChild(label);
    svg.appendChild(s("line", { x1: x(row.pre), x2: x(row.post), y1: y, y2: y, class: `whisker ${tone}` }));
    svg.appendChild(s("circle", { cx: x(row.pre), cy: y, r: 4, class: "dot ref" }));
    svg.appendChild(s("circle", { cx: x(row.post), cy: y, r: 5, class: `dot ${tone}` }));
    svg.appendChild(
      s(
        "text",
        { x: width - 4, y: y + 4, class: `value ${tone}`, "text-anchor": "end" },
        `${pct(row.pre)} → ${pct(row.post)}`,
      ),
    );
  });
  return h(
    "figure",
    { class: "plot", "data-plot": "ready" },
    h("figcaption", {}, title, h("span", { class: "legend" }, " ○ before  ● after")),
    svg,
  );
}

/** One bar split by outcome share (landed / failed on chain / dropped / preflight). */
export function outcomeBar(rates: Rates, label: string): HTMLElement {
  const parts: [string, number, string][] = [
    ["landed", rates.landingRate, "Landed"],
    ["failed", rates.failureRate, "Failed on chain"],
    ["dropped", rates.dropRate, "Dropped"],
    ["preflight", rates.preflightRate, "Preflight"],
  ];
  const text = parts.map(([, v, name]) => `${name} ${pct(v)}`).join(", ");
  return h(
    "div",
    { class: "outcomes", role: "img", "aria-label": `${label}: ${text}`, title: text },
    parts
      .filter(([, v]) => v > 0)
      .map(([cls, v]) => h("span", { class: `seg ${cls}`, style: `width:${(v * 100).toFixed(2)}%` })),
  );
}

export const outcomeLegend = () =>
  h(
    "div",
    { class: "legend-row", "aria-hidden": "true" },
    ["landed", "failed", "dropped", "preflight"].map((k) =>
      h("span", {}, h("i", { class: `seg ${k}` }), k === "failed" ? "failed on chain" : k),
    ),
  );

/** Daily CU p95 (line) against the requested limit (dashed), drawn with uPlot once attached. */
export function cuTrendPlot(
  title: string,
  trend: { day: string | number; cuP95: number | null }[],
  requested: number | null,
  window: { since: number; until: number },
): HTMLElement {
  // One x value per UTC day of the window (days without samples are gaps), so a single day of data
  // still sits where it belongs. The requested limit is drawn only from the first to the last day
  // with samples: it was observed there, and nowhere else.
  const DAY = 86_400_000;
  const dayOf = (t: { day: string | number }) =>
    typeof t.day === "number" ? t.day : Date.parse(`${String(t.day).slice(0, 10)}T00:00:00Z`);
  const byDay = new Map(trend.map((t) => [Math.floor(dayOf(t) / DAY) * DAY, t.cuP95]));
  const first = Math.min(Math.floor(window.since / DAY) * DAY, ...byDay.keys());
  const last = Math.max(Math.floor(window.until / DAY) * DAY, ...byDay.keys());
  const dayList: number[] = [];
  for (let day = first; day <= last; day += DAY) dayList.push(day);
  const days = dayList.map((day) => day / 1000);
  const p95 = dayList.map((day) => byDay.get(day) ?? null);
  const sampled = p95.flatMap((value, i) => (value === null ? [] : [i]));
  const limit = dayList.map((_, i) =>
    sampled.length > 0 && i >= sampled[0] && i <= sampled[sampled.length - 1] ? requested : null,
  );
  const described = trend
    .filter((t) => t.cuP95 !== null)
    .map((t) => `${String(t.day).slice(0, 10)}: ${t.cuP95}`)
    .join("; ");
  const holder = h("div", {
    class: "uplot-holder",
    role: "img",
    "aria-label": `${title}. Requested limit ${requested ?? "unknown"}. Daily p95: ${described || "no samples"}`,
  });
  const figure = h("figure", { class: "plot trend" }, h("figcaption", {}, title), holder);
  const draw = () => {
    const width = Math.max(260, Math.min(holder.clientWidth || 520, 560));
    new uPlot(
      {
        width,
        height: 170,
        cursor: { show: true },
        legend: { show: true, live: false },
        scales: {
          x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
          y: { range: (_u, min, max) => [0, Math.max(max ?? 0, requested ?? 0, min ?? 0) * 1.15 || 1] },
        },
        axes: [
          { stroke: "#9aa4b2", grid: { stroke: "#2a3140" } },
          { stroke: "#9aa4b2", grid: { stroke: "#2a3140" }, size: 72 },
        ],
        series: [
          {},
          {
            label: "CU p95",
            stroke: "#5ab0ff",
            width: 2,
            points: { show: true, size: 6, fill: "#5ab0ff" },
            spanGaps: true,
          },
          {
            label: "requested (p50)",
            stroke: "#f2b84b",
            width: 1.5,
            dash: [6, 4],
            // A single sampled day has no line to draw: its point shows instead.
            points: { show: sampled.length === 1 },
          },
        ],
      },
      [days, p95, limit],
      holder,
    );
    figure.setAttribute("data-plot", "ready");
  };
  // uPlot measures its container: draw once the figure is in the document.
  requestAnimationFrame(function wait() {
    if (figure.isConnected) draw();
    else requestAnimationFrame(wait);
  });
  return figure;
}

export type Marker = { at: number; label: string };
/** Height of a row of marker labels. */
const MARKER_ROW_PX = 11;

/**
 * Events over time: one bar per bucket (a minute, an hour or a day), the deploys as dashed vertical
 * markers with their slot, labels never overlapping (marker-layout.ts). SVG, like the forest plots:
 * crisp, small, and read out by screen readers (the label sums the series and names the busiest
 * bucket and every marker).
 */
export function seriesPlot(
  title: string,
  series: { since: number; stepMs: number; counts: number[] },
  markers: Marker[],
): HTMLElement {
  // As wide as the card it fills (a full-width plot: text keeps its size rather than scaling up).
  const width = window.innerWidth < 600 ? 380 : Math.min(1100, Math.max(560, window.innerWidth - 120));
  const height = 170;
  const left = 36;
  const right = 8;
  const bottom = 24;
  const n = series.counts.length;
  const max = Math.max(1, ...series.counts);
  const ceiling = niceCount(max);
  const until = series.since + n * series.stepMs;
  const x = (t: number) => left + ((t - series.since) / (until - series.since)) * (width - left - right);
  const shown = markers.filter((marker) => marker.at >= series.since && marker.at <= until);
  // Labels staggered on rows, and merged into a count where they would still overlap.
  const labels = layoutMarkerLabels(
    shown.map((marker) => ({ x: x(marker.at), label: marker.label })),
    { ...DEFAULT_MARKER_LAYOUT, left, right: width - right },
  );
  // Room above the bars for every row of labels used.
  const top = 14 + MARKER_ROW_PX * Math.max(0, ...labels.map((placed) => placed.row));
  const y = (v: number) => height - bottom - (v / ceiling) * (height - top - bottom);
  const barWidth = Math.max(1, (width - left - right) / n - (n > 60 ? 0.5 : 2));
  const busiest = series.counts.indexOf(Math.max(...series.counts));
  const total = series.counts.reduce((a, b) => a + b, 0);
  const unit = series.stepMs >= 86_400_000 ? "day" : series.stepMs >= 3_600_000 ? "hour" : "minute";
  const stamp = (t: number) =>
    new Date(t)
      .toISOString()
      .slice(0, unit === "day" ? 10 : unit === "hour" ? 13 : 16)
      .replace("T", " ") + (unit === "hour" ? ":00" : "");
  const summary =
    `${total} events, per ${unit}` +
    (total > 0
      ? `; busiest ${unit} ${stamp(series.since + busiest * series.stepMs)} UTC with ${series.counts[busiest]}`
      : "") +
    (markers.length ? `; deploys: ${markers.map((m) => `${m.label} at ${stamp(m.at)} UTC`).join(", ")}` : "");
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `${title}: ${summary}`,
    class: "series",
  });
  svg.appendChild(s("title", {}, `${title}: ${summary}`));
  for (const v of [0, ceiling / 2, ceiling]) {
    svg.appendChild(s("line", { x1: left, x2: width - right, y1: y(v), y2: y(v), class: "grid" }));
    svg.appendChild(
      s("text", { x: left - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" }, String(Math.round(v))),
    );
  }
  series.counts.forEach((count, i) => {
    if (count === 0) return;
    const bar = s("rect", {
      x: x(series.since + i * series.stepMs),
      y: y(count),
      width: barWidth,
      height: Math.max(1, y(0) - y(count)),
      class: "bar",
    });
    bar.appendChild(s("title", {}, `${stamp(series.since + i * series.stepMs)} UTC: ${count}`));
    svg.appendChild(bar);
  });
  // Axis labels: the first and last bucket, and the middle one.
  for (const i of [0, Math.floor(n / 2), n - 1]) {
    const t = series.since + i * series.stepMs;
    svg.appendChild(
      s(
        "text",
        {
          x: x(t) + barWidth / 2,
          y: height - 6,
          class: "tick",
          "text-anchor": i === 0 ? "start" : i === n - 1 ? "end" : "middle",
        },
        unit === "day" ? stamp(t).slice(5) : unit === "hour" ? `${stamp(t).slice(5, 13)}h` : stamp(t).slice(11, 16),
      ),
    );
  }
  for (const marker of shown) {
    const mx = x(marker.at);
    svg.appendChild(s("line", { x1: mx, x2: mx, y1: 10, y2: height - bottom, class: "marker" }));
  }
  for (const placed of labels)
    svg.appendChild(
      s(
        "text",
        { x: placed.from, y: 18 + placed.row * MARKER_ROW_PX, class: "marker-label", "text-anchor": "start" },
        placed.label,
      ),
    );
  return h(
    "figure",
    { class: "plot", "data-plot": "ready", "data-since": String(series.since), "data-until": String(until) },
    h("figcaption", {}, title),
    svg,
  );
}

function niceCount(value: number): number {
  for (const step of [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000])
    if (value <= step) return step;
  return Math.ceil(value / 100_000) * 100_000;
}

/** A breakdown as horizontal bars: each value's share of the whole, with its count. */
export function shareBars(
  title: string,
  slices: { key: string | null; count: number; share: number }[],
  label: (key: string | null) => string = (k) => k || "(none)",
): HTMLElement {
  const top = slices.slice(0, 6);
  const rest = slices.slice(6);
  const rows = rest.length
    ? [
        ...top,
        {
          key: `${rest.length} more`,
          count: rest.reduce((a, r) => a + r.count, 0),
          share: rest.reduce((a, r) => a + r.share, 0),
        },
      ]
    : top;
  return h(
    "figure",
    { class: "bars" },
    h("figcaption", {}, title),
    rows.length === 0
      ? h("p", { class: "dim" }, "None in this window.")
      : h(
          "ul",
          {},
          rows.map((r) =>
            h(
              "li",
              {},
              h("span", { class: "bar-label" }, label(r.key)),
              h(
                "span",
                { class: "bar-track", "aria-hidden": "true" },
                h("span", { class: "bar-fill", style: `width:${(r.share * 100).toFixed(1)}%` }),
              ),
              h("span", { class: "bar-value" }, `${pct(r.share, 0)} · ${r.count.toLocaleString("en-US")}`),
            ),
          ),
        ),
  );
}
