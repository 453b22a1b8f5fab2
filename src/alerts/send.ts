// One delivery attempt and what follows it (docs/alerts.md#delivery): POST the payload (a webhook:
// the JSON, signed; Slack: the Block Kit message), then decide from the answer. 2xx: sent. 429,
// 408 and 5xx, a network error or a timeout: retry, after Retry-After when the answer has one, else
// after an exponential backoff with jitter, unless that is past the delivery's give-up time. Any
// other answer (a 3xx, which is never followed, or a 4xx) fails for good: retrying would not help,
// and so does a destination that resolves to an address alerts may not reach (./destination.ts).

import type { AlertRuleRecord } from "../control";
import { retryAfterMs } from "../shared/retry-after";
import { VERSION } from "../shared/version";
import { type DestinationSettings, defaultLookup, type Lookup, resolveDestination } from "./destination";
import { attemptBody, type StoredPayload } from "./payload";
import { SIGNATURE_HEADER, signatureHeader } from "./signature";
import { slackAlertMessage } from "./slack-message";

/**
 * Effects passed in so tests are deterministic: fetch, the clock (ms), the jitter's random source and
 * the name lookup (node:dns when absent).
 */
export type SendEffects = { fetch: typeof fetch; clock: () => number; random: () => number; lookup?: Lookup };
export const defaultSendEffects = (clock: () => number = Date.now): SendEffects => ({
  fetch: globalThis.fetch,
  clock,
  random: Math.random,
  lookup: defaultLookup,
});

/** Longest wait for one attempt's answer. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Longest pause between two attempts when no Retry-After says otherwise. */
export const RETRY_CAP_MS = 15 * 60_000;
/** The most of a failing answer's body kept in the delivery log. */
const ERROR_BODY_CHARS = 200;

/** Why an attempt got no HTTP answer: the destination was refused, could not be reached, or did not answer in time. */
export type NoAnswer = "refused" | "unreachable" | "timeout";

export type AttemptOutcome =
  | { status: "sent"; httpStatus: number }
  | { status: "retry"; httpStatus: number | null; error: string; retryAfterMs: number | null; noAnswer?: NoAnswer }
  | { status: "failed"; httpStatus: number | null; error: string; noAnswer?: NoAnswer };

/** The request of one attempt: its body and headers (the signature is over exactly this body). */
export function attemptRequest(
  destination: AlertRuleRecord["destination"],
  stored: StoredPayload,
  sentAt: number,
  attempt: number,
) {
  const payload = attemptBody(stored, sentAt, attempt);
  const body = JSON.stringify(destination.type === "slack" ? slackAlertMessage(payload) : payload);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": `txray-alerts/${VERSION}`,
    "x-txray-delivery": stored.id,
  };
  if (destination.type === "webhook" && destination.secret)
    headers[SIGNATURE_HEADER] = signatureHeader(destination.secret, body, Math.floor(sentAt / 1000));
  return { body, headers };
}

/**
 * One attempt: the destination's host is resolved and checked (./destination.ts), then the request
 * goes to a checked address, the next one only when the previous could not be connected to.
 */
export async function sendAttempt(
  destination: AlertRuleRecord["destination"],
  stored: StoredPayload,
  attempt: number,
  effects: SendEffects,
  settings: DestinationSettings,
): Promise<AttemptOutcome> {
  const signal = AbortSignal.timeout(ATTEMPT_TIMEOUT_MS);
  const resolved = await resolveDestination(destination.url, settings, effects.lookup ?? defaultLookup);
  if ("refused" in resolved)
    return { status: "failed", httpStatus: null, error: resolved.refused, noAnswer: "refused" };
  if ("unreachable" in resolved)
    return {
      status: "retry",
      httpStatus: null,
      error: resolved.unreachable,
      retryAfterMs: null,
      noAnswer: "unreachable",
    };
  const sentAt = effects.clock();
  const { body, headers } = attemptRequest(destination, stored, sentAt, attempt);
  let response: Response | null = null;
  let failure: AttemptOutcome | null = null;
  for (const target of resolved.targets) {
    try {
      response = await effects.fetch(target.url, {
        method: "POST",
        body,
        headers: { ...headers, host: target.host },
        redirect: "manual",
        signal,
        ...(target.serverName ? { tls: { serverName: target.serverName } } : {}),
      });
      break;
    } catch (error) {
      const name = error instanceof Error ? error.name : "";
      const timedOut = name === "TimeoutError" || name === "AbortError";
      const reason = timedOut ? `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s` : networkError(error);
      failure = {
        status: "retry",
        httpStatus: null,
        error: reason,
        retryAfterMs: null,
        noAnswer: timedOut ? "timeout" : "unreachable",
      };
      if (timedOut) break;
    }
  }
  if (!response) return failure as AttemptOutcome;
  const text = response.ok ? "" : await response.text().catch(() => "");
  if (response.ok) {
    await response.body?.cancel().catch(() => {});
    return { status: "sent", httpStatus: response.status };
  }
  const error = `HTTP ${response.status}${text.trim() ? `: ${text.trim().slice(0, ERROR_BODY_CHARS)}` : ""}`;
  const status = response.status;
  if (status === 429 || status === 408 || status >= 500) {
    return {
      status: "retry",
      httpStatus: status,
      error,
      retryAfterMs: retryAfterMs(response.headers.get("retry-after"), effects.clock()),
    };
  }
  if (status >= 300 && status < 400)
    return { status: "failed", httpStatus: status, error: `${error} (redirects are not followed: use the final URL)` };
  return { status: "failed", httpStatus: status, error };
}

/** A network failure in words, without the URL (it may hold a token; the log is shown to people). */
function networkError(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return `network error${typeof code === "string" ? ` (${code})` : ""}`;
}

/** Exponential backoff with "equal jitter": half the step, plus up to the other half at random. */
export function backoffMs(attemptsMade: number, baseMs: number, random: () => number): number {
  const step = Math.min(RETRY_CAP_MS, baseMs * 2 ** Math.min(Math.max(0, attemptsMade - 1), 30));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * When to try again after a failed attempt: Retry-After when given, else the backoff; null when
 * that is past `giveUpAt` (the delivery then fails, and says so).
 */
export function nextAttemptAt(
  outcome: { retryAfterMs: number | null },
  attemptsMade: number,
  now: number,
  giveUpAt: number,
  baseMs: number,
  random: () => number,
): number | null {
  const at = now + (outcome.retryAfterMs ?? backoffMs(attemptsMade, baseMs, random));
  return at > giveUpAt ? null : at;
}
