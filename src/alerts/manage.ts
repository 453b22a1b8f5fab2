// Managing rules, the same for HTTP (/v1/alerts) and the CLI (`txray alerts`): create (validated,
// only on a program the account reported), list, remove, send a test. A destination's URL and secret
// are shown in full once, in the answer that creates the rule; afterwards only redacted (a Slack
// webhook URL is itself a secret). docs/alerts.md#managing-rules.

import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import {
  type AlertRuleRecord,
  accountHasProgram,
  alertRuleById,
  type ControlDb,
  commitAlertChanges,
  countAlertRules,
  firingCounts,
  insertAlertRule,
  listAlertRules,
  recordDeliveryAttempt,
  recordDeliveryOutcome,
  removeAlertRule,
} from "../control";
import { badRequest, describeIssues, notFound } from "../shared/errors";
import { type DestinationSettings, destinationProblem } from "./destination";
import { newDeliveryId } from "./evaluate";
import { programPath } from "./finding";
import { absoluteLinks, PAYLOAD_VERSION, type StoredPayload } from "./payload";
import { type LinkSource, publicBaseUrl } from "./public-url";
import { AlertRuleInputSchema, RULE_KINDS, type RuleKind, ruleParams } from "./rules";
import { type AttemptOutcome, type SendEffects, sendAttempt } from "./send";

/** Rules an account may have at once. */
export const MAX_RULES_PER_ACCOUNT = 100;

const ms = z.number().int().describe("Unix milliseconds");

export const AlertRuleSchema = z
  .looseObject({
    id: z.string().describe("alr_…"),
    program: z.string(),
    rule: z.enum(RULE_KINDS),
    params: z.record(z.string(), z.unknown()).describe("every parameter, defaults filled in (docs/alerts.md)"),
    destination: z.looseObject({
      type: z.enum(["webhook", "slack"]),
      url: z.string().describe("redacted: scheme, host and the last characters"),
      secretHint: z.string().nullable().describe("the webhook secret's last 4 characters"),
    }),
    createdAt: ms,
    firing: z.number().int().min(0).describe("subjects of this rule firing now"),
  })
  .meta({ id: "AlertRule" });

export const AlertRuleCreatedSchema = AlertRuleSchema.extend({
  destination: z.looseObject({
    type: z.enum(["webhook", "slack"]),
    url: z.string().describe("as given (shown in full only here)"),
    secret: z.string().optional().describe("the webhook's signing secret, given or generated (shown only here)"),
  }),
}).meta({ id: "AlertRuleCreated" });

export const AlertRulesSchema = z
  .looseObject({ items: z.array(AlertRuleSchema), nextCursor: z.string().nullable() })
  .meta({ id: "AlertRules" });
export const AlertRuleDeletedSchema = z
  .looseObject({ id: z.string(), deleted: z.literal(true) })
  .meta({ id: "AlertRuleDeleted" });
/** What a test send tells the rule's author: a class, never the receiver's own words or status code. */
export const TEST_RESULTS = ["2xx", "3xx", "4xx", "5xx", "refused", "unreachable", "timeout"] as const;
export type TestResultClass = (typeof TEST_RESULTS)[number];

export const AlertTestResultSchema = z
  .looseObject({
    delivery: z.string().describe("the test delivery's id (dlv_…)"),
    delivered: z.boolean(),
    result: z
      .enum(TEST_RESULTS)
      .describe(
        "the answer's status class, or `refused` (an address alerts may not reach), `unreachable` (no connection), `timeout`",
      ),
    elapsedMs: z.number().int().min(0).describe("how long the attempt took"),
    error: z.string().nullable().describe("the result in words (never the receiver's body)"),
  })
  .meta({ id: "AlertTestResult" });

export type AlertRuleView = z.infer<typeof AlertRuleSchema>;
export type AlertRuleCreated = z.infer<typeof AlertRuleCreatedSchema>;
export type AlertTestResult = z.infer<typeof AlertTestResultSchema>;

/** `https://hooks.slack.com/…Xy9Z`: enough to recognise a destination, never enough to use it. */
export function redactUrl(text: string): string {
  const url = new URL(text);
  const rest = url.pathname + url.search;
  return `${url.protocol}//${url.host}/…${rest.length > 12 ? rest.slice(-4) : ""}`;
}

export function ruleView(record: AlertRuleRecord, firing: number): AlertRuleView {
  return {
    id: record.id,
    program: record.program,
    rule: record.rule as RuleKind,
    params: JSON.parse(record.params) as Record<string, unknown>,
    destination: {
      type: record.destination.type,
      url: redactUrl(record.destination.url),
      secretHint: record.destination.secret ? record.destination.secret.slice(-4) : null,
    },
    createdAt: record.createdAt,
    firing,
  };
}

/** Names one destination: ordering and the flood cap are per (account, type, URL, secret). */
const destinationKey = (accountId: string, destination: AlertRuleRecord["destination"]) =>
  createHash("sha256")
    .update(JSON.stringify([accountId, destination.type, destination.url, destination.secret]))
    .digest("hex")
    .slice(0, 32);

/**
 * Validates `input` (400 naming the field, including a destination alerts may not reach), checks the
 * program is the account's (404) and stores the rule.
 */
export function createRule(
  control: ControlDb,
  accountId: string,
  input: unknown,
  now: number,
  settings: DestinationSettings,
): AlertRuleCreated {
  const parsed = AlertRuleInputSchema.safeParse(input);
  if (!parsed.success) throw badRequest(describeIssues(parsed.error.issues));
  const { program, rule, destination } = parsed.data;
  const problem = destinationProblem(destination.url, settings);
  if (problem) throw badRequest(describeIssues([{ path: ["destination", "url"], message: problem }]));
  if (!accountHasProgram(control, accountId, program))
    throw notFound(`program ${program}: this account has sent no telemetry for it`);
  if (countAlertRules(control, accountId) >= MAX_RULES_PER_ACCOUNT)
    throw badRequest(`an account has at most ${MAX_RULES_PER_ACCOUNT} alert rules: remove one first`);
  const secret =
    destination.type === "webhook" ? (destination.secret ?? `whsec_${randomBytes(24).toString("base64url")}`) : null;
  const stored = { type: destination.type, url: destination.url, secret };
  const record: AlertRuleRecord = {
    id: `alr_${randomBytes(8).toString("hex")}`,
    accountId,
    program,
    rule,
    params: JSON.stringify(ruleParams(rule, parsed.data.params)),
    destination: stored,
    destinationKey: destinationKey(accountId, stored),
    createdAt: now,
    deletedAt: null,
  };
  insertAlertRule(control, record);
  const view = ruleView(record, 0);
  return { ...view, destination: { type: stored.type, url: stored.url, ...(secret ? { secret } : {}) } };
}

/** One account's rules (null: every account's), by id. */
export function listRules(
  control: ControlDb,
  accountId: string | null,
  afterId: string | null = null,
  limit?: number,
): AlertRuleView[] {
  const firing = firingCounts(control, accountId);
  return listAlertRules(control, accountId, afterId, limit).map((record) =>
    ruleView(record, firing.get(record.id) ?? 0),
  );
}

/** Removes the account's rule (null: any account's); 404 when it has none by that id. */
export function removeRule(
  control: ControlDb,
  accountId: string | null,
  id: string,
  now: number,
): { id: string; deleted: true } {
  if (!removeAlertRule(control, accountId, id, now))
    throw notFound(`alert rule ${id}: no such rule${accountId === null ? "" : " for this account"}`);
  return { id, deleted: true };
}

/**
 * Sends a sample alert for the rule to its destination now (one attempt, no retry) and records it in
 * the delivery log as a `test` delivery. The answer is the class of what happened (see
 * testResultClass); the delivery log keeps the detail.
 */
export async function sendTest(
  deps: LinkSource & { control: ControlDb },
  accountId: string | null,
  id: string,
  effects: SendEffects,
): Promise<AlertTestResult> {
  return (await sendTestWithDetail(deps, accountId, id, effects)).answer;
}

/**
 * sendTest for the operator (`txray alerts test`): the same answer, and the delivery log's detail
 * (the status code and the start of the body) that the account's answer never shows.
 */
export async function sendTestWithDetail(
  deps: LinkSource & { control: ControlDb },
  accountId: string | null,
  id: string,
  effects: SendEffects,
): Promise<{ answer: AlertTestResult; detail: string | null }> {
  const rule = alertRuleById(deps.control, id);
  if (!rule || (accountId !== null && rule.accountId !== accountId))
    throw notFound(`alert rule ${id}: no such rule${accountId === null ? "" : " for this account"}`);
  const now = effects.clock();
  const deliveryId = newDeliveryId();
  const payload: StoredPayload = {
    version: PAYLOAD_VERSION,
    id: deliveryId,
    kind: "test",
    alertId: rule.id,
    rule: rule.rule as RuleKind,
    program: rule.program,
    subject: "test",
    state: "firing",
    title: `Test alert: ${rule.rule} on ${rule.program}`,
    text: ["A sample from `txray alerts test`: this destination receives this rule's alerts."],
    data: { sample: true, params: ruleParams(rule.rule as RuleKind, JSON.parse(rule.params)) },
    links: absoluteLinks(publicBaseUrl(deps), { program: programPath(rule.program) }),
    firingSince: now,
    changedAt: now,
  };
  commitAlertChanges(deps.control, {
    states: [],
    updates: [],
    deliveries: [
      {
        id: deliveryId,
        ruleId: rule.id,
        accountId: rule.accountId,
        destinationKey: rule.destinationKey,
        kind: "test",
        subject: "test",
        state: "firing",
        title: payload.title,
        payload: JSON.stringify(payload),
        status: "failed",
        createdAt: now,
        nextAttemptAt: now,
        giveUpAt: now,
        summaryId: null,
      },
    ],
  });
  recordDeliveryAttempt(deps.control, deliveryId, now);
  const started = performance.now();
  const outcome = await sendAttempt(rule.destination, payload, 1, effects, deps.config);
  const elapsedMs = Math.round(performance.now() - started);
  recordDeliveryOutcome(deps.control, deliveryId, {
    status: outcome.status === "sent" ? "sent" : "failed",
    httpStatus: outcome.httpStatus,
    error: outcome.status === "sent" ? null : outcome.error,
    at: effects.clock(),
  });
  const result = testResultClass(outcome);
  const delivered = outcome.status === "sent";
  return {
    answer: { delivery: deliveryId, delivered, result, elapsedMs, error: testResultWords(result) },
    detail: delivered ? null : outcome.error,
  };
}

/**
 * The class of a test attempt's outcome. Whoever holds the account key may point a rule anywhere, so
 * the answer tells only this much: a closed port and a host that drops the connection both read
 * `unreachable`, and the body (kept in the operator's delivery log) is never shown.
 */
function testResultClass(outcome: AttemptOutcome): TestResultClass {
  if (outcome.httpStatus !== null)
    return `${Math.min(5, Math.max(2, Math.floor(outcome.httpStatus / 100)))}xx` as TestResultClass;
  return outcome.status === "sent" ? "2xx" : (outcome.noAnswer ?? "unreachable");
}

const TEST_RESULT_WORDS: Record<TestResultClass, string | null> = {
  "2xx": null,
  "3xx": "the destination answered with a redirect (3xx), which is not followed: use the final URL",
  "4xx": "the destination refused the request (4xx)",
  "5xx": "the destination failed (5xx)",
  refused: "refused: the destination is an address alerts may not reach (ALERTS_ALLOWED_NETWORKS)",
  unreachable: "the destination could not be reached",
  timeout: "the destination did not answer in time",
};
const testResultWords = (result: TestResultClass) => TEST_RESULT_WORDS[result];
