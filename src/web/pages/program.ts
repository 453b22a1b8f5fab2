// `/p/{program}`: how the program's transactions fare against the ecosystem and per provider (95%
// intervals drawn), its top issues per payer segment, compute headroom per instruction with the
// daily p95 trend, provider drop rates, and the release diff around a deploy (with a picker).

import { ApiError, api, enc } from "../api";
import { cuTrendPlot, type IntervalRow, intervalPlot, outcomeBar, outcomeLegend, prePostPlot } from "../charts";
import { empty, failure, h, link, loading, replace, section } from "../dom";
import { ago, num, pct, programName, pValue, short, when } from "../format";
import type { Baseline, CuHeadroom, Deploy, ProviderReport, ReleaseDiff, Segment, TopIssues } from "../types";
import { badge, card, outcomeBadge, rateTiles, table, tile, windowOf, windowSwitch } from "./common";
import { deploySourceLine } from "./deploy-source";

export function programPage(
  main: HTMLElement,
  params: { program: string },
  query: URLSearchParams,
  signal: AbortSignal,
): void {
  const { program } = params;
  const window = windowOf(query);
  const name = programName(program);
  const opts = { signal };
  const parts = {
    baseline: h("div", { class: "slot-baseline" }),
    issues: h("div", { class: "slot-issues" }),
    cu: h("div"),
    providers: h("div"),
    release: h("div"),
  };
  main.append(
    h(
      "div",
      { class: "page-head" },
      h(
        "div",
        {},
        h("p", { class: "crumb" }, link("/", "Programs"), " / program"),
        h("h1", {}, name ?? short(program, 8)),
        h("p", { class: "mono dim break" }, program),
      ),
      windowSwitch(`/p/${enc(program)}`, window),
    ),
    card("Outcomes vs the ecosystem", "baseline-title", parts.baseline),
    card("Top issues", "issues-title", parts.issues),
    card("Release diff", "release-title", parts.release),
    card("Provider drop rates", "providers-title", parts.providers),
    card("Compute units per instruction", "cu-title", parts.cu),
  );
  const q = { window };
  void section(parts.baseline, "baseline", () => api<Baseline>(`baseline/${enc(program)}`, q, opts), renderBaseline);
  void section(
    parts.issues,
    "top issues",
    () => api<TopIssues>(`top-issues/${enc(program)}`, { ...q, limit: 10 }, opts),
    renderIssues,
  );
  void section(
    parts.providers,
    "provider report",
    () => api<ProviderReport>(`provider-report/${enc(program)}`, q, opts),
    renderProviders,
  );
  void section(parts.cu, "compute units", () => api<CuHeadroom>(`cu-headroom/${enc(program)}`, q, opts), renderCu);
  releaseDiff(parts.release, program, window, null, [], signal);
}

function renderBaseline(data: Baseline) {
  if (data.rates.attempts === 0)
    return empty(
      "No resolved attempts in this window.",
      data.pending ? `${num(data.pending)} attempts are still pending.` : "Try a longer window.",
    );
  const rows: IntervalRow[] = [
    { label: "This program", value: data.rates.landingRate, ci: data.rates.ci95.landingRate, tone: "main" },
    { label: "Ecosystem", value: data.ecosystem.landingRate, ci: data.ecosystem.ci95.landingRate, tone: "ref" },
    ...data.providers.map((p) => ({
      label: p.rpcLabel,
      value: p.landingRate,
      ci: p.ci95.landingRate,
      note: `${pct(p.landingRate)} of ${num(p.attempts)}`,
    })),
  ];
  const drops: IntervalRow[] = [
    { label: "This program", value: data.rates.dropRate, ci: data.rates.ci95.dropRate, tone: "main" },
    { label: "Ecosystem", value: data.ecosystem.dropRate, ci: data.ecosystem.ci95.dropRate, tone: "ref" },
    ...data.providers.map((p) => ({ label: p.rpcLabel, value: p.dropRate, ci: p.ci95.dropRate, tone: "bad" as const })),
  ];
  return [
    rateTiles(data.rates, data.pending ? [tile("Pending", num(data.pending), "not resolved yet")] : []),
    outcomeBar(data.rates, "Program outcomes"),
    outcomeLegend(),
    h(
      "div",
      { class: "two plots" },
      intervalPlot("Landing rate, 95% interval", rows, { max: 1 }),
      intervalPlot("Drop rate, 95% interval", drops),
    ),
  ];
}

const SEGMENT_LABEL: Record<Segment, string> = { human: "Humans", mixed: "Mixed", bot: "Bots" };

function renderIssues(data: TopIssues) {
  const segments: Segment[] = ["human", "mixed", "bot"];
  const panel = h("div", { class: "tab-panel", role: "tabpanel" });
  const tabs = h("div", { class: "tabs", role: "tablist", "aria-label": "Payer segment" });
  const select = (segment: Segment) => {
    for (const button of tabs.querySelectorAll("button"))
      button.setAttribute("aria-selected", String(button.dataset.segment === segment));
    panel.setAttribute("aria-label", `${SEGMENT_LABEL[segment]} issues`);
    const issues = data.segments[segment] ?? [];
    replace(
      panel,
      issues.length === 0
        ? empty(`No failures from ${SEGMENT_LABEL[segment].toLowerCase()} in this window.`)
        : table(
            `Top issues, ${segment}`,
            ["Issue", "Count", "Share", "Wallets", "Outcome", "Last seen"],
            issues.map((issue) => [
              link(`/i/${enc(issue.fingerprint)}`, h("span", { class: "issue-name" }, issue.title)),
              num(issue.count),
              pct(issue.share),
              num(issue.wallets),
              outcomeBadge(issue.outcome),
              ago(issue.lastSeen),
            ]),
            { numeric: [1, 2, 3] },
          ),
    );
  };
  // Open on the busiest segment.
  const first = segments.reduce(
    (best, seg) => ((data.segments[seg]?.length ?? 0) > (data.segments[best]?.length ?? 0) ? seg : best),
    "human" as Segment,
  );
  for (const segment of segments) {
    // Like an error tracker's tabs, a tab counts issues (the table's rows), not their events.
    const issues = (data.segments[segment] ?? []).length;
    tabs.append(
      h(
        "button",
        { type: "button", role: "tab", "data-segment": segment, onclick: () => select(segment) },
        `${SEGMENT_LABEL[segment]} `,
        h("small", { title: `${num(issues)} issue${issues === 1 ? "" : "s"}` }, num(issues)),
      ),
    );
  }
  select(first);
  return [tabs, panel];
}

function renderProviders(data: ProviderReport) {
  if (data.providers.length === 0) return empty("No resolved sends in this window.");
  return h(
    "div",
    { class: "two" },
    intervalPlot(
      "Drop rate per provider (sends), 95% interval",
      data.providers.map((p) => ({
        label: p.rpcLabel,
        value: p.dropRate,
        ci: p.ci95,
        tone: "bad",
        note: `${pct(p.dropRate)} of ${num(p.attempts)}`,
      })),
    ),
    h(
      "div",
      {},
      table(
        "Providers",
        ["Provider", "Sends", "Dropped", "Drops expired", "Land p50", "Land p95"],
        data.providers.map((p) => [
          p.rpcLabel,
          num(p.attempts),
          num(p.dropped),
          pct(p.expiredShare, 0),
          landTime(p.timeToLandMs.p50, p.timeToLandSlots.p50),
          landTime(p.timeToLandMs.p95, p.timeToLandSlots.p95),
        ]),
        { numeric: [1, 2, 3, 4, 5] },
      ),
      h(
        "p",
        { class: "count dim" },
        "Drops expired: of the provider's dropped sends, the share txray can explain only by the blockhash expiring " +
          "(classes expired_blockhash and stale_blockhash_at_send); the rest have a stronger cause. " +
          "Land: from the send to the block's time, and in slots from the slot the client saw before sending " +
          "to the slot it landed in (slot times change; slots unknown where no client sent its slot).",
      ),
    ),
  );
}

/** Time to land = block time (whole seconds) − client send time, so under a second reads "< 1 s". */
const ms = (value: number | null) =>
  value === null ? "–" : Math.abs(value) < 1000 ? "< 1 s" : `${(value / 1000).toFixed(1)} s`;

/** A time to land in ms and in slots: "1.2 s · 3 slots", "1.2 s · slots unknown". */
const landTime = (value: number | null, slots: number | null) =>
  `${ms(value)} · ${slots === null ? "slots unknown" : `${num(slots)} ${slots === 1 ? "slot" : "slots"}`}`;

function renderCu(data: CuHeadroom) {
  if (data.instructions.length === 0) return empty("No decoded instructions in this window.");
  const top = data.instructions.slice(0, 6);
  return [
    table(
      "Compute units per instruction",
      ["Instruction", "Samples", "p50", "p95", "max", "Requested (p50)", "Headroom at p95", "Exceeded"],
      data.instructions.map((i) => [
        i.instruction,
        num(i.samples),
        num(i.cuUsed.p50),
        num(i.cuUsed.p95),
        num(i.cuUsed.max),
        num(i.cuRequestedP50),
        i.headroomP95 === null ? "–" : i.headroomP95 < 0 ? badge(num(i.headroomP95), "bad") : num(i.headroomP95),
        i.exceeded ? badge(num(i.exceeded), "bad") : "0",
      ]),
      { numeric: [1, 2, 3, 4, 5, 6, 7] },
    ),
    h(
      "div",
      { class: "grid-plots" },
      top.map((i) =>
        cuTrendPlot(`${i.instruction}: daily CU p95 vs requested`, i.trend, i.cuRequestedP50, data.window),
      ),
    ),
  ];
}

/** The release diff of one deploy (null: the latest), with a picker over the deploys seen so far. */
function releaseDiff(
  target: HTMLElement,
  program: string,
  window: string,
  deploy: number | null,
  known: Deploy[],
  signal: AbortSignal,
): void {
  replace(target, loading("release diff"));
  api<ReleaseDiff>(`release-diff/${enc(program)}`, { window, deploy }, { signal })
    .then((data) => {
      const deploys = [...known];
      for (const d of [data.deploy, data.previousDeploy])
        if (d && !deploys.some((k) => k.slot === d.slot)) deploys.push(d);
      deploys.sort((a, b) => b.slot - a.slot);
      replace(
        target,
        renderRelease(data, deploys, (slot) => releaseDiff(target, program, window, slot, deploys, signal)),
      );
    })
    .catch((error) => {
      if ((error as Error).name === "AbortError") return;
      if (error instanceof ApiError && error.status === 404 && error.code === "not_found")
        replace(
          target,
          empty(
            "No deploy observed for this program.",
            "The deploys job records a deploy when the program's ProgramData slot changes.",
          ),
        );
      else
        replace(
          target,
          failure(error, () => releaseDiff(target, program, window, deploy, known, signal)),
        );
    });
}

function renderRelease(data: ReleaseDiff, deploys: Deploy[], pick: (slot: number) => void) {
  const picker = h(
    "select",
    { id: "deploy-picker", onchange: (event: Event) => pick(Number((event.target as HTMLSelectElement).value)) },
    deploys.map((d) => {
      const option = h(
        "option",
        { value: d.slot },
        `slot ${num(d.slot)} · ${when(d.effectiveAt ?? d.deployedAt ?? d.detectedAt ?? null)}`,
      );
      if (d.slot === data.deploy.slot) option.selected = true;
      return option;
    }),
  );
  const head = h(
    "div",
    { class: "picker" },
    h("label", { for: "deploy-picker" }, "Deploy"),
    picker,
    deploySourceLine(data.deploy.source, data.compareUrl),
  );
  const period = (rates: ReleaseDiff["pre"]) => `${num(rates.attempts)} resolved attempts`;
  if (data.pre.attempts === 0 || data.post.attempts === 0) {
    const side = data.post.attempts === 0 ? "after" : "before";
    return [
      head,
      empty(
        `No resolved attempts ${side} this deploy in the window yet.`,
        `Before: ${period(data.pre)} · after: ${period(data.post)}. The diff appears once both sides have traffic.`,
      ),
    ];
  }
  const changed = data.issues.filter((i) => i.status !== "unchanged" || i.delta !== 0).slice(0, 8);
  return [
    head,
    h(
      "div",
      { class: "tiles" },
      tileRate("Failure rate", data, "failureRate"),
      tileRate("Landing rate", data, "landingRate", true),
      tileRate("Drop rate", data, "dropRate"),
      tile("Attempts", `${num(data.pre.attempts)} → ${num(data.post.attempts)}`, "before → after"),
    ),
    h(
      "div",
      { class: "two" },
      changed.length
        ? prePostPlot(
            "Issue rate before → after the deploy",
            changed.map((i) => ({ label: i.title, pre: i.preRate, post: i.postRate, tone: statusTone(i.status) })),
          )
        : empty("No issue changed around this deploy."),
      data.instructions.length
        ? table(
            "Instructions around the deploy",
            ["Instruction", "Failure before", "after", "CU p95 before", "after"],
            data.instructions.map((i) => [
              i.instruction,
              pct(i.preFailureRate),
              pct(i.postFailureRate),
              num(i.cuP95Pre),
              num(i.cuP95Post),
            ]),
            { numeric: [1, 2, 3, 4] },
          )
        : h("div"),
    ),
    data.issues.length
      ? table(
          "Issues around the deploy",
          ["Issue", "Status", "Before", "After", "p-value"],
          data.issues
            .slice(0, 12)
            .map((i) => [
              link(`/i/${enc(i.fingerprint)}`, h("span", { class: "issue-name" }, i.title)),
              badge(i.status, statusTone(i.status)),
              pct(i.preRate),
              pct(i.postRate),
              i.pValue === null ? "–" : i.pValue < 0.001 ? "< 0.001" : i.pValue.toFixed(3),
            ]),
          { numeric: [2, 3, 4] },
        )
      : null,
  ];
}

/** An issue's status as a colour: red only for a new or significantly worse issue, green for a resolved one. */
const statusTone = (status: string) =>
  status === "new" || status === "regressed" ? "bad" : status === "resolved" ? "good" : "muted";

/**
 * A rate before → after the deploy, coloured only when the change is significant (its two-proportion
 * test, `rateChanges`): a change within noise is neutral, whichever way it points.
 */
function tileRate(
  label: string,
  data: ReleaseDiff,
  name: "failureRate" | "landingRate" | "dropRate",
  higherIsBetter = false,
): HTMLElement {
  const before = data.pre[name];
  const after = data.post[name];
  const change = data.rateChanges?.[name];
  const worse = higherIsBetter ? after < before : after > before;
  const text = `${pct(before)} → ${pct(after)}`;
  if (!change?.significant)
    return tile(
      label,
      text,
      Math.abs(after - before) < 0.0005
        ? "no change"
        : `no significant change${change ? ` (${pValue(change.pValue)})` : ""}`,
    );
  return tile(
    label,
    text,
    `${worse ? "worse" : "better"} after the deploy (p ${change.pValue < 0.001 ? "< 0.001" : `= ${change.pValue.toFixed(3)}`})`,
    worse ? "bad" : "good",
  );
}
