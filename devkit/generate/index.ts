// Synthetic volume generator: writes a realistic lake (envelopes, resolutions, deploys) straight to
// Hive-partitioned Parquet with DuckDB, for benchmarks, demos and tests. Rows come from
// generate/sql.ts (hash-based pseudo-randomness over range(n)), so 10M envelopes never exist as JS
// objects. Also records per-account program counts in the control database so /v1/programs and
// the deploy job see the programs.

import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { DEFAULT_SAMPLE_RATE } from "../../src/chain/resolve";
import { addProgramCounts, type ControlDb } from "../../src/control";
import { openDuck, sqlString } from "../../src/lake/duckdb";
import { dataPaths } from "../../src/lake/paths";
import { storedRowsSql } from "../../src/lake/schema";
import { type SyntheticDeploy, syntheticAddress, syntheticDeploys } from "./catalog";
import { attemptsViewSql, envelopesSelectSql, resolutionsSelectSql, type WorldParams, worldSetupSql } from "./sql";

export type GenerateOptions = {
  dataDir: string;
  envelopes: number;
  programs?: number;
  days?: number;
  seed?: number;
  /** The newest receive time in the lake (Unix ms); defaults to now, rounded down to the second. */
  endMs?: number;
  /** Account ids the envelopes belong to (each program is reported by two of them). */
  accounts?: string[];
  /** When given, per-account program counts are added to it. */
  control?: ControlDb;
  /** Replace an existing lake instead of refusing. */
  force?: boolean;
  /** DuckDB threads (default: all cores). */
  threads?: number;
  /**
   * Add envelopes (and their resolutions) to an existing lake of the same seed instead of writing a
   * new one: same programs, payers and accounts, fresh attempt ids and signatures (`variant`, ≥ 1,
   * one per append), no deploys. For "new data arrived" in tests and benchmarks.
   */
  append?: { variant: number };
  /**
   * Rows written per pass (default 2,000,000): a partitioned COPY holds open row groups for every
   * partition it writes, so a large lake in one pass needs gigabytes (~9 GB for 15M envelopes).
   * Each pass writes its own part per partition.
   */
  chunkRows?: number;
  /**
   * Share of landed successes written as decoded from their transaction (default: the resolver's, 1/32; 1: every one,
   * as in lake version 1).
   */
  successSampleRate?: number;
};

export type GenerateResult = {
  envelopes: number;
  resolutions: number;
  programs: string[];
  accounts: string[];
  deploys: SyntheticDeploy[];
  endMs: number;
  days: number;
  seconds: number;
};

export async function generateLake(options: GenerateOptions): Promise<GenerateResult> {
  const started = performance.now();
  const seed = options.seed ?? 1;
  const days = options.days ?? 30;
  const programCount = Math.max(1, options.programs ?? 20);
  const endMs = options.endMs ?? Math.floor(Date.now() / 1000) * 1000;
  const accounts =
    options.accounts && options.accounts.length > 0 ? options.accounts : ["acc_synthetic_a", "acc_synthetic_b"];
  const paths = dataPaths(options.dataDir);
  const variant = options.append?.variant ?? 0;
  if (options.append && (!Number.isInteger(variant) || variant < 1))
    throw new Error("append.variant must be an integer ≥ 1");
  for (const dataset of ["envelopes", "resolutions", "deploys"] as const) {
    const dir = paths.dataset(dataset);
    if (!options.append && existsSync(dir) && readdirSync(dir).length > 0) {
      if (!options.force) throw new Error(`${dir} is not empty (pass force to replace it)`);
      rmSync(dir, { recursive: true, force: true });
    }
    mkdirSync(dir, { recursive: true });
  }

  const programs = Array.from({ length: programCount }, (_, k) => syntheticAddress(seed, `program:${k}`));
  const deploys = syntheticDeploys(seed, programs, endMs, days);
  const regression = deploys.find((d) => d.regression)!;
  const humans = Math.max(200, Math.floor(options.envelopes / 200));
  const bots = Math.max(5, Math.floor(options.envelopes / 500_000));
  const world: WorldParams = {
    envelopes: options.envelopes,
    seed,
    endMs,
    days,
    humans,
    bots,
    programs: programCount,
    regressionAt: regression.deployedAt,
    variant,
    successSampleRate: options.successSampleRate ?? DEFAULT_SAMPLE_RATE,
  };

  const duck = await openDuck(":memory:", options.threads ? { threads: String(options.threads) } : {});
  const connection = await duck.connect();
  try {
    await connection.run(worldSetupSql(world));
    const programAppender = await connection.createAppender("gen_programs");
    programs.forEach((program, k) => {
      programAppender.appendInteger(k);
      programAppender.appendVarchar(program);
      programAppender.appendVarchar(accounts[k % accounts.length]);
      programAppender.appendVarchar(accounts[(k + 1) % accounts.length]);
      programAppender.endRow();
    });
    programAppender.closeSync();
    const payerAppender = await connection.createAppender("gen_payers");
    for (let k = 0; k < humans + bots; k++) {
      payerAppender.appendInteger(k);
      payerAppender.appendVarchar(syntheticAddress(seed, k < humans ? `human:${k}` : `bot:${k - humans}`));
      payerAppender.endRow();
    }
    payerAppender.closeSync();
    await connection.run(attemptsViewSql(world));

    const copyOptions = (prefix: string) =>
      `FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, PARTITION_BY (program, day), FILENAME_PATTERN '${prefix}-{i}', ROW_GROUP_SIZE 122880, OVERWRITE_OR_IGNORE`;
    const chunkRows = Math.max(1, options.chunkRows ?? 2_000_000);
    const chunks = Math.ceil(options.envelopes / chunkRows);
    for (let chunk = 0; chunk < chunks; chunk++) {
      // One chunk keeps the part names lakes were generated with before chunking.
      const prefix = `part-gen${seed}${variant === 0 ? "" : `v${variant}`}${chunks === 1 ? "" : `c${chunk}`}`;
      const rows = chunks === 1 ? "" : ` WHERE i >= ${chunk * chunkRows} AND i < ${(chunk + 1) * chunkRows}`;
      await connection.run(
        `COPY (${storedRowsSql("envelopes", `${envelopesSelectSql(world)}${rows}`)}) TO ${sqlString(paths.dataset("envelopes"))} (${copyOptions(prefix)})`,
      );
      await connection.run(
        `COPY (${storedRowsSql("resolutions", `${resolutionsSelectSql(world)}${rows}`)}) TO ${sqlString(paths.dataset("resolutions"))} (${copyOptions(prefix)})`,
      );
    }
    if (options.append) return await finish(connection, world, options, { programs, accounts, deploys: [], started });

    await connection.run(
      "CREATE TABLE gen_deploys (program VARCHAR, slot BIGINT, deployed_at BIGINT, detected_at BIGINT, authority VARCHAR)",
    );
    const deployAppender = await connection.createAppender("gen_deploys");
    for (const d of deploys) {
      deployAppender.appendVarchar(d.program);
      deployAppender.appendBigInt(BigInt(d.slot));
      deployAppender.appendBigInt(BigInt(d.deployedAt));
      deployAppender.appendBigInt(BigInt(d.detectedAt));
      if (d.authority === null) deployAppender.appendNull();
      else deployAppender.appendVarchar(d.authority);
      deployAppender.endRow();
    }
    deployAppender.closeSync();
    await connection.run(
      `COPY (${storedRowsSql("deploys", "SELECT *, strftime(make_timestamp(detected_at * 1000), '%Y-%m-%d') AS day FROM gen_deploys")}) TO ${sqlString(paths.dataset("deploys"))} (FORMAT parquet, PARTITION_BY (program, day), FILENAME_PATTERN 'part-gen${seed}-{i}', OVERWRITE_OR_IGNORE)`,
    );

    return await finish(connection, world, options, { programs, accounts, deploys, started });
  } finally {
    connection.closeSync();
    duck.close();
  }
}

/** Counts what was generated (and records per-account program counts in the control database when given). */
async function finish(
  connection: DuckDBConnection,
  world: WorldParams,
  options: GenerateOptions,
  made: { programs: string[]; accounts: string[]; deploys: SyntheticDeploy[]; started: number },
): Promise<GenerateResult> {
  const counts = (
    await connection.runAndReadAll(
      `SELECT account_id, program, count(*)::DOUBLE AS attempts, max(received_at)::DOUBLE AS last_seen,
              count(*) FILTER (WHERE NOT is_pending)::DOUBLE AS resolved
       FROM gen_attempts GROUP BY ALL`,
    )
  ).getRowObjectsJS();
  if (options.control) {
    addProgramCounts(
      options.control,
      counts.map((c) => ({
        accountId: String(c.account_id),
        program: String(c.program),
        attempts: Number(c.attempts),
        lastSeen: Number(c.last_seen),
      })),
    );
  }
  return {
    envelopes: options.envelopes,
    resolutions: counts.reduce((sum, c) => sum + Number(c.resolved), 0),
    programs: made.programs,
    accounts: made.accounts,
    deploys: made.deploys,
    endMs: world.endMs,
    days: world.days,
    seconds: (performance.now() - made.started) / 1000,
  };
}

export { syntheticAddress } from "./catalog";
export const generatedPartsDir = (dataDir: string) => join(dataDir, "lake");
