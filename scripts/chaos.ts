// `bun run chaos [--kills N] [--seed S]`: crash safety under SIGKILL at many moments.
//
// A LiteSVM local chain (devkit/localnet) carries real traffic (landed, failed on chain,
// preflight, dropped) so resolve does real work. Then, again and again, txray is started on one
// data directory and killed with SIGKILL:
//   - the server (ingest + scheduler, every job in-process) under concurrent ingest, either at a
//     random moment (mid-request, mid-group-commit) or frozen at a named moment by
//     TXRAY_FAULT_POINT=<moment>:pause (src/shared/fault.ts: mid-group-commit, mid-seal, mid-flush,
//     mid-resolve, mid-compaction, mid-tables-build, mid-tables-swap) and killed there;
//   - separately the job runner (`txray jobs run <name>`, the server running ingest only
//     alongside) frozen at a named moment of its job and killed there.
// After each kill the serving tables are checked (the pointer names a complete version a reader
// opens). At the end txray recovers (restart, flush, resolve, tables) and the invariants are
// checked: every 202'd envelope is in the lake exactly once, every resolved attempt has exactly one
// resolution row and one resolved entry in the signature index (why), every flushed attempt the
// resolver took in is either open (its checkpoint and the replay, as a restarting process holds
// them) or resolved, never both, never neither, and no serving table is torn. Progress goes to stderr; the last line on
// stdout is the JSON summary { kills, lost, duplicated, tornTables, ... }. Loopback only; everything lives in a temp
// dir.

import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { type Subprocess, spawn } from "bun";
import { mulberry32, startLocalnet } from "../devkit/localnet";
import { runTraffic } from "../devkit/simulate";
import { everyIndexedAttempt, openAttemptIds } from "../src/chain/resolve";
import { loadConfig } from "../src/config";
import { createContext } from "../src/context";
import { createAccountKey, openControlDb } from "../src/control";
import { jobByName } from "../src/jobs/registry";
import { runJob } from "../src/jobs/scheduler";
import { dataPaths } from "../src/lake/paths";
import { encodeBase58 } from "../src/shared/base58";
import type { Envelope } from "../src/shared/envelope";
import type { FaultPoint } from "../src/shared/fault";
import { silentLogger } from "../src/shared/logger";
import { processTree } from "./process-tree";

export type Scenario =
  | { target: "server"; point: FaultPoint | null }
  | { target: "runner"; job: "flush" | "resolve" | "compact" | "tables"; point: FaultPoint };

/** Every moment, in the order one round visits them. */
export const SCENARIOS: Scenario[] = [
  { target: "server", point: null },
  { target: "server", point: "spool:after-write" },
  { target: "server", point: "spool:after-sync" },
  { target: "server", point: null },
  { target: "server", point: "spool:seal" },
  { target: "server", point: "flush:after-stage" },
  { target: "server", point: "flush:after-rename" },
  { target: "server", point: "flush:after-commit" },
  { target: "server", point: null },
  { target: "server", point: "resolve:after-read" },
  { target: "server", point: "resolve:after-rename" },
  { target: "server", point: "resolve:after-commit" },
  { target: "server", point: "compact:after-merge" },
  { target: "server", point: "compact:after-swap" },
  { target: "server", point: "tables:mid-build" },
  { target: "server", point: "tables:after-build" },
  { target: "server", point: "tables:after-pointer" },
  { target: "runner", job: "flush", point: "flush:after-stage" },
  { target: "runner", job: "flush", point: "flush:after-rename" },
  { target: "runner", job: "flush", point: "flush:after-commit" },
  { target: "runner", job: "resolve", point: "resolve:after-read" },
  { target: "runner", job: "resolve", point: "resolve:after-rename" },
  { target: "runner", job: "resolve", point: "resolve:after-commit" },
  { target: "runner", job: "compact", point: "compact:after-merge" },
  { target: "runner", job: "compact", point: "compact:after-swap" },
  { target: "runner", job: "tables", point: "tables:mid-build" },
  { target: "runner", job: "tables", point: "tables:after-build" },
  { target: "runner", job: "tables", point: "tables:after-pointer" },
];

export type ChaosOptions = {
  kills: number;
  seed?: number;
  /** Real transactions on the local chain whose envelopes are part of the load. */
  realAttempts?: number;
  scenarios?: Scenario[];
  log?: (line: string) => void;
};

export type ChaosResult = {
  kills: number;
  lost: number;
  duplicated: number;
  tornTables: number;
  lostResolutions: number;
  duplicatedResolutions: number;
  orphanResolutions: number;
  intakeMismatches: number;
  acknowledged: number;
  lakeRows: number;
  resolutions: number;
  moments: Record<string, number>;
  missed: number;
  unexpectedExits: number;
  seconds: number;
};

const ROOT = new URL("..", import.meta.url).pathname;

class Child {
  output = "";
  private listeners: (() => void)[] = [];
  constructor(readonly process: Subprocess<"ignore", "pipe" | "ignore", "pipe">) {
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of process.stderr as ReadableStream<Uint8Array>) {
        this.output += decoder.decode(chunk);
        for (const listener of this.listeners.splice(0)) listener();
      }
      for (const listener of this.listeners.splice(0)) listener();
    })();
  }
  get alive() {
    return this.process.exitCode === null && this.process.signalCode === null;
  }
  /** Resolves the first match of `pattern` in stderr, or null when the process ends or time runs out. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(this.output);
      if (match) return match;
      if (!this.alive || Date.now() > deadline) return null;
      await Promise.race([
        new Promise<void>((resolve) => this.listeners.push(resolve)),
        Bun.sleep(Math.min(250, deadline - Date.now())),
        this.process.exited,
      ]);
    }
  }
  /**
   * SIGKILL to the process and its children (the server's tables process), as a crash of the machine or its service
   * would.
   */
  async kill(): Promise<boolean> {
    const wasAlive = this.alive;
    for (const pid of processTree(this.process.pid).reverse()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {} // ended meanwhile
    }
    await this.process.exited;
    return wasAlive;
  }
  async terminate(timeoutMs = 15_000): Promise<void> {
    this.process.kill("SIGTERM");
    const done = await Promise.race([this.process.exited.then(() => true), Bun.sleep(timeoutMs).then(() => false)]);
    if (!done) await this.kill();
  }
}

function startChild(args: string[], env: Record<string, string>): Child {
  return new Child(
    spawn(args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    }) as never,
  );
}

/**
 * A synthetic envelope: a signature nobody sent (resolves as dropped: long expired, its first look-up decides it) or a
 * preflight failure (decoded from its own logs).
 */
/**
 * How long a round waits for its armed moment. The tables and compaction jobs run in child processes
 * at a lower CPU priority: on a busy two-core machine (the test suite's two workers beside a soak)
 * their next pass through a moment can take tens of seconds, and a round that gives up kills at
 * random instead.
 */
const MOMENT_WAIT_MS = 45_000;

function syntheticEnvelope(random: () => number, program: string): Envelope {
  const sig = encodeBase58(randomBytes(64));
  const base: Envelope = {
    sig,
    program,
    blockhash: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
    lastValidBlockHeight: 1,
    sentAt: Date.now() - 60_000,
    rpcHash: "c0ffee00c0ffee00",
    rpcLabel: "chaos",
    walletAdapter: "Phantom",
    kind: "send",
    preflightError: null,
    simulationLogs: [],
    payer: encodeBase58(randomBytes(32)),
    sdkVersion: "0.1.0",
  };
  if (random() < 0.3) {
    return {
      ...base,
      kind: "preflight",
      preflightError: "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1",
      simulationLogs: [`Program ${program} invoke [1]`, `Program ${program} failed: custom program error: 0x1`],
    };
  }
  return base;
}

/** Clients ingesting batches of 10 until stopped; each envelope is sent once. */
function startLoad(url: string, key: string, next: () => Envelope, acknowledged: Set<string>, clients = 3) {
  let stop = false;
  const client = async () => {
    while (!stop) {
      const envelopes = Array.from({ length: 10 }, next);
      try {
        const response = await fetch(`${url}/v1/ingest`, {
          method: "POST",
          body: JSON.stringify({ apiKey: key, envelopes }),
          signal: AbortSignal.timeout(20_000),
        });
        if (response.status === 202) for (const e of envelopes) acknowledged.add(e.sig!);
        await Bun.sleep(100); // a steady trickle (~300 envelopes/s over 3 clients): resolve keeps up, so every job passes its moments often
      } catch {
        await Bun.sleep(20); // the server is frozen or gone: nothing was accepted
      }
    }
  };
  const running = Array.from({ length: clients }, client);
  return async () => {
    stop = true;
    await Promise.all(running);
  };
}

/** "ok", "none" (no build yet) or why the current serving version is not a complete one. */
export async function servingState(dataDir: string): Promise<string> {
  const tables = dataPaths(dataDir).tables;
  const pointerFile = join(tables, "current.json");
  if (!existsSync(pointerFile)) return "none";
  let pointer: { version: number; file: string };
  try {
    pointer = JSON.parse(readFileSync(pointerFile, "utf8"));
  } catch (error) {
    return `pointer unreadable: ${error}`;
  }
  const file = join(tables, pointer.file);
  if (!existsSync(file)) return `pointer names a missing file ${pointer.file}`;
  if (!existsSync(join(tables, `serving-${pointer.version}.answers`)))
    return `version ${pointer.version} has no answers file`;
  try {
    const instance = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" });
    const connection = await instance.connect();
    try {
      const meta = (await connection.runAndReadAll("SELECT value FROM meta WHERE key = 'version'")).getRowObjectsJS();
      if (String(meta[0]?.value) !== String(pointer.version))
        return `meta version ${meta[0]?.value} ≠ pointer ${pointer.version}`;
      for (const table of ["rates", "issues", "providers", "cu_instructions", "payer_scores", "release_rates"])
        await connection.runAndReadAll(`SELECT count(*) FROM ${table}`);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  } catch (error) {
    return `serving file unreadable: ${error instanceof Error ? error.message : error}`;
  }
  return "ok";
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const started = performance.now();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const random = mulberry32(options.seed ?? 1);
  const scenarios = options.scenarios ?? SCENARIOS;
  const dataDir = mkdtempSync(join(tmpdir(), "txray-chaos-"));
  const chain = await startLocalnet({ blockTimeMs: 0 });
  const result: ChaosResult = {
    kills: 0,
    lost: 0,
    duplicated: 0,
    tornTables: 0,
    lostResolutions: 0,
    duplicatedResolutions: 0,
    orphanResolutions: 0,
    intakeMismatches: 0,
    acknowledged: 0,
    lakeRows: 0,
    resolutions: 0,
    moments: {},
    missed: 0,
    unexpectedExits: 0,
    seconds: 0,
  };
  try {
    log(`chaos: data ${dataDir}, local chain ${chain.url}`);
    const traffic = await runTraffic({
      rpcUrl: chain.url,
      attempts: options.realAttempts ?? 120,
      seed: options.seed ?? 1,
      blocksPerAttempt: 1,
      payers: 20,
    });
    const realPool = traffic.attempts.map((a) => a.envelope as Envelope).filter((e) => e.sig !== null);
    const program = realPool[0]?.program ?? "11111111111111111111111111111111";
    log(`chaos: ${realPool.length} real envelopes from the local chain`);
    const next = () => realPool.shift() ?? syntheticEnvelope(random, program);

    const control = openControlDb(dataPaths(dataDir).controlDb);
    const { key } = createAccountKey(control, "chaos", "live", Date.now());
    control.close();
    const acknowledged = new Set<string>();
    const env = {
      TXRAY_DATA_DIR: dataDir,
      API_HOST: "127.0.0.1",
      API_PORT: "0",
      SOLANA_RPC_URL: chain.url,
      TXRAY_LOG_LEVEL: "info",
      INGEST_WORKERS: "1",
      INGEST_BURST: "100000000",
      INGEST_RATE_PER_SECOND: "100000000",
      SPOOL_SEAL_MS: "150",
      FLUSH_INTERVAL_MS: "150",
      RESOLVE_INTERVAL_MS: "250",
      COMPACT_INTERVAL_MS: "400",
      TABLES_INTERVAL_MS: "500",
      DEPLOYS_INTERVAL_MS: "3600000",
      SHUTDOWN_TIMEOUT_MS: "5000",
    };
    const startServer = async (extra: Record<string, string>) => {
      const server = startChild(["bun", "run", "src/bin/server.ts"], { ...env, ...extra });
      const listening = await server.waitFor(/"message":"txray listening","url":"([^"]+)"/, 30_000);
      if (!listening) throw new Error(`server did not start:\n${server.output.slice(-2000)}`);
      return { server, url: listening[1] };
    };
    const afterKill = async (moment: string) => {
      result.kills++;
      result.moments[moment] = (result.moments[moment] ?? 0) + 1;
      const state = await servingState(dataDir);
      if (state !== "ok" && state !== "none") {
        result.tornTables++;
        log(`chaos: TORN serving tables after a kill at ${moment}: ${state}`);
      }
    };

    for (let round = 0; result.kills < options.kills; round++) {
      const scenario = scenarios[round % scenarios.length];
      // Which time the moment is reached: a server's scheduler passes each moment again and again; a
      // runner's single run passes most of them once (a tables build passes mid-build 25 times or more).
      const nth =
        1 + Math.floor(random() * (scenario.point === "tables:mid-build" ? 25 : scenario.target === "server" ? 3 : 1));
      const armed = scenario.point ? `${scenario.point}:pause@${nth}` : null;
      if (scenario.target === "server") {
        const { server, url } = await startServer({
          TXRAY_SCHEDULER: "on",
          ...(armed ? { TXRAY_FAULT_POINT: armed } : {}),
        });
        const stopLoad = startLoad(url, key, next, acknowledged);
        let moment: string;
        if (armed) {
          const reached = await server.waitFor(/"message":"fault point reached"/, MOMENT_WAIT_MS);
          moment = reached ? `server ${scenario.point}` : `server random (${scenario.point} not reached)`;
        } else {
          await Bun.sleep(150 + Math.floor(random() * 900));
          moment = "server random (mid-request)";
        }
        if (!server.alive) {
          result.unexpectedExits++;
          log(`chaos: the server exited by itself:\n${server.output.slice(-1500)}`);
        }
        if (await server.kill()) await afterKill(moment);
        await stopLoad();
      } else {
        const { server, url } = await startServer({ TXRAY_SCHEDULER: "off" });
        const stopLoad = startLoad(url, key, next, acknowledged);
        await Bun.sleep(200);
        const runner = startChild(["bun", "run", "src/bin/cli.ts", "jobs", "run", scenario.job], {
          ...env,
          TXRAY_FAULT_POINT: armed!,
        });
        const reached = await runner.waitFor(/"message":"fault point reached"/, MOMENT_WAIT_MS);
        if (reached && (await runner.kill())) await afterKill(`runner ${scenario.job} ${scenario.point}`);
        else {
          await runner.kill();
          result.missed++; // the job ended without reaching the moment (nothing to do)
          log(
            `chaos: runner ${scenario.job} did not reach ${armed}: ${runner.output.trim().split("\n").slice(-2).join(" | ").slice(0, 600)}`,
          );
        }
        await stopLoad();
        await server.terminate();
      }
      log(
        `chaos: round ${round + 1} (${scenario.target} ${"job" in scenario ? `${scenario.job} ` : ""}${armed ?? "random"}): ${result.kills} kills, ${acknowledged.size} acknowledged, ${Math.round((performance.now() - started) / 1000)} s`,
      );
    }

    // Recovery: a clean start and stop (seals what the last process left), then every job until done.
    const { server } = await startServer({ TXRAY_SCHEDULER: "off" });
    await server.terminate();
    const ctx = await createContext(loadConfig({ ...env, TXRAY_LOG_LEVEL: "silent" }), { logger: silentLogger });
    try {
      for (const name of ["flush", "resolve", "resolve", "compact", "tables"]) {
        const outcome = await runJob(ctx, jobByName(name)!);
        if (!outcome.ok) log(`chaos: recovery ${name} failed: ${outcome.error}`);
      }
      const glob = (dataset: "envelopes" | "resolutions") => ctx.paths.datasetGlob(dataset);
      const lake = await ctx.duck.all<{ sig: string; n: number }>(
        `SELECT sig, count(*)::INTEGER AS n FROM read_parquet('${glob("envelopes")}', hive_partitioning = true) GROUP BY sig`,
      );
      const inLake = new Map(lake.map((row) => [row.sig, Number(row.n)]));
      result.acknowledged = acknowledged.size;
      result.lakeRows = lake.reduce((sum, row) => sum + Number(row.n), 0);
      result.lost = [...acknowledged].filter((sig) => !inLake.has(sig)).length;
      result.duplicated = lake.filter((row) => Number(row.n) > 1).length;

      const resolutions = existsSync(ctx.paths.dataset("resolutions"))
        ? await ctx.duck.all<{ attempt_id: string; n: number; sig: string | null }>(
            // Resolutions hold no signature since lake version 3: it is the envelope's.
            `SELECT r.attempt_id, count(*)::INTEGER AS n, any_value(e.sig) AS sig FROM read_parquet('${glob("resolutions")}', hive_partitioning = true) r
             LEFT JOIN (SELECT attempt_id, sig FROM read_parquet('${glob("envelopes")}', hive_partitioning = true)) e USING (attempt_id) GROUP BY r.attempt_id`,
          )
        : [];
      const resolvedInLake = new Map(resolutions.map((row) => [row.attempt_id, Number(row.n)]));
      // Resolved entries of the signature index (what why answers from), and the resolver's open attempts as a
      // restarted process holds them.
      const indexed = new Set<string>();
      for (const entry of everyIndexedAttempt(ctx.signatures, ctx.control))
        if (entry.state === "resolved") indexed.add(entry.attemptId);
      const pending = await openAttemptIds(ctx);
      result.resolutions = resolutions.length;
      result.duplicatedResolutions = resolutions.filter((row) => Number(row.n) > 1).length;
      result.lostResolutions = [...indexed].filter((id) => !resolvedInLake.has(id)).length;
      // (An attempt without a signature, a preflight failure before signing, cannot be looked up by one: it has no
      // index entry.)
      result.orphanResolutions = resolutions.filter((row) => row.sig !== null && !indexed.has(row.attempt_id)).length;
      // Every attempt of a segment the resolver has taken in is pending or resolved, never both, never neither
      // (segments not yet taken in, at most 200 per run, are still waiting: their attempts are in neither).
      const taken = new Set(
        ctx.control
          .query<{ segment: string }, []>("SELECT segment FROM lake_segments WHERE intake_at IS NOT NULL")
          .all()
          .map((r) => r.segment),
      );
      const attempts = await ctx.duck.all<{ attempt_id: string; spool_segment: string }>(
        `SELECT attempt_id, spool_segment FROM read_parquet('${glob("envelopes")}', hive_partitioning = true)`,
      );
      result.intakeMismatches = attempts.filter(
        (a) =>
          (indexed.has(a.attempt_id) && pending.has(a.attempt_id)) ||
          (taken.has(a.spool_segment) && !indexed.has(a.attempt_id) && !pending.has(a.attempt_id)),
      ).length;
    } finally {
      ctx.close();
    }
    const finalState = await servingState(dataDir);
    if (finalState !== "ok") {
      result.tornTables++;
      log(`chaos: serving tables after recovery: ${finalState}`);
    }
  } finally {
    await chain.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  result.seconds = Math.round((performance.now() - started) / 100) / 10;
  return result;
}

if (import.meta.main) {
  const argument = (name: string, fallback: number) => {
    const index = process.argv.indexOf(`--${name}`);
    const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
    if (!Number.isInteger(value) || value < 1) {
      console.error(`usage: bun run chaos [--kills N] [--seed S]   (--${name} must be a positive integer)`);
      process.exit(2);
    }
    return value;
  };
  const result = await runChaos({ kills: argument("kills", 200), seed: argument("seed", 1) });
  console.log(JSON.stringify(result));
  process.exit(
    result.lost +
      result.duplicated +
      result.tornTables +
      result.duplicatedResolutions +
      result.lostResolutions +
      result.orphanResolutions +
      result.intakeMismatches ===
      0
      ? 0
      : 1,
  );
}
