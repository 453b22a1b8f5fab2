// payerBotScore: the bot likelihood of a payer in [0,1] (features and weights: sql/payer_scores.sql,
// docs/api.md), from the last tables build; null for a payer not seen in 30 days.

import type { Context } from "../../context";
import { payerKey } from "../serving/payer-key";
import { servingTables } from "../serving/reader";
import { answerKey } from "./common";

export async function payerBotScore(ctx: Context, payer: string): Promise<number | null> {
  const tables = await servingTables(ctx);
  return tables.cached(answerKey("bot-score", payer), async () => {
    const [row] = await tables.all<{ score: number }>(
      `SELECT score FROM payer_scores WHERE payer = ${payerKey("$1")}`,
      [payer],
    );
    return row ? row.score : null;
  });
}

export type PayerFeatures = {
  payer: string;
  score: number;
  segment: "human" | "mixed" | "bot";
  attempts: number;
  activeHours: number;
  attemptsPerActiveHour: number;
  gaps: number;
  gapDispersion: number | null;
  scriptedAdapterShare: number;
  failureShare: number;
  programs: number;
};

/** The features behind a payer's score (for explanations and tests). */
export async function payerFeatures(ctx: Context, payer: string): Promise<PayerFeatures | null> {
  const tables = await servingTables(ctx);
  const [row] = await tables.all<Record<string, number | string | null>>(
    `SELECT * EXCLUDE (payer) FROM payer_scores WHERE payer = ${payerKey("$1")}`,
    [payer],
  );
  if (!row) return null;
  return {
    payer,
    score: Number(row.score),
    segment: row.segment as PayerFeatures["segment"],
    attempts: Number(row.attempts),
    activeHours: Number(row.active_hours),
    attemptsPerActiveHour: Number(row.attempts_per_active_hour),
    gaps: Number(row.gaps),
    gapDispersion: row.gap_dispersion === null ? null : Number(row.gap_dispersion),
    scriptedAdapterShare: Number(row.scripted_adapter_share),
    failureShare: Number(row.failure_share),
    programs: Number(row.programs),
  };
}
