// The snapshot file's shape: the schema of record for <date>.json and latest.json. The JSON Schema
// published in docs/landing-score.schema.json is generated from it (`bun run
// src/analytics/landing-score/schema-json.ts`), and a test checks the two agree.

import { z } from "zod";

const count = z.number().int().min(0);
const share = z.number().min(0).max(1);

export const providerShareSchema = z
  .object({
    rpcLabel: z.string().describe("Coarse RPC provider label reported by the SDK (`unknown` when absent)."),
    sends: count.describe("Counted sends through this provider."),
    share: share.describe("sends / the row's sends."),
  })
  .strict();

export const scoreRowSchema = z
  .object({
    rank: z.number().int().min(1).describe("1 = highest lower bound of the landing rate's 95% interval."),
    program: z
      .string()
      .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
      .describe("Program id (base58)."),
    name: z.string().nullable().describe("Display name from snapshots/programs.json, else null."),
    sampleRate: z
      .number()
      .gt(0)
      .max(1)
      .describe("Share of the program's send attempts in the window that were sampled."),
    sends: count.describe(
      "Sampled sends with a decided outcome (landed + failedOnchain + dropped), after the account cap.",
    ),
    landed: count.describe("Counted sends that landed without an error."),
    failedOnchain: count.describe("Counted sends that landed with an error."),
    dropped: count.describe("Counted sends that never landed (their blockhash expired)."),
    landingRate: share.describe("landed / sends."),
    ci95: z.tuple([share, share]).describe("95% Wilson score interval of landingRate: [low, high]."),
    dropRate: share.describe("dropped / sends."),
    providers: z.array(providerShareSchema).describe("Provider mix of the counted sends, largest share first."),
    accounts: z.number().int().min(1).describe("Accounts whose sends were counted."),
    topAccountShare: share.describe("Largest share of the counted sends that one account carries (after the cap)."),
  })
  .strict();

export const snapshotSchema = z
  .object({
    schemaVersion: z.literal(1).describe("Version of this file format; bumped when a field changes meaning."),
    sample: z.literal(true).describe("Figures come from a sample of send attempts; see sampleRate and methodology."),
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .describe("The UTC date the window ends with."),
    window: z
      .object({
        since: z.number().int().describe("Window start, Unix ms (inclusive): 00:00 UTC six days before date."),
        until: z.number().int().describe("Window end, Unix ms (exclusive): 00:00 UTC the day after date."),
        resolvedBefore: z.number().int().describe("Outcomes decided at or after this time (Unix ms) are not counted."),
      })
      .strict(),
    methodology: z.string().describe("How the figures were computed, in plain text."),
    minimumSends: z.number().int().min(1).describe("Fewest counted sends a program needs to be listed."),
    sampling: z
      .object({
        method: z.literal("md5(attempt_id) < sampleRate * 2^64"),
        maxSampledSends: z
          .number()
          .int()
          .min(1)
          .describe("A program's sample rate is chosen so that about this many of its sends are sampled."),
      })
      .strict(),
    trust: z
      .object({
        minimumAccounts: z.number().int().min(1).describe("LANDING_SCORE_MIN_ACCOUNTS in force."),
        maxAccountShare: z.number().gt(0).max(1).describe("LANDING_SCORE_MAX_ACCOUNT_SHARE in force (1 = no cap)."),
      })
      .strict(),
    programs: z.array(scoreRowSchema).describe("Listed programs, by rank."),
  })
  .strict()
  .meta({
    $id: "urn:txray:landing-score:snapshot:v1",
    title: "txray Landing Score snapshot",
    description:
      "A nightly, sampled ranking of Solana programs by how reliably their sent transactions land (docs/publishing.md).",
  });

export type ProviderShare = z.infer<typeof providerShareSchema>;
export type ScoreRow = z.infer<typeof scoreRowSchema>;
export type Snapshot = z.infer<typeof snapshotSchema>;

/** Display names: snapshots/programs.json, `{ "<program id>": "<name>" }`. */
export const programNamesSchema = z.record(
  z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
  z.string().min(1).max(80),
);
export type ProgramNames = z.infer<typeof programNamesSchema>;
