// Test support for the Landing Score: a context whose snapshots go to its own temp directory, a
// hand-built lake (only the columns the score reads, written as Hive-partitioned Parquet like the
// real lake) and an independent reading of the sample rule and the Wilson interval.

import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { syntheticAddress } from "../../devkit/generate";
import type { Context } from "../../src/context";
import { sqlString } from "../../src/lake/duckdb";
import { instantSql } from "../../src/lake/schema";
import { testContext } from "../helpers/context";

export type ScoreContext = Context & { dispose(): void; snapshotsDir: string; dir: string };

/** A test context at a fixed clock with TXRAY_SNAPSHOTS_DIR in a temp directory. */
export async function scoreContext(clock: number, env: Record<string, string> = {}): Promise<ScoreContext> {
  const snapshotsDir = mkdtempSync(join(tmpdir(), "txray-snapshots-"));
  const ctx = await testContext({ TXRAY_SNAPSHOTS_DIR: snapshotsDir, ...env });
  (ctx as { clock: () => number }).clock = () => clock;
  const dispose = ctx.dispose;
  return Object.assign(ctx, {
    snapshotsDir,
    dir: join(snapshotsDir, "landing-score"),
    dispose() {
      dispose();
      rmSync(snapshotsDir, { recursive: true, force: true });
    },
  });
}

export type Attempt = {
  attempt_id: string;
  account_id: string;
  program: string;
  received_at: number;
  rpc_label: string | null;
  kind: "send" | "preflight";
  /** null: still pending (no resolution row). */
  outcome: "landed" | "failed_onchain" | "dropped" | "preflight" | null;
  resolved_at?: number;
};

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Writes the attempts as envelope and resolution parts under ctx's lake. */
export async function writeLake(ctx: Context, attempts: Attempt[]): Promise<void> {
  const connection = await ctx.duck.connect();
  try {
    await connection.run(`CREATE OR REPLACE TEMP TABLE hand_envelopes (attempt_id VARCHAR, account_id VARCHAR, received_at BIGINT, rpc_label VARCHAR, kind VARCHAR, program VARCHAR, day VARCHAR);
      CREATE OR REPLACE TEMP TABLE hand_resolutions (attempt_id VARCHAR, account_id VARCHAR, outcome VARCHAR, resolved_at BIGINT, program VARCHAR, day VARCHAR)`);
    const envelopes = await connection.createAppender("hand_envelopes");
    const resolutions = await connection.createAppender("hand_resolutions");
    for (const a of attempts) {
      envelopes.appendVarchar(a.attempt_id);
      envelopes.appendVarchar(a.account_id);
      envelopes.appendBigInt(BigInt(a.received_at));
      if (a.rpc_label === null) envelopes.appendNull();
      else envelopes.appendVarchar(a.rpc_label);
      envelopes.appendVarchar(a.kind);
      envelopes.appendVarchar(a.program);
      envelopes.appendVarchar(day(a.received_at));
      envelopes.endRow();
      if (a.outcome !== null) {
        const resolvedAt = a.resolved_at ?? a.received_at + 5_000;
        resolutions.appendVarchar(a.attempt_id);
        resolutions.appendVarchar(a.account_id);
        resolutions.appendVarchar(a.outcome);
        resolutions.appendBigInt(BigInt(resolvedAt));
        resolutions.appendVarchar(a.program);
        resolutions.appendVarchar(day(resolvedAt));
        resolutions.endRow();
      }
    }
    envelopes.closeSync();
    resolutions.closeSync();
    const options =
      "FORMAT parquet, PARTITION_BY (program, day), OVERWRITE_OR_IGNORE, FILENAME_PATTERN 'part-hand-{i}'";
    await connection.run(
      `COPY (SELECT * REPLACE (${instantSql("received_at")} AS received_at) FROM hand_envelopes) TO ${sqlString(join(ctx.paths.lake, "envelopes"))} (${options})`,
    );
    await connection.run(
      `COPY (SELECT * REPLACE (${instantSql("resolved_at")} AS resolved_at) FROM hand_resolutions) TO ${sqlString(join(ctx.paths.lake, "resolutions"))} (${options})`,
    );
  } finally {
    connection.closeSync();
  }
}

/** The documented sample rule, restated: md5(attempt_id)'s first 64 bits < rate × 2^64. */
export function inSample(attemptId: string, rate: number): boolean {
  if (rate >= 1) return true;
  const h = BigInt(`0x${createHash("md5").update(attemptId).digest("hex").slice(0, 16)}`);
  // rate × 2^64 is a whole number for every rate ≥ 2^-12 (all the tests use).
  return h < BigInt(rate * 2 ** 64);
}

export const md5Hex = (text: string) => createHash("md5").update(text).digest("hex");

/** The 95% Wilson score interval, from the textbook formula (z = 1.959964). */
export function wilsonReference(k: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = k / n;
  const centre = p + (z * z) / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p) + (z * z) / (4 * n)) / n);
  const denominator = 1 + (z * z) / n;
  return [(centre - spread) / denominator, (centre + spread) / denominator];
}

export const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

/** A real-looking base58 program id for hand-built lakes. */
export const programId = (k: number) => syntheticAddress(99, `landing:${k}`);
