// The webhook payload (docs/alerts.md#payload, docs/alert-payload.schema.json): the JSON body a
// generic webhook receives, versioned and written once as a zod schema. The stored part is fixed
// when the alert is created (its `id` is the idempotency key: the same on every retry); `sentAt` and
// `attempt` are added to each attempt. A Slack destination gets a Block Kit message made from it.

import { z } from "zod";
import { RULE_KINDS } from "./rules";

export const PAYLOAD_VERSION = 1;

const ms = z.number().int().describe("Unix milliseconds");

export const AlertLinksSchema = z
  .object({
    program: z.string().describe("the program's page in the web app (/p/{program})"),
    issue: z.string().optional().describe("the issue's page (/i/{fingerprint}), when the alert is about an issue"),
    example: z.string().optional().describe("an example transaction's page (/tx/{sig})"),
  })
  .describe("Absolute URLs of the web app's pages (TXRAY_PUBLIC_URL)");

export const AlertPayloadSchema = z
  .object({
    version: z
      .literal(PAYLOAD_VERSION)
      .describe("payload version: fields may be added, never renamed; a breaking change is a new version"),
    id: z.string().describe("this delivery's id, the same on every retry: the idempotency key (process each id once)"),
    kind: z
      .enum(["alert", "summary", "test"])
      .describe(
        "alert: one subject changed state; summary: several alerts folded by the flood cap; test: `txray alerts test`",
      ),
    alertId: z.string().describe("the rule's id (alr_…)"),
    rule: z.enum(RULE_KINDS),
    program: z.string().describe("the program id (base58)"),
    subject: z
      .string()
      .nullable()
      .describe(
        "what the rule watches (`issue:<fingerprint>`, `deploy:<slot>:failureRate`, `provider:<rpcHash>`, `instruction:<name>`, `program`); null for a summary",
      ),
    state: z.enum(["firing", "resolved"]),
    title: z.string(),
    text: z.array(z.string()).describe("the numbers, one short line each"),
    data: z
      .record(z.string(), z.unknown())
      .describe("the evidence: per rule in docs/alerts.md; a summary lists the folded alerts"),
    links: AlertLinksSchema,
    firingSince: ms.describe("when the subject started firing"),
    changedAt: ms.describe("when this state was reached (the evaluation that decided it)"),
    sentAt: ms.describe("this attempt's time (changes on a retry; `id` does not)"),
    attempt: z.number().int().min(1).describe("1 for the first attempt, 2 for the first retry, …"),
  })
  .meta({
    id: "AlertPayload",
    title: "txray alert webhook payload",
    description: "POSTed as JSON to a webhook destination, signed in X-Txray-Signature (docs/alerts.md)",
  });

export type AlertPayload = z.infer<typeof AlertPayloadSchema>;
/** What is stored with the delivery: everything but the per-attempt fields. */
export type StoredPayload = Omit<AlertPayload, "sentAt" | "attempt">;

/** The body of one attempt: the stored payload with this attempt's time and number. */
export const attemptBody = (stored: StoredPayload, sentAt: number, attempt: number): AlertPayload => ({
  ...stored,
  sentAt,
  attempt,
});

/** A web app path made absolute under the public base URL. */
export const absoluteLink = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`;

export function absoluteLinks(
  base: string,
  links: { program: string; issue?: string; example?: string },
): AlertPayload["links"] {
  return {
    program: absoluteLink(base, links.program),
    ...(links.issue ? { issue: absoluteLink(base, links.issue) } : {}),
    ...(links.example ? { example: absoluteLink(base, links.example) } : {}),
  };
}
