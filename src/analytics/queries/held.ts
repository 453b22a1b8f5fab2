// Whether txray holds an attempt with this signature that is not resolved yet, wherever it is on its
// way: still in the spool (acknowledged, not flushed), in the lake but not yet taken into the
// resolver's queue, or queued (pending_attempts). why/ and diagnose-drop/ answer such a signature
// 404 `pending` with Retry-After instead of looking it up on the chain.

import type { Context } from "../../context";
import { failingSince, nextCheckOfSignature, segmentsAwaitingIntake } from "../../control";
import { spoolHolds } from "../../spool";
import { readLake, sqlString } from "../../lake/duckdb";
import { TxrayError } from "../../shared/errors";

const MAX_RETRY_AFTER_SECONDS = 120;

/** Retry-After seconds when the signature is held but unresolved; null when txray does not hold it. */
export async function unresolvedRetryAfter(ctx: Context, sig: string): Promise<number | null> {
  const resolveSeconds = Math.ceil(ctx.config.RESOLVE_INTERVAL_MS / 1000);
  const nextCheck = nextCheckOfSignature(ctx.control, sig);
  if (nextCheck !== null) {
    // Checked at the first resolve run after next_check_at (an overdue one: at the next run).
    const untilDue = Math.max(0, Math.ceil((nextCheck - ctx.clock()) / 1000));
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, untilDue + resolveSeconds));
  }
  // Not queued yet: it reaches the queue at the next resolve run (after the next flush).
  const upcoming = Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, resolveSeconds));
  if (await inLakeAwaitingIntake(ctx, sig)) return upcoming;
  if (spoolHolds(ctx.paths.spoolRoot, sig)) return upcoming;
  return null;
}

/**
 * 404 `pending` with Retry-After when txray holds the signature but has not resolved it, saying
 * why: waiting for the chain (it has not landed and its blockhash has not expired), or the chain
 * out of reach, since when and with what error (the resolve job's failing runs).
 */
export async function throwIfUnresolved(ctx: Context, sig: string): Promise<void> {
  const seconds = await unresolvedRetryAfter(ctx, sig);
  if (seconds === null) return;
  const failing = failingSince(ctx.control, "resolve");
  const message = failing
    ? `not resolved yet: txray has not been able to resolve attempts against the chain since ${new Date(failing.since).toISOString().replace(".000Z", "Z")} (${scrubUrls(failing.error ?? "the resolve job fails")}); it is retried with backoff`
    : "not resolved yet: it has not landed and its blockhash has not expired";
  throw new TxrayError("pending", message, { retryAfterSeconds: seconds });
}

/** An error text without URLs (SOLANA_RPC_URL may carry an API key in its path or query). */
const scrubUrls = (text: string) => text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"')]+/gi, "<the RPC endpoint>").slice(0, 300);

/** Reads only the parts of segments flushed since the last intake (few, small), like intake does. */
async function inLakeAwaitingIntake(ctx: Context, sig: string): Promise<boolean> {
  const segments = segmentsAwaitingIntake(ctx.control);
  const days = [...new Set(segments.flatMap((s) => s.days))];
  if (days.length === 0) return false;
  const rows = await readLake<{ n: number }>(
    ctx.duck,
    `SELECT 1 AS n FROM read_parquet(${sqlString(ctx.paths.datasetGlob("envelopes"))}, hive_partitioning = true, hive_types = {'program': VARCHAR, 'day': VARCHAR})
     WHERE day IN (${days.map(sqlString).join(", ")}) AND spool_segment IN (${segments.map((s) => sqlString(s.segment)).join(", ")}) AND sig = ${sqlString(sig)}
     LIMIT 1`,
  ).catch(() => []); // unreadable parts: the queue or the spool answers instead
  return rows.length > 0;
}
