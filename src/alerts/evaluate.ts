// Evaluating every rule (docs/alerts.md#evaluation): each rule's condition over the query layer, in
// its account's scope, through the state machine; the state changes become deliveries, planned
// against the flood cap, and everything is committed in one transaction before anything is sent.
// A rule whose program the account no longer reports is skipped; serving tables not built yet skip
// the whole evaluation (nothing can be known, so nothing changes state).

import { randomBytes } from "node:crypto";
import { freshServingTables } from "../analytics/serving/reader";
import type { Context } from "../context";
import {
  type AlertRuleRecord,
  type AlertSubjectState,
  accountHasProgram,
  alertStates,
  commitAlertChanges,
  type DeliveryRecord,
  type DeliveryUpdate,
  heldDeliveries,
  listAlertRules,
  messagesSince,
  type NewDelivery,
} from "../control";
import { TxrayError } from "../shared/errors";
import { describeError } from "../shared/logger";
import { CONDITIONS } from "./conditions";
import { type Finding, programPath, shortId, type WatchedRule } from "./finding";
import { planFlood } from "./flood";
import { absoluteLinks, PAYLOAD_VERSION, type StoredPayload } from "./payload";
import { publicBaseUrl } from "./public-url";
import { type RuleKind, ruleParams } from "./rules";
import { type Change, transitions } from "./transitions";

export type EvaluationSummary = {
  rules: number;
  evaluated: number;
  failedRules: number;
  fired: number;
  resolved: number;
  summaries: number;
  held: number;
  skipped?: string;
};

export const newDeliveryId = () => `dlv_${randomBytes(12).toString("hex")}`;

/** At most this many folded alerts are listed in a summary's data (the count is always complete). */
const SUMMARY_LIST = 100;

type Candidate = {
  id: string;
  ruleId: string;
  destinationKey: string;
  record: NewDelivery | null;
  held: DeliveryRecord | null;
  rule: AlertRuleRecord;
};

export async function evaluateRules(ctx: Context, now: number): Promise<EvaluationSummary> {
  const rules = listAlertRules(ctx.control, null);
  const summary: EvaluationSummary = {
    rules: rules.length,
    evaluated: 0,
    failedRules: 0,
    fired: 0,
    resolved: 0,
    summaries: 0,
    held: 0,
  };
  if (rules.length === 0) return summary;
  try {
    // Right after a tables build: judge that build, not the one readers were still answering from.
    await freshServingTables(ctx);
  } catch (error) {
    if (error instanceof TxrayError && error.code === "unavailable") return { ...summary, skipped: error.message };
    throw error;
  }
  const states: AlertSubjectState[] = [];
  const candidates: Candidate[] = [];
  const base = publicBaseUrl(ctx);
  const giveUpAt = now + ctx.config.ALERTS_GIVE_UP_MS;
  for (const rule of rules) {
    if (!accountHasProgram(ctx.control, rule.accountId, rule.program)) continue;
    let findings: Finding[];
    let params: WatchedRule["params"];
    try {
      params = ruleParams(rule.rule as RuleKind, JSON.parse(rule.params));
      findings = await findingsOf(ctx, {
        id: rule.id,
        accountId: rule.accountId,
        program: rule.program,
        createdAt: rule.createdAt,
        rule: rule.rule as RuleKind,
        params,
      });
    } catch (error) {
      if (error instanceof TxrayError && error.code === "unavailable") return { ...summary, skipped: error.message };
      summary.failedRules++;
      ctx.logger.warn("alerts: a rule could not be evaluated", {
        alertId: rule.id,
        rule: rule.rule,
        error: describeError(error),
      });
      continue;
    }
    summary.evaluated++;
    const result = transitions(
      rule.id,
      alertStates(ctx.control, rule.id),
      findings,
      now,
      params.resolveAfterMinutes * 60_000,
    );
    states.push(...result.states);
    for (const change of result.changes) {
      if (change.state === "firing") summary.fired++;
      else summary.resolved++;
      const id = newDeliveryId();
      const payload = alertPayload(id, rule, change, base, now);
      candidates.push({
        id,
        ruleId: rule.id,
        destinationKey: rule.destinationKey,
        rule,
        held: null,
        record: {
          id,
          ruleId: rule.id,
          accountId: rule.accountId,
          destinationKey: rule.destinationKey,
          kind: "alert",
          subject: change.subject,
          state: change.state,
          title: change.title,
          payload: JSON.stringify(payload),
          status: "pending",
          createdAt: now,
          nextAttemptAt: now,
          giveUpAt,
          summaryId: null,
        },
      });
    }
  }
  const rulesById = new Map(rules.map((rule) => [rule.id, rule]));
  const waiting: Candidate[] = [];
  for (const held of heldDeliveries(ctx.control)) {
    const rule = rulesById.get(held.ruleId);
    if (rule)
      waiting.push({ id: held.id, ruleId: held.ruleId, destinationKey: held.destinationKey, record: null, held, rule });
  }
  const { deliveries, updates, summaries, heldCount } = fileDeliveries(
    ctx,
    [...waiting, ...candidates],
    now,
    giveUpAt,
    base,
  );
  summary.summaries = summaries;
  summary.held = heldCount;
  commitAlertChanges(ctx.control, { states, deliveries, updates });
  return summary;
}

async function findingsOf(ctx: Context, rule: WatchedRule): Promise<Finding[]> {
  try {
    return await (CONDITIONS[rule.rule] as (ctx: Context, rule: WatchedRule) => Promise<Finding[]>)(ctx, rule);
  } catch (error) {
    // No data for the program in the serving tables (yet, or any more): nothing holds.
    if (error instanceof TxrayError && error.code === "not_found") return [];
    throw error;
  }
}

function alertPayload(id: string, rule: AlertRuleRecord, change: Change, base: string, now: number): StoredPayload {
  return {
    version: PAYLOAD_VERSION,
    id,
    kind: "alert",
    alertId: rule.id,
    rule: rule.rule as RuleKind,
    program: rule.program,
    subject: change.subject,
    state: change.state,
    title: change.title,
    text: change.lines,
    data: change.data,
    links: absoluteLinks(base, change.links),
    firingSince: change.firingSince,
    changedAt: now,
  };
}

/**
 * The flood cap applied to the alerts waiting for each destination (held ones first): new ones
 * inserted as pending, summarized or held; held ones released, summarized or left held.
 */
function fileDeliveries(ctx: Context, candidates: Candidate[], now: number, giveUpAt: number, base: string) {
  const { ALERTS_FLOOD_LIMIT: limit, ALERTS_FLOOD_WINDOW_MS: windowMs } = ctx.config;
  const plan = planFlood(candidates, (key) => limit - messagesSince(ctx.control, key, now - windowMs));
  const deliveries: NewDelivery[] = [];
  const updates: DeliveryUpdate[] = [];
  const file = (candidate: Candidate, status: NewDelivery["status"], summaryId: string | null) => {
    if (candidate.record) deliveries.push({ ...candidate.record, status, summaryId });
    else if (status !== "held") updates.push({ id: candidate.id, status, summaryId, nextAttemptAt: now });
  };
  for (const candidate of plan.individual) file(candidate, "pending", null);
  for (const candidate of plan.held) file(candidate, "held", null);
  for (const group of plan.summaries) {
    const rule = group[0].rule;
    const id = newDeliveryId();
    const members = group.map((candidate) => {
      const source = candidate.record ?? candidate.held!;
      const stored = JSON.parse(source.payload) as StoredPayload;
      return {
        id: candidate.id,
        subject: source.subject,
        state: source.state as "firing" | "resolved",
        title: source.title,
        changedAt: stored.changedAt,
        firingSince: stored.firingSince,
      };
    });
    const firing = members.filter((member) => member.state === "firing").length;
    const payload: StoredPayload = {
      version: PAYLOAD_VERSION,
      id,
      kind: "summary",
      alertId: rule.id,
      rule: rule.rule as RuleKind,
      program: rule.program,
      subject: null,
      state: firing > 0 ? "firing" : "resolved",
      title: `${members.length} ${rule.rule} alerts on ${shortId(rule.program)}`,
      text: [
        `${firing} firing, ${members.length - firing} resolved: more than ${limit} messages in ${Math.round(windowMs / 60_000)} min to this destination, so they come as one.`,
      ],
      data: {
        count: members.length,
        firing,
        resolved: members.length - firing,
        alerts: members.slice(0, SUMMARY_LIST),
        truncated: members.length > SUMMARY_LIST,
      },
      links: absoluteLinks(base, { program: programPath(rule.program) }),
      firingSince: Math.min(...members.map((member) => member.firingSince)),
      changedAt: now,
    };
    deliveries.push({
      id,
      ruleId: rule.id,
      accountId: rule.accountId,
      destinationKey: rule.destinationKey,
      kind: "summary",
      subject: null,
      state: payload.state,
      title: payload.title,
      payload: JSON.stringify(payload),
      status: "pending",
      createdAt: now,
      nextAttemptAt: now,
      giveUpAt,
      summaryId: null,
    });
    for (const candidate of group) file(candidate, "summarized", id);
  }
  const newlyHeld = plan.held.filter((candidate) => candidate.record !== null).length;
  if (plan.summaries.length > 0 || newlyHeld > 0) {
    ctx.logger.warn("alerts: flood cap reached", {
      summaries: plan.summaries.length,
      folded: plan.summaries.reduce((n, g) => n + g.length, 0),
      held: plan.held.length,
    });
  }
  return { deliveries, updates, summaries: plan.summaries.length, heldCount: plan.held.length };
}
