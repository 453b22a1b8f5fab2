// Pieces several pages share: the window switch, stat tiles, badges and table helpers.

import { h, link } from "../dom";
import { interval, num, pct } from "../format";
import type { Rates } from "../types";

export const WINDOWS = ["1d", "7d", "30d"] as const;
export type WindowName = (typeof WINDOWS)[number];

export function windowOf(query: URLSearchParams): WindowName {
  const value = query.get("window");
  return (WINDOWS as readonly string[]).includes(value ?? "") ? (value as WindowName) : "7d";
}

/** Links to the same page in each window (a real link per window: shareable, back button works). */
export function windowSwitch(path: string, current: WindowName, extra: Record<string, string> = {}): HTMLElement {
  return h(
    "nav",
    { class: "windows", "aria-label": "Time window" },
    WINDOWS.map((w) => {
      const params = new URLSearchParams({ ...extra, window: w });
      const a = link(`${path}?${params}`, w);
      if (w === current) a.setAttribute("aria-current", "true");
      return a;
    }),
  );
}

export function tile(label: string, value: string, detail?: string, tone?: string): HTMLElement {
  return h(
    "div",
    { class: `tile ${tone ?? ""}` },
    h("div", { class: "tile-label" }, label),
    h("div", { class: "tile-value" }, value),
    detail ? h("div", { class: "tile-detail" }, detail) : null,
  );
}

export function rateTiles(rates: Rates, extra: HTMLElement[] = []): HTMLElement {
  return h(
    "div",
    { class: "tiles" },
    tile("Landing rate", pct(rates.landingRate), `95% ${interval(rates.ci95.landingRate)}`, "good"),
    tile("Failed on chain", pct(rates.failureRate), `${num(rates.failedOnchain)} attempts`, "bad"),
    tile("Dropped", pct(rates.dropRate), `95% ${interval(rates.ci95.dropRate)}`, "warn"),
    tile("Preflight failures", pct(rates.preflightRate), `${num(rates.preflight)} attempts`),
    tile("Resolved attempts", num(rates.attempts)),
    ...extra,
  );
}

export const badge = (text: string, tone = "") => h("span", { class: `badge ${tone}` }, text);

export function outcomeBadge(outcome: string | null): HTMLElement {
  const tones: Record<string, string> = { landed: "good", failed_onchain: "bad", dropped: "warn", preflight: "muted" };
  const labels: Record<string, string> = {
    landed: "landed",
    failed_onchain: "failed on chain",
    dropped: "dropped",
    preflight: "preflight",
  };
  return badge(outcome ? (labels[outcome] ?? outcome) : "pending", outcome ? (tones[outcome] ?? "") : "muted");
}

/**
 * A table; on a phone each row becomes a card (its first cell as the card's title, every other cell
 * under its column's name, from `data-label`), so no column hides off screen.
 */
export function table(
  caption: string,
  head: string[],
  rows: (Node | string)[][],
  options: { numeric?: number[] } = {},
): HTMLElement {
  const numeric = new Set(options.numeric ?? []);
  return h(
    "div",
    { class: "table-wrap cards" },
    h(
      "table",
      {},
      h("caption", { class: "sr" }, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          head.map((name, i) => h("th", { scope: "col", class: numeric.has(i) ? "num" : "" }, name)),
        ),
      ),
      h(
        "tbody",
        {},
        rows.map((cells) =>
          h(
            "tr",
            {},
            cells.map((cell, i) => h("td", { class: numeric.has(i) ? "num" : "", "data-label": head[i] }, cell)),
          ),
        ),
      ),
    ),
  );
}

export const card = (title: string, id: string, ...children: (Node | null)[]) =>
  h("section", { class: "card", "aria-labelledby": id }, h("h2", { id }, title), ...children);
