// A data directory every surface can answer from: a generated lake with built serving tables (as
// test/analytics does), resolved attempts in the signature index (a failure, a drop with evidence, a
// landing) and one still open, plus a recorded-mainnet RPC for signatures txray never ingested.
// Then a real txray app over it on loopback (Date.now clock, like a deployment), so HTTP routes,
// MCP (stdio child or /mcp) and Slack can be compared on the same data. The lake is generated once
// per test process, held in memory, and written into each world's own data directory.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateLake } from "../../devkit/generate";
import { buildServingTables } from "../../src/analytics/tables/build";
import { type AppDeps, createApp } from "../../src/api/app";
import { EMPTY_STORY } from "../../src/chain/decode/story";
import type { Attempt, IndexedAttempt, OpenEntry, ResolvedEntry } from "../../src/chain/resolve";
import { loadConfig } from "../../src/config";
import { type Context, createContext } from "../../src/context";
import { commitResolutionBatch, createAccountKey, recordResolutionBatch } from "../../src/control";
import { silentLogger } from "../../src/shared/logger";
import type { IndexEntry } from "../../src/signature-index";
import { Spool } from "../../src/spool/spool";
import { type DirectoryFiles, readDirectory, writeDirectory } from "./directory-files";
import { randomAddress, randomSignature } from "./envelopes";
import { recordedTransaction, startRecordedRpc } from "./recorded-rpc";

export const END_MS = 1_763_700_000_000;

export type AnswersWorld = {
  dataDir: string;
  env: Record<string, string>;
  program: string;
  otherProgram: string;
  wallet: string;
  /** The program's busiest issue. */
  fingerprint: string;
  keys: { a: string; b: string };
  sigs: { failed: string; dropped: string; landed: string; pending: string; chain: string; unknown: string };
  rpc: ReturnType<typeof startRecordedRpc>;
  dispose(): void;
};

/** The generated part of a world: its lake, built serving tables and keys, as the files of a data directory. */
type GeneratedLake = Pick<AnswersWorld, "program" | "otherProgram" | "wallet" | "fingerprint" | "keys"> & {
  files: DirectoryFiles;
  accountA: string;
};

const ENV_DEFAULTS = {
  TXRAY_SCHEDULER: "off",
  TXRAY_LOG_LEVEL: "silent",
  INGEST_WORKERS: "0",
  INGEST_NATIVE: "off",
  FLUSH_NATIVE: "off",
};

/**
 * Generating the lake and building its tables is most of a world's cost and the same every time (a
 * fixed seed), so a test process does it once per size and each world starts from a copy of it.
 */
const generatedLakes = new Map<number, Promise<GeneratedLake>>();

function generatedLake(envelopes: number): Promise<GeneratedLake> {
  let lake = generatedLakes.get(envelopes);
  if (!lake) {
    lake = generateWorldLake(envelopes);
    generatedLakes.set(envelopes, lake);
    // A failed generation is tried again by the next world rather than failing every later file.
    lake.catch(() => generatedLakes.delete(envelopes));
  }
  return lake;
}

async function generateWorldLake(envelopes: number): Promise<GeneratedLake> {
  const dataDir = mkdtempSync(join(tmpdir(), "txray-answers-lake-"));
  const ctx = await createContext(loadConfig({ ...ENV_DEFAULTS, TXRAY_DATA_DIR: dataDir }), {
    logger: silentLogger,
    clock: () => END_MS,
  });
  try {
    const described = await describeGeneratedLake(ctx, envelopes);
    ctx.close(); // the control database and serving tables complete on disk before they are read
    return { ...described, files: readDirectory(dataDir) };
  } catch (error) {
    ctx.close();
    throw error;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Generates the lake into the context's data directory and builds its tables: what a world needs to know of it. */
async function describeGeneratedLake(ctx: Context, envelopes: number): Promise<Omit<GeneratedLake, "files">> {
  const dataDir = ctx.config.dataDir;
  const a = createAccountKey(ctx.control, "team-a", "read", END_MS);
  const b = createAccountKey(ctx.control, "team-b", "read", END_MS);
  const generated = await generateLake({
    dataDir,
    envelopes,
    programs: 3,
    days: 30,
    seed: 11,
    endMs: END_MS,
    accounts: [a.record.accountId, b.record.accountId],
    control: ctx.control,
    threads: 2,
  });
  await buildServingTables(ctx);
  const program = generated.programs[0];
  const [{ payer: wallet }] = await ctx.duck.all<{ payer: string }>(
    `SELECT payer, count(*) AS n FROM read_parquet('${ctx.paths.lake}/envelopes/**/*.parquet', hive_partitioning = true) WHERE program = '${program}' GROUP BY payer ORDER BY n DESC, payer LIMIT 1`,
  );
  const [{ fingerprint }] = await ctx.duck.all<{ fingerprint: string }>(
    `SELECT fingerprint, count(*) AS n FROM read_parquet('${ctx.paths.lake}/resolutions/**/*.parquet', hive_partitioning = true) WHERE program = '${program}' AND fingerprint IS NOT NULL GROUP BY fingerprint ORDER BY n DESC, fingerprint LIMIT 1`,
  );
  return {
    program,
    otherProgram: generated.programs[1],
    wallet,
    fingerprint,
    keys: { a: a.key, b: b.key },
    accountA: a.record.accountId,
  };
}

export async function makeAnswersWorld(envelopes = 6_000): Promise<AnswersWorld> {
  const lake = await generatedLake(envelopes);
  const dataDir = mkdtempSync(join(tmpdir(), "txray-answers-"));
  writeDirectory(dataDir, lake.files);
  const chainTx = recordedTransaction("19_"); // a failed Jupiter route on mainnet
  const rpc = startRecordedRpc([chainTx]);
  const env = { TXRAY_DATA_DIR: dataDir, SOLANA_RPC_URL: rpc.url, ...ENV_DEFAULTS };
  const ctx = await createContext(loadConfig(env), { logger: silentLogger, clock: () => END_MS });
  const sigs = {
    failed: randomSignature(),
    dropped: randomSignature(),
    landed: randomSignature(),
    pending: randomSignature(),
    chain: chainTx.sig,
    unknown: randomSignature(),
  };
  try {
    await indexAttempts(ctx, lake.program, lake.wallet, lake.accountA, sigs);
  } finally {
    ctx.close();
  }
  return {
    dataDir,
    env,
    program: lake.program,
    otherProgram: lake.otherProgram,
    wallet: lake.wallet,
    fingerprint: lake.fingerprint,
    keys: lake.keys,
    sigs,
    rpc,
    dispose() {
      rpc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resolved attempts as the resolver records them in the signature index (a failure, a drop with evidence, a landing), and one still open. */
async function indexAttempts(
  ctx: Context,
  program: string,
  payer: string,
  accountId: string,
  sigs: AnswersWorld["sigs"],
) {
  const now = Date.now();
  const failedStory = {
    ...EMPTY_STORY,
    topLevelProgram: program,
    instruction: "Swap",
    ixPath: "1",
    cpiDepth: 0,
    errCode: 6001,
    errName: "SlippageToleranceExceeded",
    errMessage: "Slippage tolerance exceeded",
    failingProgram: program,
    cuUsed: 104_305,
    cuRequested: 146_000,
    errorKey: "custom:6001",
    txError: '{"InstructionError":[1,{"Custom":6001}]}',
  };
  const resolved: [
    string,
    Omit<ResolvedEntry, "attemptId" | "accountId" | "program" | "payer" | "rpcHash" | "sentAt" | "state" | "at">,
  ][] = [
    [
      sigs.failed,
      {
        rpcLabel: "helius",
        outcome: "failed_onchain",
        slot: 289_000_001,
        blockTime: now - 3_600_000,
        err: failedStory.txError,
        story: failedStory,
        drop: null,
        fingerprint: "v1:00000000000000aa",
      },
    ],
    [
      sigs.landed,
      {
        rpcLabel: "triton",
        outcome: "landed",
        slot: 289_000_002,
        blockTime: now - 3_500_000,
        err: null,
        story: { ...EMPTY_STORY, topLevelProgram: program, instruction: "Swap", cuRequested: 200_000 },
        drop: null,
        fingerprint: null,
      },
    ],
    [
      sigs.dropped,
      {
        rpcLabel: "public",
        outcome: "dropped",
        slot: null,
        blockTime: null,
        err: null,
        story: EMPTY_STORY,
        fingerprint: "v1:00000000000000bb",
        drop: {
          dropClass: "rpc_not_forwarding",
          confidence: 0.78,
          evidence: [
            {
              kind: "blockhash_expired",
              detail: "confirmed block height 1001 passed lastValidBlockHeight 1000",
              value: 1,
            },
            { kind: "provider_drop_rate", detail: "public dropped 30 of 60 sends within 15 min", value: 0.5 },
          ],
        },
      },
    ],
  ];
  const entries: IndexEntry[] = resolved.map(([sig, fields], i) => {
    const value: ResolvedEntry = {
      attemptId: `att-${i}`,
      accountId,
      program,
      payer,
      rpcHash: `${i}`.repeat(16),
      sentAt: now - 3_600_000 + i,
      state: "resolved",
      at: now - 3_000_000,
      ...fields,
    };
    return { sig, attemptId: value.attemptId, value };
  });
  const open: Attempt = {
    attemptId: "att-pending",
    accountId,
    program,
    sig: sigs.pending,
    kind: "send",
    lastValidBlockHeight: 1000,
    sentAt: now,
    receivedAt: now,
    rpcHash: "ffffffffffffffff",
    rpcLabel: "helius",
    payer,
    cuLimit: null,
    cuPriceMicroLamports: null,
    ixPrefix: null,
    nonce: false,
    preflightError: null,
    simulationLogs: null,
  };
  const pending: OpenEntry = {
    attemptId: open.attemptId,
    accountId,
    program,
    payer,
    rpcHash: open.rpcHash,
    rpcLabel: open.rpcLabel,
    sentAt: now,
    state: "open",
    at: now,
    attempt: open,
  };
  entries.push({ sig: sigs.pending, attemptId: open.attemptId, value: pending });
  await ctx.signatures.append(entries, (value) => (value as IndexedAttempt).at);
  // The hourly issue counts the resolver commits with its batch (why's count7d before the tables know an issue).
  recordResolutionBatch(ctx.control, "r-world", [], now);
  const issue = (i: number) => ({
    fingerprint: (entries[i].value as ResolvedEntry).fingerprint!,
    hour: Math.floor((now - 3_600_000 + i) / 3_600_000),
    attempts: 1,
    firstSeen: now - 3_600_000 + i,
  });
  commitResolutionBatch(ctx.control, "r-world", [], [issue(0), issue(2)]);
}

/** A real txray app over the world's data dir on a free loopback port (as server.ts starts it, without jobs). */
export async function serveWorld(world: AnswersWorld, env: Record<string, string> = {}, chat?: AppDeps["chat"]) {
  const ctx = await createContext(loadConfig({ ...world.env, API_HOST: "127.0.0.1", ...env }), {
    logger: silentLogger,
  });
  const spool = new Spool({
    dir: ctx.paths.spool(ctx.config.TXRAY_NODE_ID),
    nodeId: ctx.config.TXRAY_NODE_ID,
    sealAfterMs: 1000,
    maxSegmentBytes: 1 << 20,
    clock: ctx.clock,
    logger: ctx.logger,
  });
  spool.open();
  const app = createApp({ ctx, spool, chat });
  app.listen({ port: 0, hostname: "127.0.0.1" });
  const url = `http://127.0.0.1:${app.server!.port}`;
  return {
    ctx,
    app,
    url,
    async get(path: string, headers: Record<string, string> = {}) {
      const response = await fetch(url + path, { headers });
      return { status: response.status, headers: response.headers, body: (await response.json()) as any };
    },
    async stop() {
      await app.server!.stop(true);
      await spool.close();
      ctx.close();
    },
  };
}

export type WorldServer = Awaited<ReturnType<typeof serveWorld>>;
export { randomAddress };
