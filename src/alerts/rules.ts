// What an alert rule is (docs/alerts.md): the five rule kinds and their parameters with defaults and
// ranges, the destination (a generic webhook or a Slack incoming webhook) and the rule a client
// creates over HTTP or the CLI. One zod schema per thing; every 400 names the field.

import { z } from "zod";
import { isBase58Address } from "../shared/base58";

export const RULE_KINDS = ["new_issue", "regression", "landing_rate", "provider_drops", "cu_headroom"] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

const windowName = z.enum(["1d", "7d", "30d"], { message: "expected one of 1d, 7d, 30d" });
/** A number; only the type error gets our wording (ranges keep zod's, which state the bound). */
const number = () => z.number({ error: (issue) => (issue.code === "invalid_type" ? "expected a number" : undefined) });
const int = (min: number, max: number) => number().int({ message: "expected an integer" }).min(min).max(max);
const level = number().gt(0).max(0.5);
const fraction = number().min(0).max(1);

/** Every rule: how long a firing subject's condition must stay false before it resolves. */
const common = { resolveAfterMinutes: int(0, 1440).default(15) };

/** Parameters of each rule kind, with their defaults (an unknown parameter is a 400). */
export const RULE_PARAMS = {
  new_issue: z.strictObject({
    ...common,
    /** Fires when the issue occurred at least minCount times within the last withinMinutes. */
    minCount: int(1, 1_000_000).default(1),
    withinMinutes: int(1, 1440).default(60),
  }),
  regression: z.strictObject({
    ...common,
    /** The release-diff window: pre and post periods of this length around the latest deploy. */
    window: windowName.default("1d"),
    /** Family-wise significance level over the deploy's tests (Bonferroni). */
    alpha: level.default(0.05),
    /** Fewest occurrences after the deploy for an issue to count. */
    minCount: int(1, 1_000_000).default(5),
    /** Fewest resolved attempts in each period before anything is tested. */
    minAttempts: int(1, 1_000_000).default(30),
  }),
  landing_rate: z.strictObject({
    ...common,
    /** The recent window, in minutes before the latest refresh. */
    windowMinutes: int(5, 1440).default(60),
    /** Fires when the whole 95% Wilson interval of the recent landing rate is below it (absent: off). */
    threshold: fraction.optional(),
    /** Compare with the program's own previous 7 days (false: threshold only). */
    baseline: z.boolean({ message: "expected true or false" }).default(true),
    alpha: level.default(0.01),
    /** Smallest drop below the baseline worth an alert (absolute, 0.05 = 5 points). */
    minDrop: fraction.default(0.05),
    minAttempts: int(1, 1_000_000).default(30),
  }),
  provider_drops: z.strictObject({
    ...common,
    window: windowName.default("1d"),
    alpha: level.default(0.01),
    /** Smallest excess of the provider's drop rate over the others' (absolute). */
    minExcess: fraction.default(0.05),
    /** Fewest sends through the provider, and through the others together. */
    minAttempts: int(1, 1_000_000).default(30),
  }),
  cu_headroom: z.strictObject({
    ...common,
    window: windowName.default("1d"),
    /** Fires when an instruction's p95 compute is within this percentage of its requested limit. */
    withinPercent: number().gt(0).max(100).default(10),
    minSamples: int(1, 1_000_000).default(20),
  }),
} as const;

export type RuleParams = { [K in RuleKind]: z.output<(typeof RULE_PARAMS)[K]> };

/** Loopback hosts, where plain http:// is allowed (tests, sidecars); anything else must be https://. */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

const isLoopbackUrl = (url: URL) => LOOPBACK.test(url.hostname);

const destinationUrl = z
  .string({ message: "expected a URL" })
  .max(2048, "at most 2048 characters")
  .superRefine((text, context) => {
    const url = URL.parse(text);
    if (url === null) context.addIssue({ code: "custom", message: "expected an absolute URL" });
    else if (!(url.protocol === "https:" || (url.protocol === "http:" && isLoopbackUrl(url)))) {
      context.addIssue({ code: "custom", message: "must be https:// (http:// only to a loopback address)" });
    }
  });

/** A webhook secret given by the client: 16–256 printable ASCII characters. */
const secret = z
  .string({ message: "expected a string" })
  .regex(/^[\x21-\x7e]{16,256}$/, "16 to 256 printable ASCII characters, no spaces");

export const DestinationSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("webhook"), url: destinationUrl, secret: secret.optional() }),
    z.strictObject({ type: z.literal("slack"), url: destinationUrl }),
  ],
  { message: "expected type webhook or slack" },
);
export type Destination = z.output<typeof DestinationSchema>;

/** The body of POST /v1/alerts (and what `txray alerts add` assembles from its flags). */
export const AlertRuleInputSchema = z
  .strictObject({
    program: z
      .string({ message: "expected a string" })
      .refine(isBase58Address, "expected a base58 program id (32 bytes)"),
    rule: z.enum(RULE_KINDS, { message: `expected one of ${RULE_KINDS.join(", ")}` }),
    params: z.record(z.string(), z.unknown(), { message: "expected an object" }).optional(),
    destination: DestinationSchema,
  })
  .superRefine((input, context) => {
    const parsed = RULE_PARAMS[input.rule].safeParse(input.params ?? {});
    if (!parsed.success)
      for (const issue of parsed.error.issues)
        context.addIssue({ code: "custom", message: issue.message, path: ["params", ...issue.path] });
  });
export type AlertRuleInput = z.output<typeof AlertRuleInputSchema>;

/** A rule's parameters with their defaults filled in (stored this way, so later default changes do not move a rule). */
export function ruleParams<K extends RuleKind>(rule: K, params: unknown): RuleParams[K] {
  return RULE_PARAMS[rule].parse(params ?? {}) as RuleParams[K];
}
