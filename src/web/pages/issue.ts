// `/i/{fingerprint}`: one issue on one page (GET /v1/issue/{fingerprint}): what broke (title,
// error and message, failing program), since when (first seen, the deploy it followed), how often
// (counts, events over time with the deploys marked), for whom (wallets, providers, wallet adapters,
// segments), and a representative event with its call stack and logs; examples open their story.
// With a key, its triage (docs/api.md#issue-states): the state in the key's account, who changed
// what, and (with an admin key) buttons to resolve, ignore, reopen or assign it.

import { ApiError, api, enc, settings } from "../api";
import { seriesPlot, shareBars } from "../charts";
import { failure, h, link, replace, section } from "../dom";
import { ago, num, pct, programName, short, when } from "../format";
import type { IssueDetail, Series } from "../types";
import { badge, card, outcomeBadge, table, tile, windowOf, windowSwitch } from "./common";
import { deploySourceLine } from "./deploy-source";
import { callStackView, logsView } from "./evidence";
import { type IssueStateView, stateBadge } from "./issues";

const SEGMENT_LABEL: Record<string, string> = { human: "Humans", mixed: "Mixed", bot: "Bots" };

export function issuePage(
  main: HTMLElement,
  params: { fingerprint: string },
  query: URLSearchParams,
  signal: AbortSignal,
): void {
  const window = windowOf(query);
  const body = h("div", { class: "issue-body" });
  main.append(body);
  void section(
    body,
    "the issue",
    () => api<IssueDetail>(`issue/${enc(params.fingerprint)}`, { window }, { signal }),
    (issue) => {
      document.title = `${issue.title} · txray`;
      const triage = h("section", { class: "card triage", "aria-labelledby": "triage-title" });
      if (settings.key) void triagePanel(triage, params.fingerprint, signal);
      const [head, ...rest] = render(issue, window);
      return [head, settings.key ? triage : null, ...rest];
    },
  );
}

type IssueStateAnswer = {
  fingerprint: string;
  program: string;
  state: IssueStateView;
  history: { at: number; actor: string; change: string; from: unknown; to: unknown }[];
};

/** POST /v1/issue/{fingerprint}/state with the stored key; the server's error as an ApiError. */
async function changeState(fingerprint: string, change: Record<string, unknown>): Promise<IssueStateAnswer> {
  const response = await fetch(`/v1/issue/${enc(fingerprint)}/state`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", "x-api-key": settings.key },
    body: JSON.stringify(change),
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiError(response.status, error?.code ?? `http_${response.status}`, error?.message ?? "", null);
  }
  return body as IssueStateAnswer;
}

/** The issue's state in the key's account, its history and the controls that change it. */
async function triagePanel(target: HTMLElement, fingerprint: string, signal: AbortSignal): Promise<void> {
  const show = (answer: IssueStateAnswer, problem: unknown = null) => replace(target, view(answer, problem));
  const view = (answer: IssueStateAnswer, problem: unknown = null) => {
    const { state } = answer;
    const act = (label: string, change: Record<string, unknown>) =>
      h(
        "button",
        {
          type: "button",
          "data-state-action": label,
          onclick: () =>
            void changeState(fingerprint, change).then(
              (next) => show(next),
              (error) => show(answer, error),
            ),
        },
        label,
      );
    const assignee = h("input", {
      name: "assignee",
      value: state.assignee ?? "",
      maxlength: 100,
      size: 18,
      "aria-label": "Assignee",
    });
    const detail = [
      state.state !== state.stored ? `set ${state.stored.replaceAll("_", " ")}` : null,
      state.changedBy ? `by ${state.changedBy}` : null,
      state.changedAt ? ago(state.changedAt) : null,
      state.ignoreUntilEvents !== null ? `until ${num(state.ignoreUntilEvents)} more events` : null,
      state.ignoreUntilAt !== null ? `until ${when(state.ignoreUntilAt)}` : null,
      state.release ? `shipped in the deploy at slot ${num(state.release.slot)}` : null,
    ].filter(Boolean);
    return [
      h("h2", { id: "triage-title" }, "Triage"),
      h(
        "p",
        { class: "triage-state" },
        stateBadge(state.state),
        detail.length ? h("span", { class: "dim" }, ` ${detail.join(" · ")}`) : null,
        state.assignee ? h("span", {}, ` · assigned to ${state.assignee}`) : null,
      ),
      h(
        "div",
        { class: "triage-actions" },
        act("Resolve", { state: "resolved" }),
        act("Resolve in next release", { state: "resolved_next_release" }),
        act("Ignore", { state: "ignored" }),
        act("Ignore until 100 more events", { state: "ignored", ignoreUntilEvents: 100 }),
        act("Unresolve", { state: "unresolved" }),
      ),
      h(
        "form",
        {
          class: "triage-assign",
          onsubmit: (event: Event) => {
            event.preventDefault();
            const name = assignee.value.trim();
            void changeState(fingerprint, { assignee: name === "" ? null : name }).then(
              (next) => show(next),
              (error) => show(answer, error),
            );
          },
        },
        assignee,
        h("button", { type: "submit" }, "Assign"),
      ),
      problem ? failure(problem) : null,
      answer.history.length
        ? h(
            "details",
            { class: "triage-history" },
            h("summary", {}, `History (${answer.history.length})`),
            h(
              "ol",
              {},
              answer.history.map((entry) =>
                h("li", {}, `${when(entry.at)} · ${entry.actor}: ${entry.change} → ${historyValue(entry.to)}`),
              ),
            ),
          )
        : null,
    ];
  };
  await section(
    target,
    "the triage",
    () => api<IssueStateAnswer>(`issue/${enc(fingerprint)}/state`, {}, { scoped: false, signal }),
    (answer) => view(answer),
  );
}

function historyValue(value: unknown): string {
  if (value === null) return "none";
  if (typeof value === "object" && value !== null && "state" in value)
    return String((value as { state: string }).state).replaceAll("_", " ");
  return String(value);
}

function render(issue: IssueDetail, window: string) {
  const program = programName(issue.program) ?? short(issue.program, 6);
  const rep = issue.representative;
  const facts: [string, (Node | string | null)[]][] = [
    ["First seen", [when(issue.firstSeen), h("span", { class: "dim" }, ` · ${ago(issue.firstSeen)}`)]],
    ["Last seen", [when(issue.lastSeen), h("span", { class: "dim" }, ` · ${ago(issue.lastSeen)}`)]],
    [
      "First appeared after",
      issue.introducedBy
        ? [
            `the deploy at slot ${num(issue.introducedBy.slot)}`,
            h("span", { class: "dim" }, ` · ${when(issue.introducedBy.deployedAt)}`),
            issue.introducedBy.source ? " · " : null,
            deploySourceLine(issue.introducedBy.source, issue.introducedBy.compareUrl),
          ]
        : ["no deploy observed before it"],
    ],
  ];
  if (issue.failingProgram && issue.failingProgram !== issue.program)
    facts.push([
      "Raised by",
      [
        link(`/p/${enc(issue.failingProgram)}`, programName(issue.failingProgram) ?? short(issue.failingProgram, 6)),
        issue.failingInstruction ? ` ${issue.failingInstruction}` : null,
      ],
    ]);
  if (issue.errCode !== null) facts.push(["Error code", [`${issue.errCode} (0x${issue.errCode.toString(16)})`]]);
  const events = eventsSeries(issue, window);
  return [
    h(
      "div",
      { class: "page-head" },
      h(
        "div",
        {},
        h(
          "p",
          { class: "crumb" },
          link("/", "Programs"),
          " / ",
          link(`/p/${enc(issue.program)}`, program),
          " / ",
          settings.key ? link(`/issues/${enc(issue.program)}`, "issues") : "issue",
        ),
        h("h1", { class: "issue-title" }, issue.title),
        h(
          "p",
          { class: "issue-sub" },
          outcomeBadge(issue.outcome),
          " ",
          h("code", { class: "dim" }, issue.fingerprint),
        ),
        issue.errMessage ? h("p", { class: "err-message" }, issue.errMessage) : null,
      ),
      windowSwitch(`/i/${enc(issue.fingerprint)}`, window as "1d" | "7d" | "30d"),
    ),
    h(
      "div",
      { class: "tiles" },
      tile("Last 24 hours", num(issue.counts["1d"]), "events", issue.counts["1d"] > 0 ? "bad" : ""),
      tile("Last 7 days", num(issue.counts["7d"]), "events"),
      tile("Last 30 days", num(issue.counts["30d"]), "events"),
      tile("Wallets", num(issue.wallets), `in ${issue.window.name ?? window}`),
      tile("Bot share", pct(issue.botShare, 0), "of the window's events"),
    ),
    h(
      "dl",
      { class: "facts" },
      facts.flatMap(([label, value]) => [h("dt", {}, label), h("dd", {}, ...value)]),
    ),
    card(
      "Events over time",
      "series-title",
      seriesPlot(
        `Events per ${events.unit}${issue.deploys.length ? ", deploys marked" : ""}`,
        events.series,
        issue.deploys.map((d) => ({ at: d.deployedAt, label: `deploy ${num(d.slot)}` })),
      ),
    ),
    card(
      "Who hits it",
      "breakdowns-title",
      h(
        "div",
        { class: "breakdowns" },
        shareBars("RPC provider", issue.breakdowns.providers),
        shareBars("Wallet adapter", issue.breakdowns.walletAdapters, (k) => k || "(none reported)"),
        shareBars("Instruction", issue.breakdowns.instructions, (k) => k ?? "(unknown)"),
        shareBars("Payer segment", issue.breakdowns.segments, (k) => SEGMENT_LABEL[k ?? ""] ?? String(k)),
      ),
    ),
    card(
      "A recent event",
      "event-title",
      rep === null
        ? h("p", { class: "dim" }, "No event of this issue is retained.")
        : h(
            "div",
            {},
            h(
              "p",
              {},
              rep.sig ? link(`/tx/${enc(rep.sig)}`, short(rep.sig, 8)) : "an unsigned attempt",
              h("span", { class: "dim" }, ` · ${when(rep.receivedAt)} · via ${rep.rpcLabel}`),
              rep.cuUsed !== null
                ? h("span", { class: "dim" }, ` · ${num(rep.cuUsed)} of ${num(rep.cuRequested)} CU`)
                : null,
            ),
            rep.callStack?.length
              ? [h("h3", {}, "Call stack"), callStackView(rep.callStack)]
              : h(
                  "p",
                  { class: "dim" },
                  issue.outcome === "dropped"
                    ? "A dropped transaction never ran: it has no call stack or logs."
                    : "No program logs were kept for this event.",
                ),
            rep.logs ? logsView(rep.logs, rep.callStack, true, rep.logTruncated) : null,
          ),
    ),
    card(
      "Newest examples",
      "examples-title",
      issue.examples.length === 0
        ? h("p", { class: "dim" }, "No signed example in this window.")
        : table(
            "Newest examples",
            ["Signature", "Received", "Payer", "Provider"],
            issue.examples.map((e) => [
              link(`/tx/${enc(e.sig)}`, short(e.sig, 6)),
              when(e.receivedAt),
              link(`/w/${enc(issue.program)}/${enc(e.payer)}`, short(e.payer, 5)),
              e.rpcLabel,
            ]),
          ),
      issue.examples.length === 20 ? badge("the 20 newest", "muted") : null,
    ),
  ];
}

/** Fewest minutes the 1d chart shows: a six-minute-old issue is six bars, not a sliver of a day. */
const MIN_CHART_MINUTES = 30;

/**
 * The events chart's buckets: per day for 30d, per hour for 7d; for 1d per minute, from a little
 * before the issue was first seen (or the deploy that introduced it) to now, at least
 * MIN_CHART_MINUTES and at most the day (per hour, the last 25, from a server without minutes).
 */
function eventsSeries(issue: IssueDetail, window: string): { series: Series; unit: "minute" | "hour" | "day" } {
  if (window === "30d") return { series: issue.series.daily, unit: "day" };
  if (window === "7d") return { series: issue.series.hourly, unit: "hour" };
  const minute = issue.series.minute;
  if (!minute) return { series: lastBuckets(issue.series.hourly, 25), unit: "hour" };
  const end = minute.since + minute.counts.length * minute.stepMs;
  const start = Math.min(issue.firstSeen, issue.introducedBy?.deployedAt ?? issue.firstSeen);
  const minutes = Math.ceil((end - start) / minute.stepMs);
  const shown = Math.min(minute.counts.length, Math.max(MIN_CHART_MINUTES, Math.ceil(minutes * 1.2) + 1));
  return { series: lastBuckets(minute, shown), unit: "minute" };
}

/** The newest `n` buckets of a series. */
function lastBuckets(series: Series, n: number): Series {
  const skip = Math.max(0, series.counts.length - n);
  return { since: series.since + skip * series.stepMs, stepMs: series.stepMs, counts: series.counts.slice(skip) };
}
