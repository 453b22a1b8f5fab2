// Recording resolutions: rows go to data/lake/resolutions (Parquet, one batch per run) and, in the
// same commit, resolved attempts leave the pending queue and enter the attempt index that `why`
// and `diagnose-drop` read. A batch that was written but not committed (a crash in between) is
// removed at the start of the next run and its attempts, still pending, are resolved again.

import { closeSync, mkdirSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context";
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
    ctx.control.query("INSERT INTO resolution_batches (batch, created_at, files) VALUES (?, ?, ?)").run(batch, ctx.clock(), JSON.stringify([...new Set(parts.map((p) => p.partitionDir))]));
    const removePending = ctx.control.query("DELETE FROM pending_attempts WHERE attempt_id = ?");
    // Hourly sends and drops per provider (control migration 4), counted in the same commit as the index rows.
    const providerHour = ctx.control.query(
      `INSERT INTO provider_hours (rpc_hash, hour, sends, dropped) VALUES (?, ?, ?, ?)
       ON CONFLICT (rpc_hash, hour) DO UPDATE SET sends = provider_hours.sends + excluded.sends, dropped = provider_hours.dropped + excluded.dropped`,
    );
    const hours = new Map<string, { rpcHash: string; hour: number; sends: number; dropped: number }>();
    for (const r of resolutions) {
      if (r.outcome === "preflight") continue;
      const hour = Math.floor(r.attempt.sentAt / 3_600_000);
      const key = `${r.attempt.rpcHash}/${hour}`;
      const counts = hours.get(key) ?? { rpcHash: r.attempt.rpcHash, hour, sends: 0, dropped: 0 };
      counts.sends++;
      if (r.outcome === "dropped") counts.dropped++;
      hours.set(key, counts);
    }
    const index = ctx.control.query(
      `INSERT OR REPLACE INTO attempt_index (attempt_id, sig, account_id, program, outcome, payer, rpc_hash, rpc_label, sent_at, resolved_at,
         cu_price_micro_lamports, fingerprint, drop_class, story) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    await publishStaged(
      ctx.control,
      ctx.paths,
      "resolutions",
      batch,
      parts,
      () =>
        ctx.control.transaction(() => {
          for (const r of resolutions) {
            const a = r.attempt;
            removePending.run(a.attemptId);
            index.run(a.attemptId, a.sig, a.accountId, a.program, r.outcome, a.payer, a.rpcHash, a.rpcLabel, a.sentAt, r.resolvedAt,
              a.cuPriceMicroLamports, r.fingerprint, r.drop?.dropClass ?? null, JSON.stringify(indexedStory(r)));
          }
          for (const h of hours.values()) providerHour.run(h.rpcHash, h.hour, h.sends, h.dropped);
          ctx.control.query("UPDATE resolution_batches SET committed = 1 WHERE batch = ?").run(batch);
        }).immediate(),
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
  const batches = ctx.control.query<{ batch: string; files: string }, []>("SELECT batch, files FROM resolution_batches WHERE committed = 0").all();
  for (const { batch, files } of batches) {
    removeBatchParts(ctx.paths, "resolutions", batch, JSON.parse(files) as string[]);
    ctx.control.query("DELETE FROM resolution_batches WHERE batch = ?").run(batch);
  }
  return batches.length;
}
