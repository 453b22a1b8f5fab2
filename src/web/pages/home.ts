// `/`: the programs (the key's own via /v1/programs, else every program with public data), the
// ecosystem's outcome rates, and the latest Landing Score snapshot when one was published.

import { api, enc, landingScore, settings } from "../api";
import { outcomeBar, outcomeLegend } from "../charts";
import { empty, h, link, section } from "../dom";
import { ago, interval, num, pct, programName, short } from "../format";
import type { Ecosystem, LandingScore, ProgramsPage } from "../types";
import { card, rateTiles, resolvedOr, table, windowOf, windowSwitch } from "./common";

export function homePage(
  main: HTMLElement,
  _params: Record<string, never>,
  query: URLSearchParams,
  signal: AbortSignal,
): void {
  const window = windowOf(query);
  const overview = h("div", { class: "slot-eco" });
  const programs = h("div");
  const score = h("div");
  main.append(
    h(
      "div",
      { class: "page-head" },
      h(
        "div",
        {},
        h("h1", {}, "How Solana transactions fare"),
        h(
          "p",
          { class: "lede" },
          "Landing, failure and drop rates of every program txray sees, and why attempts fail.",
        ),
      ),
      windowSwitch("/", window),
    ),
    card("Ecosystem", "eco-title", overview),
    card(settings.key ? "Your programs" : "Programs", "programs-title", programs),
    score,
  );
  // Both sections start from one request; a retry (button, or after Retry-After) asks again.
  const fetchEco = () => api<Ecosystem>("ecosystem", { window, limit: 500 }, { scoped: false, signal });
  const first = fetchEco();
  let uses = 0;
  const eco = () => (uses++ < 2 ? first : fetchEco());
  void section(overview, "ecosystem rates", eco, (data) =>
    data.rates.attempts === 0
      ? empty(
          "No resolved attempts in this window yet.",
          "Send telemetry with the SDK (or run `bun run demo`) and come back in a minute.",
        )
      : [rateTiles(data.rates), outcomeBar(data.rates, "Ecosystem outcomes"), outcomeLegend()],
  );
  void section(
    programs,
    "programs",
    () => loadPrograms(eco(), signal),
    (rows) =>
      rows.length === 0
        ? empty(
            settings.key ? "This key's account has sent no telemetry yet." : "No programs yet.",
            "Programs appear here once their attempts are resolved and the tables job has run.",
          )
        : table(
            "Programs",
            ["Program", "Attempts", "Landing rate", "Outcomes", "Last seen"],
            rows.map((row) => [
              h(
                "span",
                {},
                link(`/p/${enc(row.program)}?window=${window}`, nameOf(row) ?? short(row.program, 6)),
                nameOf(row) ? h("small", { class: "mono dim" }, ` ${short(row.program, 4)}`) : null,
              ),
              resolvedOr(row.attempts, num(row.attempts)),
              row.rates ? resolvedOr(row.rates.attempts, pct(row.rates.landingRate)) : "–",
              row.rates?.attempts ? outcomeBar(row.rates, `Outcomes of ${row.program}`) : "–",
              ago(row.lastSeen),
            ]),
            { numeric: [1, 2] },
          ),
  );
  void landingScore<LandingScore>().then((snapshot) => {
    if (!snapshot || !Array.isArray(snapshot.programs)) return;
    score.replaceWith(landingScoreCard(snapshot));
  });
}

type ProgramRow = {
  program: string;
  /** The server's display name (well-known program or its IDL's), when the public list has the program. */
  name?: string | null;
  attempts: number;
  lastSeen: number | null;
  rates: Ecosystem["programs"][number]["rates"] | null;
};

async function loadPrograms(eco: Promise<Ecosystem>, signal: AbortSignal): Promise<ProgramRow[]> {
  const publicRows = await eco.then((data) => data.programs).catch(() => null);
  if (!settings.key) {
    if (publicRows === null) await eco; // surfaces the error state
    return publicRows ?? [];
  }
  const mine = await api<ProgramsPage>("programs", { limit: 500 }, { scoped: false, signal });
  const byProgram = new Map((publicRows ?? []).map((row) => [row.program, row]));
  return mine.items.map((item) => ({
    ...item,
    name: byProgram.get(item.program)?.name ?? null,
    rates: byProgram.get(item.program)?.rates ?? null,
  }));
}

/** The server's display name, else the app's table of well-known programs. */
const nameOf = (row: ProgramRow) => row.name ?? programName(row.program);

function landingScoreCard(snapshot: LandingScore): HTMLElement {
  return card(
    "Landing Score",
    "score-title",
    h(
      "p",
      { class: "dim" },
      `Sampled snapshot of ${snapshot.date}. Ranked by the lower bound of the 95% interval; at least ${num(snapshot.minimumSends)} sampled sends to be listed. `,
      h("a", { href: "/landing-score/" }, "The leaderboard page"),
      " · ",
      h("a", { href: "/landing-score/latest.json" }, "JSON"),
    ),
    snapshot.methodology
      ? h(
          "details",
          {},
          h("summary", {}, "Methodology"),
          typeof snapshot.methodology === "string"
            ? h("p", {}, snapshot.methodology)
            : h("pre", { class: "methodology" }, JSON.stringify(snapshot.methodology, null, 2)),
        )
      : null,
    snapshot.programs.length === 0
      ? empty("No program met the minimum sample this time.")
      : table(
          "Landing Score",
          ["#", "Program", "Landing rate", "95% interval", "Drop rate", "Sends", "Accounts", "Top account"],
          snapshot.programs.map((row) => [
            String(row.rank),
            link(`/p/${enc(row.program)}`, row.name ?? programName(row.program) ?? short(row.program, 6)),
            pct(row.landingRate),
            interval(row.ci95),
            pct(row.dropRate),
            num(row.sends),
            num(row.accounts),
            pct(row.topAccountShare, 0),
          ]),
          { numeric: [0, 2, 4, 5, 6, 7] },
        ),
  );
}
