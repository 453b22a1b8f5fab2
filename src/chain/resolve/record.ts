// Recording a resolve run: its resolutions go to data/lake/resolutions (Parquet, one batch per run)
// and to the signature index, and the batch commits in the control database with the hourly
// provider and issue counts and the marks of the segments the run took in (never a row per
// attempt). In order:
//   0. attempts taken in and still open get their open entries (an index run without a batch:
//      they are open whatever happens next);
//   1. the batch is recorded, not committed, with its partitions;
//   2. the signature index run of its resolutions is written, naming the batch (on the index's
//      thread, while this one writes the rows);
//   3. the Parquet parts are staged;
//   4. under the lake lease, the parts are renamed into place and the batch commits, marking the
//      run's segments taken (a run without resolutions marks them after step 0).
// Until 4, readers ignore the index run (src/chain/resolve/signatures.ts: only runs of committed
// batches count). A run killed anywhere before 4 leaves a batch that never committed: the next run
// removes its parts and its index run (discardUncommittedBatches), and its attempts, still open in
// the checkpoint and the replay (checkpoint.ts), are resolved again. Nothing is recorded twice.

import { closeSync, mkdirSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Context } from "../../context";
import {
  commitResolutionBatch,
  forgetResolutionBatch,
  type IssueHour,
  markSegmentsTaken,
  type ProviderHour,
  recordResolutionBatch,
  uncommittedResolutionBatches,
} from "../../control";
import { sqlString } from "../../lake/duckdb";
import { utcDay } from "../../lake/paths";
import { publishStaged, removeBatchParts, stagePartitioned } from "../../lake/publish";
import { duckdbColumnsStruct, payerBucketSql, RESOLUTION_COLUMNS, storedSql } from "../../lake/schema";
import { sweepStaging } from "../../lake/staging";
import { fault } from "../../shared/fault";
import { yieldToEventLoop } from "../../shared/pause";
import { entryTime, openEntry, resolvedEntry } from "./signatures";
import type { Attempt, Resolution } from "./types";

const ROWS_PER_WRITE = 2_000;

// The rows' JSON carries the payer (not a resolution column) and the staging computes its bucket from it.
const readColumns = duckdbColumnsStruct([
  ...RESOLUTION_COLUMNS.filter((c) => c.name !== "payer_bucket"),
  { name: "program", type: "VARCHAR", doc: "" },
  { name: "payer", type: "VARCHAR", doc: "" },
]);
const stagedColumns = RESOLUTION_COLUMNS.map((c) =>
  c.name === "payer_bucket" ? `${payerBucketSql("payer")} AS payer_bucket` : `${storedSql(c, c.name)} AS ${c.name}`,
).join(", ");

/**
 * A resolution row as JSON for DuckDB's reader: columns without a value are left out (read as
 * NULL), a success's row is half the text. Copied without them rather than deleted from the row:
 * a delete turns an object into a slow dictionary (3.4–4.2 → 1.0–1.9 µs a row).
 */
function lakeRowJson(r: Resolution): string {
  const row = lakeRow(r) as Record<string, unknown>;
  const present: Record<string, unknown> = {};
  for (const key in row) {
    const value = row[key];
    if (value !== null) present[key] = value;
  }
  return JSON.stringify(present);
}

function lakeRow(r: Resolution) {
  const s = r.story;
  return {
    attempt_id: r.attempt.attemptId,
    account_id: r.attempt.accountId,
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
    ix_prefix: r.ixPrefix,
    sampled: r.sampled,
    sample_weight: r.sampleWeight,
    program: r.attempt.program,
    payer: r.attempt.payer,
  };
}

/**
 * What a run records: its resolutions, the open attempts the signature index does not hold yet, and the segments it
 * took in.
 */
export type RunRecord = { resolutions: Resolution[]; open: Attempt[]; segments: string[] };

/**
 * `recordingMs`: milliseconds added per phase of the recording (rows: the rows' JSON on this
 * thread; staging: DuckDB's Parquet parts; index: waiting for the signature index's runs after
 * that; publish: the lake lease, renames and the commit) — where a slow recording's time went.
 */
export async function recordRun(
  ctx: Context,
  { resolutions, open, segments }: RunRecord,
  now: number,
  options: { beforeCommit?: () => void; recordingMs?: Record<string, number>; newIssues?: { count: number } } = {},
): Promise<void> {
  let mark = performance.now();
  const phase = (name: string) => {
    const at = performance.now();
    if (options.recordingMs) options.recordingMs[name] = (options.recordingMs[name] ?? 0) + Math.round(at - mark);
    mark = at;
  };
  // Index runs are written on the index's own thread (src/signature-index) while this one goes on;
  // each is awaited before the commit that makes its entries count.
  const openWritten = ctx.signatures.append(
    open.filter((a) => a.sig !== null).map((a) => openEntry(a, now)),
    entryTime,
  );
  openWritten.catch(() => {}); // awaited below; a failure meanwhile is not unhandled
  if (resolutions.length === 0) {
    await openWritten;
    markSegmentsTaken(ctx.control, segments, now);
    return;
  }
  const batch = `r-${Bun.randomUUIDv7()}`;
  const input = join(ctx.paths.staging, `${batch}.ndjson`);
  try {
    // The batch is recorded with the partitions its parts will be in (program, UTC day of resolved_at)
    // before anything else exists: its index run, then its parts, are removed with it if it never commits.
    recordResolutionBatch(
      ctx.control,
      batch,
      [...new Set(resolutions.map((r) => `program=${r.attempt.program}/day=${utcDay(r.resolvedAt)}`))],
      now,
    );
    // The index run first: its thread sorts, compresses and syncs it while this one writes the rows.
    const indexed = ctx.signatures.append(
      resolutions.filter((r) => r.attempt.sig !== null).map(resolvedEntry),
      entryTime,
      batch,
    );
    indexed.catch(() => {}); // awaited below; a failure meanwhile is not unhandled
    mkdirSync(ctx.paths.staging, { recursive: true }); // absent in a restored data directory that never flushed
    // Written a few thousand rows at a time with pauses for the event loop (failures carry their logs).
    const file = openSync(input, "w");
    try {
      for (let i = 0; i < resolutions.length; i += ROWS_PER_WRITE) {
        if (i > 0) await yieldToEventLoop();
        writeSync(
          file,
          resolutions
            .slice(i, i + ROWS_PER_WRITE)
            .map((r) => `${lakeRowJson(r)}\n`)
            .join(""),
        );
      }
    } finally {
      closeSync(file);
    }
    phase("rows");
    const staged = stagePartitioned(
      ctx.duck,
      ctx.paths,
      batch,
      `SELECT ${stagedColumns}, program, strftime(make_timestamp(resolved_at * 1000), '%Y-%m-%d') AS day
       FROM read_json(${sqlString(input)}, format = 'newline_delimited', columns = ${readColumns})`,
      ["program", "day"],
    );
    const { staging, parts } = await staged;
    phase("staging");
    await openWritten;
    await indexed;
    phase("index");
    const { providers, issues } = hourlyCounts(resolutions);
    await publishStaged(
      ctx.control,
      ctx.paths,
      "resolutions",
      batch,
      parts,
      () => {
        const fresh = commitResolutionBatch(ctx.control, batch, providers, issues, { segments, at: now });
        if (options.newIssues) options.newIssues.count += fresh;
      },
      () => {
        fault("resolve:after-rename");
        options.beforeCommit?.();
      },
    );
    fault("resolve:after-commit");
    phase("publish");
    rmSync(staging, { recursive: true, force: true });
  } finally {
    try {
      unlinkSync(input);
    } catch {}
  }
}

/** Hourly sends and drops per provider and attempts per issue, by hour of send time (control migrations 4 and 9). */
function hourlyCounts(resolutions: Resolution[]): { providers: ProviderHour[]; issues: IssueHour[] } {
  const providers = new Map<string, ProviderHour>();
  const issues = new Map<string, IssueHour>();
  for (const r of resolutions) {
    const hour = Math.floor(r.attempt.sentAt / 3_600_000);
    if (r.fingerprint !== null) {
      const key = `${r.fingerprint}/${hour}`;
      const issue = issues.get(key) ?? { fingerprint: r.fingerprint, hour, attempts: 0, firstSeen: r.attempt.sentAt };
      issue.attempts++;
      issue.firstSeen = Math.min(issue.firstSeen, r.attempt.sentAt);
      issues.set(key, issue);
    }
    if (r.outcome === "preflight") continue;
    const key = `${r.attempt.rpcHash}/${hour}`;
    const counts = providers.get(key) ?? { rpcHash: r.attempt.rpcHash, hour, sends: 0, dropped: 0 };
    counts.sends++;
    if (r.outcome === "dropped") counts.dropped++;
    providers.set(key, counts);
  }
  return { providers: [...providers.values()], issues: [...issues.values()] };
}

/** Removes the parts and the signature index run of batches that were written but never committed. */
export function discardUncommittedBatches(ctx: Context): number {
  sweepStaging(ctx.paths, "resolve"); // staged batches of a killed run (their attempts are still open)
  const batches = uncommittedResolutionBatches(ctx.control);
  for (const { batch, partitionDirs } of batches) {
    removeBatchParts(ctx.paths, "resolutions", batch, partitionDirs);
    ctx.signatures.discardBatch(batch);
    forgetResolutionBatch(ctx.control, batch);
  }
  return batches.length;
}
