// issue/{fingerprint} (docs/api.md#get-v1issuefingerprint): everything about one issue on one page,
// the way an error tracker's issue page answers "what broke, where, since when, for whom": its
// identity and title, first/last seen and the deploy it followed, counts per window, a time series
// (per minute over the last day, hourly over 7 days, daily over 30) with the program's deploys, distinct wallets, breakdowns by
// provider, wallet adapter, instruction and payer segment, the newest examples, and a representative
// event with its program logs and call stack (from the lake). Same scope and window rules as
// top-issues. It reads what the tables job merges from its units for it (`issue_series`,
// `issue_breakdowns`, `issue_examples`) and the issue tables top-issues reads (`issue_totals`,
// `issues`, `issue_lifetimes`), the per-minute `recent_issues` of the last day, plus `deploys`
// (sql/issue_detail_*.sql);
// test/analytics/issue-detail.test.ts computes the answers apart from the lake's rows.

import { z } from "zod";
import { type CallFrame, callStack, customErrorMessage, decodeSimulation } from "../../chain/decode";
import { compareUrl, type DeploySource, deploySource } from "../../chain/deploys";
import type { IdlRegistry } from "../../chain/idl";
import type { Context } from "../../context";
import { notFound } from "../../shared/errors";
import { instructionNumber } from "../../shared/instruction-number";
import { issueTitle } from "../../shared/issue-title";
import { ratio } from "../../shared/stats";
import { type ServingTables, servingTables } from "../serving/reader";
import { sqlFile } from "../sql";
import { WINDOWS, type WindowName } from "../windows";
import { type AttemptEvidence, evidenceBySignature } from "./attempt-evidence";
import { answerKey, parseParams, scopeKey, type WindowRange, windowName, windowRange } from "./common";
import { FINGERPRINT_PATTERN, type IssueState, issueStateNow } from "./issue-state";
import { SEGMENTS } from "./top-issues";

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const MAX_EXAMPLES = 20;

export { FINGERPRINT_PATTERN };

export type Slice = { key: string | null; count: number; share: number };
/** Counts per bucket from `since`, one bucket per `stepMs` (UTC minutes, hours or days), oldest first. */
export type Series = { since: number; stepMs: number; counts: number[] };
export type IssueExample = { sig: string; sentAt: number; receivedAt: number; payer: string; rpcLabel: string };
export type RepresentativeEvent = {
  sig: string | null;
  sentAt: number;
  receivedAt: number;
  payer: string;
  rpcLabel: string;
  outcome: string;
  slot: number | null;
  blockTime: number | null;
  ixPath: string | null;
  /** Explorer's number of ixPath (a hash sign, then 3.2); null without one or where the call stack cannot place it. */
  ixNumber: string | null;
  cpiDepth: number | null;
  failingInstruction: string | null;
  cuUsed: number | null;
  cuRequested: number | null;
  logTruncated: boolean;
  /** Program logs as recorded (transaction or simulation); null when the lake keeps none for it (drops). */
  logs: string[] | null;
  callStack: CallFrame[] | null;
};
export type IssueDetailResponse = {
  fingerprint: string;
  program: string;
  title: string;
  outcome: string;
  instruction: string | null;
  failingProgram: string | null;
  failingInstruction: string | null;
  errCode: number | null;
  errName: string | null;
  errMessage: string | null;
  dropClass: string | null;
  window: WindowRange;
  firstSeen: number;
  lastSeen: number;
  /**
   * The program's last deploy before the issue was first seen; `previousSlot` is the deploy before
   * it, `source` its verified-build source and `compareUrl` the commits between the two.
   */
  introducedBy: {
    slot: number;
    deployedAt: number;
    previousSlot: number | null;
    source?: DeploySource | null;
    compareUrl?: string | null;
  } | null;
  counts: Record<WindowName, number>;
  wallets: number;
  botShare: number;
  /** `minute`: the last 24 hours (1,441 buckets, the current minute's included); `hourly`: 7 days; `daily`: 30 days. */
  series: { minute: Series; hourly: Series; daily: Series };
  deploys: { slot: number; deployedAt: number; source?: DeploySource | null }[];
  breakdowns: { providers: Slice[]; walletAdapters: Slice[]; instructions: Slice[]; segments: Slice[] };
  representative: RepresentativeEvent | null;
  examples: IssueExample[];
  /** With scope=account: the issue's state in that account (docs/api.md#issue-states); else null. */
  state: IssueState | null;
};

const issueParams = z.object({
  fingerprint: z.string().regex(FINGERPRINT_PATTERN, "expected v1: followed by 16 lower-case hex digits"),
  window: windowName,
  accountId: z.string().min(1).nullable(),
});
export type IssueDetailParams = { fingerprint: string; window?: string | null; accountId: string | null };
export type IssueDetailDeps = { idls: IdlRegistry };

type FactRow = { kind: string; key: string | null; count: number; wallets: number | null; bots: number | null };
type EventRow = {
  program: string;
  sig: string | null;
  sent_at: number;
  received_at: number;
  payer: string;
  rpc_label: string;
  outcome: string;
  failing_program: string | null;
  instruction: string | null;
  err_code: number | null;
  err_name: string | null;
  drop_class: string | null;
  example: boolean;
};

export async function issueDetail(
  ctx: Context,
  deps: IssueDetailDeps,
  input: IssueDetailParams,
): Promise<IssueDetailResponse> {
  const params = parseParams(issueParams, input);
  const tables = await servingTables(ctx);
  const detail = await tables.cached(answerKey("issue", params), () =>
    computeIssueDetail(ctx, deps, tables, params.fingerprint, params.window, scopeKey(params.accountId)),
  );
  // The state changes between builds: read on every request, never cached with the answer.
  const state = params.accountId === null ? null : await issueStateNow(ctx, params.accountId, params.fingerprint);
  return { ...withDeploySources(ctx.paths.root, detail), state };
}

/**
 * The deploys with their verified-build source (read when answering, as a record may be found after
 * the build), and the introducing deploy's compare link from the deploy before it.
 */
function withDeploySources<T extends Pick<IssueDetailResponse, "program" | "introducedBy" | "deploys">>(
  dataDir: string,
  detail: T,
): T {
  const sourced = (deploy: { slot: number; deployedAt: number }) => ({
    ...deploy,
    source: deploySource(dataDir, detail.program, deploy.slot),
  });
  const introduced = detail.introducedBy;
  if (introduced === null) return { ...detail, deploys: detail.deploys.map(sourced) };
  const source = deploySource(dataDir, detail.program, introduced.slot);
  const previousSource =
    introduced.previousSlot === null ? null : deploySource(dataDir, detail.program, introduced.previousSlot);
  return {
    ...detail,
    introducedBy: { ...introduced, source, compareUrl: compareUrl(previousSource, source) },
    deploys: detail.deploys.map(sourced),
  };
}

async function computeIssueDetail(
  ctx: Context,
  deps: IssueDetailDeps,
  tables: ServingTables,
  fingerprint: string,
  window: WindowName,
  scope: string,
): Promise<Omit<IssueDetailResponse, "state">> {
  const range = windowRange(tables, window);
  const until = tables.clock;
  const since = (name: WindowName) => until - WINDOWS[name];
  const events = await tables.all<EventRow>(sqlFile("issue_detail_events"), [scope, fingerprint, range.since, until]);
  if (events.length === 0) throw notFound(`issue ${fingerprint}: no attempts of it in this scope`);
  const newest = events[0];
  const firstMinute = Math.floor(since("1d") / MINUTE_MS);
  const [facts, [lifetime], deployRows, minuteRows] = await Promise.all([
    tables.all<FactRow>(sqlFile("issue_detail_facts"), [scope, fingerprint, window]),
    tables.all<{ first_seen: number | null; last_seen: number | null }>(sqlFile("issue_detail_lifetime"), [
      scope,
      fingerprint,
    ]),
    tables.all<{ slot: number; effective_at: number }>(sqlFile("issue_detail_deploys"), [newest.program]),
    tables.all<{ minute: number; count: number }>(sqlFile("issue_detail_minutes"), [
      scope,
      fingerprint,
      newest.program,
      firstMinute,
    ]),
  ]);
  const retained = events.map((e) => e.received_at);
  const firstSeen = lifetime?.first_seen ?? Math.min(...retained);
  const lastSeen = lifetime?.last_seen ?? Math.max(...retained);
  const windows = new Map(facts.filter((f) => f.kind === "window").map((f) => [f.key as WindowName, f]));
  const selected = windows.get(window);
  const deploys = deployRows.map((d) => ({ slot: d.slot, deployedAt: d.effective_at }));
  const before = deploys.filter((d) => d.deployedAt <= firstSeen);
  const introducedBy =
    before.length === 0 ? null : { ...before[before.length - 1], previousSlot: before.at(-2)?.slot ?? null };
  const evidence =
    newest.sig !== null && newest.outcome !== "dropped"
      ? await evidenceBySignature(ctx, { program: newest.program, sig: newest.sig, receivedAt: newest.received_at })
      : null;
  const representative = representativeEvent(newest, evidence);
  const identity = {
    outcome: newest.outcome,
    errName: newest.err_name,
    errCode: newest.err_code,
    dropClass: newest.drop_class,
    instruction: newest.instruction,
  };
  return {
    fingerprint,
    program: newest.program,
    title: issueTitle(identity),
    ...identity,
    failingProgram: newest.failing_program,
    failingInstruction: representative?.failingInstruction ?? null,
    errMessage: errorMessage(deps.idls, newest, evidence),
    window: range,
    firstSeen,
    lastSeen,
    introducedBy,
    counts: {
      "1d": windows.get("1d")?.count ?? 0,
      "7d": windows.get("7d")?.count ?? 0,
      "30d": windows.get("30d")?.count ?? 0,
    },
    wallets: selected?.wallets ?? 0,
    botShare: ratio(selected?.bots ?? 0, selected?.count ?? 0),
    series: {
      minute: series(
        minuteRows.map((row) => ({
          kind: "minute",
          key: String(row.minute),
          count: Number(row.count),
          wallets: null,
          bots: null,
        })),
        "minute",
        firstMinute * MINUTE_MS,
        until,
        MINUTE_MS,
      ),
      hourly: series(facts, "hour", since("7d"), until, HOUR_MS),
      daily: series(facts, "day", since("30d"), until, DAY_MS),
    },
    deploys: deploys.filter((d) => d.deployedAt >= since("30d") && d.deployedAt <= until),
    breakdowns: {
      providers: slices(facts, "provider"),
      walletAdapters: slices(facts, "walletAdapter"),
      instructions: slices(facts, "instruction"),
      // Every segment, in their fixed order (an empty one is a finding too).
      segments: SEGMENTS.map(
        (segment) => facts.find((f) => f.kind === "segment" && f.key === segment) ?? { key: segment, count: 0 },
      ).map((f) => ({
        key: f.key,
        count: f.count,
        share: ratio(f.count, selected?.count ?? 0),
      })),
    },
    representative,
    examples: events
      .filter((e) => e.example)
      .slice(0, MAX_EXAMPLES)
      .map((e) => ({
        sig: e.sig!,
        sentAt: e.sent_at,
        receivedAt: e.received_at,
        payer: e.payer,
        rpcLabel: e.rpc_label,
      })),
  };
}

/** Buckets of `stepMs` (UTC-aligned) from the one holding `since` to the one holding `until`, zero-filled. */
function series(facts: FactRow[], kind: string, since: number, until: number, stepMs: number): Series {
  const first = Math.floor(since / stepMs);
  const counts = new Array<number>(Math.floor(until / stepMs) - first + 1).fill(0);
  for (const f of facts) {
    const i = Number(f.key) - first;
    if (f.kind === kind && i >= 0 && i < counts.length) counts[i] += f.count;
  }
  return { since: first * stepMs, stepMs, counts };
}

/** One breakdown of the selected window, largest first. */
function slices(facts: FactRow[], kind: string): Slice[] {
  const rows = facts.filter((f) => f.kind === kind);
  const total = rows.reduce((sum, f) => sum + f.count, 0);
  return rows
    .map((f) => ({ key: f.key, count: f.count, share: ratio(f.count, total) }))
    .sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key)));
}

/** The newest event, with its logs and call stack when the lake keeps them. */
function representativeEvent(event: EventRow, evidence: AttemptEvidence | null): RepresentativeEvent {
  const logs = evidence && evidence.logs.length > 0 ? evidence.logs : null;
  const stack = logs
    ? callStack(logs, {
        program: event.program,
        instruction: evidence!.instruction,
        failingInstruction: evidence!.failingInstruction,
        ixPath: evidence!.ixPath,
      })
    : null;
  return {
    sig: event.sig,
    sentAt: event.sent_at,
    receivedAt: event.received_at,
    payer: event.payer,
    rpcLabel: event.rpc_label,
    outcome: event.outcome,
    slot: evidence?.slot ?? null,
    blockTime: evidence?.blockTime ?? null,
    ixPath: evidence?.ixPath ?? null,
    ixNumber: instructionNumber(evidence?.ixPath ?? null, stack),
    cpiDepth: evidence?.cpiDepth ?? null,
    failingInstruction: evidence?.failingInstruction ?? null,
    cuUsed: evidence?.cuUsed ?? null,
    cuRequested: evidence?.cuRequested ?? null,
    logTruncated: logs?.includes("Log truncated") ?? false,
    logs,
    callStack: stack,
  };
}

/**
 * What the program says the error means: its IDL's or txray's tables' message for the code, else
 * what the representative event's logs say (an Anchor error line, a native `Error:` log, the
 * runtime's `failed:` text).
 */
function errorMessage(registry: IdlRegistry, event: EventRow, evidence: AttemptEvidence | null): string | null {
  const idls = registry.atSlot(evidence?.slot); // the IDL in force when the representative event failed
  if (event.err_code !== null && event.failing_program !== null) {
    const known = customErrorMessage(event.failing_program, event.err_code, idls);
    if (known) return known;
  }
  if (!evidence || evidence.logs.length === 0) return null;
  return decodeSimulation({ err: parseJson(evidence.err), logs: evidence.logs }, idls, { program: event.program })
    .errMessage;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
