// Pieces several pages share: the window switch, stat tiles, badges and table helpers, and the
// chain banner's sentence.

import { h, link } from "../dom";
import { ago, interval, num, pct, when } from "../format";
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

/** The chain as /v1/status reports it (`chain`, docs/api.md#get-v1status). */
export type ChainStatus = { reachable: boolean | null; since: number | null; lastError: string | null };

const CHAIN_FAILURES: Record<string, string> = {
  timeout: "it does not answer in time",
  connection: "connections to it fail",
  http_429: "it rate-limits txray (HTTP 429)",
  http_5xx: "it answers with server errors (HTTP 5xx)",
  http_4xx: "it refuses txray's requests (HTTP 4xx)",
  bad_reply: "its answers cannot be read",
};

/** What every page says while the chain cannot be reached; null while it answers (or nothing asked it yet). */
export function chainBannerText(chain: ChainStatus | null | undefined, now = Date.now()): string | null {
  if (chain?.reachable !== false) return null;
  const since = chain.since === null ? "" : ` since ${when(chain.since)} (${ago(chain.since, now)})`;
  const why = CHAIN_FAILURES[chain.lastError ?? ""] ?? "its requests fail";
  return `The Solana RPC endpoint cannot be reached${since}: ${why}. Attempts sent meanwhile stay pending, and out of every figure, until it answers.`;
}

/** A figure of resolved attempts, or "pending" while none of a program's attempts is resolved (nothing is known yet). */
export const resolvedOr = (resolved: number | null | undefined, figure: string) =>
  resolved !== null && resolved !== undefined && resolved > 0 ? figure : "pending";

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
