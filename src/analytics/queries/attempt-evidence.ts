// One resolved attempt's evidence as the lake keeps it (docs/lake.md, `resolutions`): its program
// logs and the story columns the serving tables do not carry (instruction path, CPI depth, failing
// instruction, the error as reported), for the issue page's representative event and the tx page.
// Logs are kept for failures; they are read on request from the few Parquet files of one program's
// partitions, never scanned across the lake, and the call stack is rebuilt from them (chain/decode).

import type { Context, OwnedPart } from "../../context";
import { readAgainAfterSwap, sqlString } from "../../lake/duckdb";
import { addDays, partitionFiles } from "../../lake/partitions";
import { utcDay } from "../../lake/paths";
import { readLakeSql } from "../../lake/schema";
import { LruMap } from "../../shared/lru-map";

/**
 * Days after an attempt's receipt day in which its resolution is looked for (most resolve within minutes; the wallet
 * page reads the same days).
 */
export const RESOLUTION_LAG_DAYS = 3;

export type AttemptEvidence = {
  outcome: string;
  logs: string[];
  /** meta.err (or the preflight's TransactionError) as JSON text. */
  err: string | null;
  instruction: string | null;
  ixPath: string | null;
  cpiDepth: number | null;
  failingProgram: string | null;
  failingInstruction: string | null;
  errCode: number | null;
  errName: string | null;
  cuUsed: number | null;
  cuRequested: number | null;
  slot: number | null;
  blockTime: number | null;
};

type EvidenceRow = {
  outcome: string;
  log_messages: string[] | null;
  err: string | null;
  instruction: string | null;
  ix_path: string | null;
  cpi_depth: number | null;
  failing_program: string | null;
  failing_instruction: string | null;
  err_code: number | null;
  err_name: string | null;
  cu_used: number | null;
  cu_requested: number | null;
  slot: number | null;
  block_time: number | null;
};

/**
 * The evidence of the attempt with signature `sig` at `program`, received on `receivedDay` (its
 * resolution lands that day or within RESOLUTION_LAG_DAYS after);
 * one that reached the chain wins over a drop of a resend. Null when the lake holds none.
 */
export async function evidenceBySignature(
  ctx: Context,
  where: { program: string; sig: string; receivedAt: number },
): Promise<AttemptEvidence | null> {
  const first = utcDay(where.receivedAt);
  const days = Array.from({ length: RESOLUTION_LAG_DAYS + 1 }, (_, k) => addDays(first, k));
  // Resolutions hold no signature (lake version 3): the attempts are the envelopes' of its receipt day.
  return await readEvidence(ctx, where.program, days, () => {
    const envelopes = partitionFiles(ctx.paths.partition("envelopes", where.program, first));
    if (envelopes.length === 0) return null;
    return `attempt_id IN (SELECT attempt_id FROM read_parquet([${envelopes.map(sqlString).join(", ")}], union_by_name = true) WHERE sig = ${sqlString(where.sig)})`;
  });
}

/** The evidence of one attempt by id, resolved at `resolvedAt` (its resolution partition's day). */
export async function evidenceByAttempt(
  ctx: Context,
  where: { program: string; attemptId: string; resolvedAt: number },
): Promise<AttemptEvidence | null> {
  const recent = ctx.own(RECENT_EVIDENCE);
  const key = where.attemptId;
  const hit = recent.get(key);
  if (hit) return hit;
  const evidence = await readEvidence(
    ctx,
    where.program,
    [utcDay(where.resolvedAt)],
    () => `attempt_id = ${sqlString(where.attemptId)}`,
  );
  // A resolution never changes: the stories people open again (a tx page reloaded, a why asked twice) skip the lake.
  if (evidence) recent.set(key, evidence);
  return evidence;
}

const RECENT_ENTRIES = 1000;
/** The evidence last read, by attempt id (least recently used goes first), kept per context. */
const RECENT_EVIDENCE: OwnedPart<LruMap<string, AttemptEvidence>> = {
  name: "recent evidence",
  make: () => new LruMap(RECENT_ENTRIES),
};

/**
 * `condition`: the row's WHERE clause, made at each read (its files are listed again after a swap); null when nothing
 * can match.
 */
async function readEvidence(
  ctx: Context,
  program: string,
  days: string[],
  condition: () => string | null,
): Promise<AttemptEvidence | null> {
  const read = async () => {
    const files = days.flatMap((day) => partitionFiles(ctx.paths.partition("resolutions", program, day)));
    const where = files.length === 0 ? null : condition();
    if (where === null) return [];
    return await ctx.duck.all<EvidenceRow>(
      `SELECT outcome, log_messages, err, instruction, ix_path, cpi_depth, failing_program, failing_instruction, err_code, err_name, cu_used, cu_requested, slot, block_time
       FROM ${readLakeSql("resolutions", `[${files.map(sqlString).join(", ")}]`, "union_by_name = true")}
       WHERE ${where}
       ORDER BY CASE outcome WHEN 'failed_onchain' THEN 0 WHEN 'landed' THEN 1 WHEN 'preflight' THEN 2 ELSE 3 END, resolved_at DESC
       LIMIT 1`,
    );
  };
  // Compaction may swap a partition between listing its files and reading them: list again.
  const [row] = await readAgainAfterSwap(read);
  return row ? toEvidence(row) : null;
}

function toEvidence(row: EvidenceRow): AttemptEvidence {
  return {
    outcome: row.outcome,
    logs: row.log_messages ?? [],
    err: row.err,
    instruction: row.instruction,
    ixPath: row.ix_path,
    cpiDepth: row.cpi_depth,
    failingProgram: row.failing_program,
    failingInstruction: row.failing_instruction ?? null,
    errCode: row.err_code,
    errName: row.err_name,
    cuUsed: row.cu_used,
    cuRequested: row.cu_requested,
    slot: row.slot,
    blockTime: row.block_time,
  };
}
