// Issue states (docs/api.md#issue-states): an account's triage of its issues. The control plane keeps
// what an admin key set (src/control/issue-states.ts); what the state is now is derived here, when
// read, from that and the serving tables, so it follows the data without a job:
// - resolved, then an event received after the resolve → regressed;
// - resolved_next_release → resolved once a deploy of the program took effect after the change, and
//   regressed when an event is received after that deploy;
// - ignored until N more events → unresolved at the (N+1)th event after the change; until a time →
//   unresolved from that time.
// Events after a time are counted from the issue's newest kept failures (issue_examples, exact below
// their number) and, beyond them, from its hourly and daily counts (whole buckets after the time): a
// lower bound, so a large ignore count runs out at most one bucket late, never early.

import { z } from "zod";
import type { Context } from "../../context";
import {
  type IssueStateChange,
  issueStateHistory,
  issueStateOf,
  issueStatesOfProgram,
  type Principal,
  STORED_ISSUE_STATES,
  type StoredIssueState,
  type StoredIssueStateName,
  updateIssueState,
} from "../../control";
import { badRequest, describeIssues, notFound } from "../../shared/errors";
import { type ServingTables, servingTables } from "../serving/reader";

/** Fingerprints of any grouping version (`v1:` today, docs/architecture.md "Outcomes, drops and issues"). */
export const FINGERPRINT_PATTERN = /^v[1-9][0-9]*:[0-9a-f]{16}$/;

export const ISSUE_STATES = [...STORED_ISSUE_STATES, "regressed"] as const;
export type IssueStateName = (typeof ISSUE_STATES)[number];
/** States the issue list and top-issues leave out unless asked for every state. */
export const HIDDEN_STATES: readonly IssueStateName[] = ["resolved", "resolved_next_release", "ignored"];

export const ASSIGNEE_MAX_LENGTH = 100;
export const IGNORE_MAX_EVENTS = 1_000_000_000;
/** Kept failures per issue and account in the serving tables (src/analytics/tables/issues.ts). */
const KEPT_EXAMPLES = 21;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export type IssueState = {
  /** What the state is now (derived; see the file's header). */
  state: IssueStateName;
  /** What an admin key last set (unresolved when nobody did). */
  stored: StoredIssueStateName;
  changedAt: number | null;
  /** Who set it: `key <id> (<account name>)` or the surface's user; never a key. */
  changedBy: string | null;
  assignee: string | null;
  ignoreUntilEvents: number | null;
  ignoreUntilAt: number | null;
  /** Events received after the change (a lower bound past the kept failures); null when unchanged. */
  eventsSinceChange: number | null;
  /** resolved_next_release: the deploy that shipped the fix, once observed. */
  release: { slot: number; deployedAt: number } | null;
};

export type IssueFacts = {
  /** The newest event of the issue in the account (received), null when it has none. */
  lastSeen: number | null;
  /** Events received after the stored change. */
  eventsSinceChange: number;
  /** The program's deploys, oldest first. */
  deploys: { slot: number; deployedAt: number }[];
};

/** The state now, from the stored one and the issue's facts (pure: the rules of the file's header). */
export function deriveIssueState(stored: StoredIssueState | null, facts: IssueFacts, now: number): IssueState {
  if (!stored)
    return {
      state: "unresolved",
      stored: "unresolved",
      changedAt: null,
      changedBy: null,
      assignee: null,
      ignoreUntilEvents: null,
      ignoreUntilAt: null,
      eventsSinceChange: null,
      release: null,
    };
  const base = {
    stored: stored.state,
    changedAt: stored.changedAt,
    changedBy: stored.changedBy,
    assignee: stored.assignee,
    ignoreUntilEvents: stored.ignoreUntilEvents,
    ignoreUntilAt: stored.ignoreUntilAt,
    eventsSinceChange: facts.eventsSinceChange,
    release: null,
  };
  const seenAfter = (at: number) => facts.lastSeen !== null && facts.lastSeen > at;
  switch (stored.state) {
    case "unresolved":
      return { ...base, state: "unresolved" };
    case "resolved":
      return { ...base, state: seenAfter(stored.changedAt) ? "regressed" : "resolved" };
    case "resolved_next_release": {
      const release = facts.deploys.find((deploy) => deploy.deployedAt > stored.changedAt) ?? null;
      if (!release) return { ...base, state: "resolved_next_release" };
      return { ...base, release, state: seenAfter(release.deployedAt) ? "regressed" : "resolved" };
    }
    case "ignored": {
      const timeUp = stored.ignoreUntilAt !== null && now >= stored.ignoreUntilAt;
      const countUp = stored.ignoreUntilEvents !== null && facts.eventsSinceChange > stored.ignoreUntilEvents;
      return { ...base, state: timeUp || countUp ? "unresolved" : "ignored" };
    }
  }
}

/** The facts deriveIssueState needs about one issue of an account, read from the serving tables. */
async function issueFacts(
  tables: ServingTables,
  accountId: string,
  fingerprint: string,
  program: string,
  since: number,
): Promise<IssueFacts> {
  const [[lifetime], [kept], buckets, deploys] = await Promise.all([
    tables.all<{ last_seen: number | null }>(
      "SELECT max(last_seen) AS last_seen FROM issue_lifetimes WHERE scope = $1 AND fingerprint = $2",
      [accountId, fingerprint],
    ),
    tables.all<{ after: number | null }>(
      "SELECT count(*) FILTER (WHERE received_at > $3) AS after FROM issue_examples WHERE account_id = $1 AND fingerprint = $2",
      [accountId, fingerprint, since],
    ),
    tables.all<{ kind: string; n: number | null }>(
      `SELECT kind, sum(n) AS n FROM issue_series WHERE account_id = $1 AND fingerprint = $2
         AND ((kind = 'hour' AND unit * ${HOUR_MS} > $3) OR (kind = 'day' AND unit * ${DAY_MS} > $3)) GROUP BY kind`,
      [accountId, fingerprint, since],
    ),
    tables.all<{ slot: number; effective_at: number }>(
      "SELECT slot, effective_at FROM deploys WHERE program = $1 ORDER BY slot",
      [program],
    ),
  ]);
  const keptAfter = Number(kept?.after ?? 0);
  // Fewer kept failures after the time than are kept: they are all of them (the newest are kept).
  const eventsSinceChange =
    keptAfter < KEPT_EXAMPLES ? keptAfter : Math.max(keptAfter, ...buckets.map((bucket) => Number(bucket.n ?? 0)));
  return {
    lastSeen: lifetime?.last_seen === null || lifetime?.last_seen === undefined ? null : Number(lifetime.last_seen),
    eventsSinceChange,
    deploys: deploys.map((deploy) => ({ slot: Number(deploy.slot), deployedAt: Number(deploy.effective_at) })),
  };
}

/** The program of an account's issue, or a 404 when the account has no event of it. */
async function issueProgram(tables: ServingTables, accountId: string, fingerprint: string): Promise<string> {
  const [row] = await tables.all<{ program: string }>(
    "SELECT any_value(program) AS program FROM issue_lifetimes WHERE scope = $1 AND fingerprint = $2 HAVING count(*) > 0",
    [accountId, fingerprint],
  );
  if (!row) throw notFound(`issue ${fingerprint}: no attempts of it in this account`);
  return row.program;
}

/** One issue's state in an account now. */
export async function issueStateNow(ctx: Context, accountId: string, fingerprint: string): Promise<IssueState> {
  const stored = issueStateOf(ctx.control, accountId, fingerprint);
  if (!stored) return deriveIssueState(null, { lastSeen: null, eventsSinceChange: 0, deploys: [] }, ctx.clock());
  const tables = await servingTables(ctx);
  const facts = await issueFacts(tables, accountId, fingerprint, stored.program, stored.changedAt);
  return deriveIssueState(stored, facts, ctx.clock());
}

/**
 * The state now of every issue of a program an admin key changed in the account (issues absent
 * from the map are unresolved).
 */
export async function programIssueStates(
  ctx: Context,
  accountId: string,
  program: string,
): Promise<Map<string, IssueState>> {
  const stored = issueStatesOfProgram(ctx.control, accountId, program);
  const states = new Map<string, IssueState>();
  if (stored.length === 0) return states;
  const tables = await servingTables(ctx);
  const now = ctx.clock();
  for (const one of stored) {
    const facts = await issueFacts(tables, accountId, one.fingerprint, program, one.changedAt);
    states.set(one.fingerprint, deriveIssueState(one, facts, now));
  }
  return states;
}

export type IssueStateAnswer = {
  fingerprint: string;
  program: string;
  state: IssueState;
  history: IssueStateChange[];
};

const fingerprintSchema = z.string().regex(FINGERPRINT_PATTERN, "expected v1: followed by 16 lower-case hex digits");

function requireFingerprint(fingerprint: unknown): string {
  const parsed = fingerprintSchema.safeParse(fingerprint);
  if (!parsed.success) throw badRequest(`fingerprint: ${parsed.error.issues[0].message}`);
  return parsed.data;
}

/** `GET /v1/issue/{fingerprint}/state`: the issue's state in the key's account and its history. */
export async function issueStateAnswer(
  ctx: Context,
  accountId: string,
  fingerprint: unknown,
): Promise<IssueStateAnswer> {
  const checked = requireFingerprint(fingerprint);
  const program = await issueProgram(await servingTables(ctx), accountId, checked);
  return {
    fingerprint: checked,
    program,
    state: await issueStateNow(ctx, accountId, checked),
    history: issueStateHistory(ctx.control, accountId, checked),
  };
}

const assignee = z
  .string()
  .trim()
  .min(1, "expected 1 to 100 characters, or null to unassign")
  .max(ASSIGNEE_MAX_LENGTH, "expected 1 to 100 characters, or null to unassign")
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .refine((text) => !/[\u0000-\u001f\u007f]/.test(text), "control characters are not allowed")
  .nullable();

/** The body of `POST /v1/issue/{fingerprint}/state` (docs/api.md#issue-states). */
export const IssueStateChangeBody = z
  .strictObject({
    state: z.enum(STORED_ISSUE_STATES, { message: `expected one of ${STORED_ISSUE_STATES.join(", ")}` }).optional(),
    ignoreUntilEvents: z.number().int().min(1).max(IGNORE_MAX_EVENTS).optional(),
    ignoreUntilAt: z.number().int().min(0).max(8_640_000_000_000_000).optional(),
    assignee: assignee.optional(),
  })
  .refine((body) => body.state !== undefined || body.assignee !== undefined, {
    message: "expected state or assignee",
  })
  .refine(
    (body) => body.state === "ignored" || (body.ignoreUntilEvents === undefined && body.ignoreUntilAt === undefined),
    { message: "ignoreUntilEvents and ignoreUntilAt go with state ignored", path: ["state"] },
  );
export type IssueStateChangeInput = z.input<typeof IssueStateChangeBody>;

/** Who made a change, as the history records it: the key's id and account name, never the key. */
export const actorOfPrincipal = (principal: Principal) => `key ${principal.keyId} (${principal.accountName})`;

/**
 * Changes an issue's state and/or assignee in an account (the caller checked the key may: an admin
 * key); 404 when the account has no event of the issue. Answers as issueStateAnswer.
 */
export async function changeIssueState(
  ctx: Context,
  accountId: string,
  actor: string,
  fingerprint: unknown,
  body: unknown,
): Promise<IssueStateAnswer> {
  const checked = requireFingerprint(fingerprint);
  const parsed = IssueStateChangeBody.safeParse(body);
  if (!parsed.success) throw badRequest(describeIssues(parsed.error.issues));
  const program = await issueProgram(await servingTables(ctx), accountId, checked);
  const { state, ignoreUntilEvents, ignoreUntilAt, assignee: newAssignee } = parsed.data;
  updateIssueState(
    ctx.control,
    { accountId, fingerprint: checked, program },
    {
      ...(state
        ? { state: { state, ignoreUntilEvents: ignoreUntilEvents ?? null, ignoreUntilAt: ignoreUntilAt ?? null } }
        : {}),
      ...(newAssignee !== undefined ? { assignee: newAssignee } : {}),
    },
    actor,
    ctx.clock(),
  );
  return issueStateAnswer(ctx, accountId, checked);
}
