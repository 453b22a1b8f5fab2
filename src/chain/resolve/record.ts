// Recording resolutions: rows go to data/lake/resolutions (Parquet, one batch per run) and, in the
// same commit, resolved attempts leave the pending queue and enter the attempt index that `why`
// and `diagnose-drop` read. A batch that was written but not committed (a crash in between) is
// removed at the start of the next run and its attempts, still pending, are resolved again.

import { closeSync, mkdirSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context";
import { commitResolutionBatch, forgetResolutionBatch, recordResolutionBatch, uncommittedResolutionBatches, type IndexEntry, type ProviderHour } from "../../control";
import { sqlString } from "../../lake/duckdb";
import { publishStaged, removeBatchParts, stagePartitioned } from "../../lake/publish";
import { duckdbColumnsStruct, RESOLUTION_COLUMNS } from "../../lake/schema";
import type { Resolution } from "./types";
import { fault } from "../../shared/fault";
import { sweepStaging } from "../../lake/staging";
import { yieldToEventLoop } from "./pause";

const ROWS_PER_WRITE = 1_000;

const readColumns = duckdbColumnsStruct([...RESOLUTION_COLUMNS, { name: "program", type: "VARCHAR", doc: "" }]);

function lakeRow(r: Resolution) {
  const s = r.story;
  return {
    attempt_id: r.attempt.attemptId,
    account_id: r.attempt.accountId,
    sig: r.attempt.sig,
    outcome: r.outcome,
    resolved_at: r.resolvedAt,
    slot: r.slot,
    block_time: r.blockTime,
    err: r.err,
    instruction: s.instruction,
    ix_path: s.ixPath,
    cpi_depth: s.cpiDepth,
    err_code: s.errCode,
    err_name: s.errName,
    failing_program: s.failingProgram,
    failing_instruction: s.failingInstruction,
    cu_used: s.cuUsed,
    cu_requested: s.cuRequested,
    compute_exceeded: s.computeExceeded,
    drop_class: r.drop?.dropClass ?? null,
    drop_confidence: r.drop?.confidence ?? null,
    drop_evidence: r.drop ? JSON.stringify(r.drop.evidence) : null,
    error_key: r.drop ? r.drop.dropClass : s.errorKey,
    fingerprint: r.fingerprint,
    log_messages: r.logMessages,
    program: r.attempt.program,
  };
}

/** The index entry: everything `why` needs without touching the lake. */
export function indexedStory(r: Resolution) {
  return {
    outcome: r.outcome,
    slot: r.slot,
    blockTime: r.blockTime,
    err: r.err,
    story: r.story,
    drop: r.drop,
    fingerprint: r.fingerprint,
  };
}

export async function recordResolutions(ctx: Context, resolutions: Resolution[], options: { beforeCommit?: () => void } = {}): Promise<void> {
  if (resolutions.length === 0) return;
  const batch = `r-${Bun.randomUUIDv7()}`;
  const input = join(ctx.paths.staging, `${batch}.ndjson`);
  mkdirSync(ctx.paths.staging, { recursive: true }); // absent in a restored data directory that never flushed
  // Written a thousand rows at a time with pauses for the event loop: rows carry their program logs
  // (kilobytes each), and one string of a whole run's rows held the server's thread and ~100 MB.
  const file = openSync(input, "w");
  try {
    for (let i = 0; i < resolutions.length; i += ROWS_PER_WRITE) {
      if (i > 0) await yieldToEventLoop();
      writeSync(file, resolutions.slice(i, i + ROWS_PER_WRITE).map((r) => JSON.stringify(lakeRow(r)) + "\n").join(""));
    }
  } finally {
    closeSync(file);
  }
  try {
    const { staging, parts } = await stagePartitioned(
      ctx.duck,
      ctx.paths,
      batch,
      `SELECT ${RESOLUTION_COLUMNS.map((c) => c.name).join(", ")}, program, strftime(make_timestamp(resolved_at * 1000), '%Y-%m-%d') AS day
       FROM read_json(${sqlString(input)}, format = 'newline_delimited', columns = ${readColumns})`,
      ["program", "day"],
    );
    recordResolutionBatch(ctx.control, batch, [...new Set(parts.map((p) => p.partitionDir))], ctx.clock());
    // Hourly sends and drops per provider (control migration 4), counted in the same commit as the index rows.
    const hours = new Map<string, ProviderHour>();
    for (const r of resolutions) {
      if (r.outcome === "preflight") continue;
      const hour = Math.floor(r.attempt.sentAt / 3_600_000);
      const key = `${r.attempt.rpcHash}/${hour}`;
      const counts = hours.get(key) ?? { rpcHash: r.attempt.rpcHash, hour, sends: 0, dropped: 0 };
      counts.sends++;
      if (r.outcome === "dropped") counts.dropped++;
      hours.set(key, counts);
    }
    const entries: IndexEntry[] = resolutions.map((r) => {
      const a = r.attempt;
      return {
        attemptId: a.attemptId, sig: a.sig, accountId: a.accountId, program: a.program, outcome: r.outcome, payer: a.payer, rpcHash: a.rpcHash, rpcLabel: a.rpcLabel,
        sentAt: a.sentAt, resolvedAt: r.resolvedAt, cuPriceMicroLamports: a.cuPriceMicroLamports, fingerprint: r.fingerprint, dropClass: r.drop?.dropClass ?? null,
        story: JSON.stringify(indexedStory(r)),
      };
    });
    await publishStaged(
      ctx.control,
      ctx.paths,
      "resolutions",
      batch,
      parts,
      () => commitResolutionBatch(ctx.control, batch, entries, [...hours.values()]),
      () => {
        fault("resolve:after-rename");
        options.beforeCommit?.();
      },
    );
    fault("resolve:after-commit");
    rmSync(staging, { recursive: true, force: true });
  } finally {
    try {
      unlinkSync(input);
    } catch {}
  }
}

/** Removes the parts of batches that were written but never committed. */
export function discardUncommittedBatches(ctx: Context): number {
  sweepStaging(ctx.paths, "resolve"); // staged batches of a killed run (their attempts are still pending)
  const batches = uncommittedResolutionBatches(ctx.control);
  for (const { batch, partitionDirs } of batches) {
    removeBatchParts(ctx.paths, "resolutions", batch, partitionDirs);
    forgetResolutionBatch(ctx.control, batch);
  }
  return batches.length;
}
