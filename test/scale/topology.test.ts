// The scale-out shape of docs/scaling.md, each node its own process (`bun run src/bin/server.ts`), one data
// directory, the control plane on a throwaway PostgreSQL cluster: two ingest nodes, one job runner,
// two read nodes. Concurrent clients ingest through both ingest nodes while the jobs run; a key
// revoked through the control plane fails on every node once the documented 2 s have passed; the job
// runner is killed (-9) in the middle of a flush and a second runner takes its leases and finishes.
// Afterwards every 202'd envelope is in the lake exactly once and both read nodes answer alike.
//
// Skipped (with the reason) where PostgreSQL's server binaries are missing; .ci/run installs them.

import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run as cli } from "../../src/cli/commands";
import { type ControlDb, createAccountKey, openControlDb } from "../../src/control";
import { openDuck } from "../../src/lake/duckdb";
import { dataPaths } from "../../src/lake/paths";
import { makeEnvelope, PROGRAMS } from "../helpers/envelopes";
import { POSTGRES_MISSING, type PostgresCluster, postgresBinaries, startPostgres } from "../helpers/postgres";
import { type ServerProcess, startServerProcess } from "../helpers/process";

const bin = postgresBinaries();
if (!bin) console.warn(`topology.test skipped: ${POSTGRES_MISSING}`);

/** PrincipalCache's lifetime (docs/api.md, docs/scaling.md): a revoked key may work this long on a node that just used it. */
const REVOCATION_MS = 2000;

const dataDir = mkdtempSync(join(tmpdir(), "txray-topology-"));
let cluster: PostgresCluster | null = null;
let control: ControlDb | null = null;
const processes: ServerProcess[] = [];
afterAll(async () => {
  for (const node of processes) node.process.kill("SIGKILL");
  await Promise.all(processes.map((node) => node.process.exited));
  control?.close();
  await cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test.skipIf(!bin)(
  "2 ingest + 1 job runner + 2 read nodes over one lake, control plane on PostgreSQL",
  async () => {
    cluster = await startPostgres(bin!);
    const url = await cluster.createDatabase("topology");
    control = openControlDb("/nonexistent/unused.sqlite", url);
    const { key } = createAccountKey(control, "acme", "live", Date.now());
    const doomed = createAccountKey(control, "acme", "live", Date.now());

    const base = {
      TXRAY_DATA_DIR: dataDir,
      TXRAY_CONTROL_URL: url,
      SOLANA_RPC_URL: "http://127.0.0.1:9", // no chain here: resolve finds nothing to do it can finish
      RESOLVE_INTERVAL_MS: "3600000",
      DEPLOYS_INTERVAL_MS: "3600000",
      COMPACT_INTERVAL_MS: "3600000",
      FLUSH_INTERVAL_MS: "200",
      TABLES_INTERVAL_MS: "1500",
      SPOOL_SEAL_MS: "100",
      INGEST_WORKERS: "1",
      TXRAY_LOG_LEVEL: "warn",
      TXRAY_RETENTION_DAYS: "off", // makeEnvelope dates envelopes 2025-11: the runner's retention must keep them
    };
    const start = async (roles: string, nodeId: string, extra: Record<string, string> = {}) => {
      const node = await startServerProcess({
        ...base,
        TXRAY_ROLES: roles,
        TXRAY_NODE_ID: nodeId,
        TXRAY_LOG_LEVEL: "info",
        ...extra,
      });
      processes.push(node);
      return node;
    };
    const [ingest1, ingest2, runner, read1, read2] = await Promise.all([
      start("ingest", "ingest-1"),
      start("ingest", "ingest-2"),
      start("jobs", "jobs-1", { TXRAY_SCHEDULER: "on" }),
      start("read", "read-1"),
      start("read", "read-2"),
    ]);
    const ingestNodes = [ingest1, ingest2];

    const post = (node: ServerProcess, apiKey: string, envelopes: unknown[]) =>
      fetch(`${node.url}/v1/ingest`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiKey, envelopes }),
      });

    // Concurrent clients through both ingest nodes, while the job runner flushes and builds tables.
    const programs = [PROGRAMS.jupiter, PROGRAMS.token, PROGRAMS.system];
    const acknowledged: string[] = [];
    let batches = 0;
    let stop = false;
    const client = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const envelopes = Array.from({ length: 50 }, (_, j) => makeEnvelope({ program: programs[(i + j) % 3] }));
        const response = await post(ingestNodes[(n + i) % 2], key, envelopes);
        if (response.status === 202) {
          acknowledged.push(...envelopes.map((e) => e.sig!));
          batches++;
        } else await response.body?.cancel();
      }
    };
    const clients = Array.from({ length: 4 }, (_, n) => client(n));

    // Kill the job runner in the middle of a flush run: it holds the flush lease and its run has not
    // ended. The run may end between the test's look and the kill's arrival; then the kill did not
    // land in a flush, and a fresh runner is killed the same way (the dead one's leases free at once).
    const unfinishedFlushes = () =>
      control!
        .query<{ n: number }>("SELECT count(*) AS n FROM job_runs WHERE job = 'flush' AND finished_at IS NULL")
        .get()!.n;
    let victim = runner;
    let killedDuringFlush = false;
    for (let attempt = 1; attempt <= 5 && !killedDuringFlush; attempt++) {
      if (attempt > 1) victim = await start("jobs", `jobs-1-${attempt}`, { TXRAY_SCHEDULER: "on" });
      const victimPid = victim.process.pid;
      let killed = false;
      for (const deadline = Date.now() + 60_000; !killed && Date.now() < deadline; ) {
        const leases = control
          .query<{ key: string; value: string }>(
            "SELECT key, value FROM meta WHERE key IN ('lease:job:flush', 'lease:lake')",
          )
          .all();
        const held = leases.some((lease) => JSON.parse(lease.value).pid === victimPid);
        if (held && batches >= 20 && unfinishedFlushes() > 0) {
          victim.process.kill("SIGKILL");
          killed = true;
        } else await Bun.sleep(2);
      }
      if (!killed) break; // never caught in a flush within a minute: fails below
      await victim.process.exited;
      killedDuringFlush = unfinishedFlushes() === 1; // the killed run never ended
    }
    expect(killedDuringFlush).toBe(true);
    const runner2 = await start("jobs", "jobs-2", { TXRAY_SCHEDULER: "on" });

    // A key revoked through the control plane (the CLI, as an operator would) fails on every node.
    for (const node of ingestNodes) {
      const envelope = makeEnvelope();
      expect((await post(node, doomed.key, [envelope])).status).toBe(202); // each node's cache now holds the key
      acknowledged.push(envelope.sig!);
    }
    for (const node of [read1, read2])
      expect((await fetch(`${node.url}/v1/programs`, { headers: { "x-api-key": doomed.key } })).status).toBe(200);
    let out = "";
    const revoked = await cli(["keys", "revoke", doomed.record.id], {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
      env: { TXRAY_DATA_DIR: dataDir, TXRAY_CONTROL_URL: url },
    });
    expect(revoked).toBe(0);
    await Bun.sleep(REVOCATION_MS + 200);
    for (const node of ingestNodes) {
      const response = await post(node, doomed.key, [makeEnvelope()]);
      expect(response.status).toBe(401);
    }
    for (const node of [read1, read2])
      expect((await fetch(`${node.url}/v1/programs`, { headers: { "x-api-key": doomed.key } })).status).toBe(401);

    // More traffic for the second runner, then stop the clients and the ingest nodes (which seal what they hold).
    const target = batches + 20;
    while (batches < target) await Bun.sleep(50);
    stop = true;
    await Promise.all(clients);
    for (const node of ingestNodes) node.process.kill("SIGTERM");
    await Promise.all(ingestNodes.map((node) => node.process.exited));

    // The second runner flushes everything (including what the killed one left half done)…
    const spoolRoot = dataPaths(dataDir).spoolRoot;
    const pendingSegments = () =>
      readdirSync(spoolRoot).flatMap((node) =>
        existsSync(join(spoolRoot, node))
          ? readdirSync(join(spoolRoot, node)).filter((f) => f.endsWith(".sealed") || f.endsWith(".active"))
          : [],
      );
    for (const deadline = Date.now() + 120_000; pendingSegments().length > 0 && Date.now() < deadline; )
      await Bun.sleep(100);
    if (pendingSegments().length > 0) console.error(`second job runner's log:\n${runner2.stderr()}`);
    expect(pendingSegments()).toEqual([]);
    // …and then builds the tables once more over the complete lake.
    const flushedAt = Date.now();
    const tablesSince = () =>
      control!
        .query<{ n: number }, [number]>(
          "SELECT count(*) AS n FROM job_runs WHERE job = 'tables' AND ok = 1 AND started_at > ?",
        )
        .get(flushedAt)!.n;
    for (const deadline = Date.now() + 60_000; tablesSince() === 0 && Date.now() < deadline; ) await Bun.sleep(100);
    expect(tablesSince()).toBeGreaterThan(0);
    runner2.process.kill("SIGTERM");
    await runner2.process.exited;

    // Every acknowledged envelope is in the lake exactly once.
    const duck = await openDuck();
    const rows = await duck.all<{ sig: string; n: number }>(
      `SELECT sig, count(*) AS n FROM read_parquet('${dataPaths(dataDir).datasetGlob("envelopes")}', hive_partitioning = true) GROUP BY sig`,
    );
    duck.close();
    const inLake = new Map(rows.map((row) => [row.sig, row.n]));
    expect(acknowledged.length).toBeGreaterThanOrEqual(40 * 50);
    expect(acknowledged.filter((sig) => !inLake.has(sig))).toEqual([]);
    expect(rows.filter((row) => row.n > 1)).toEqual([]);
    expect(rows.length).toBe(acknowledged.length);
    const lakeSegments = control.query<{ n: number }>("SELECT sum(rows) AS n FROM lake_segments").get()!.n;
    expect(lakeSegments).toBe(rows.length);

    // Both read nodes give the same answers (after each saw the last serving version).
    await Bun.sleep(600);
    const answers = async (node: ServerProcess) => {
      const out: Record<string, unknown> = {};
      for (const program of programs) {
        for (const route of ["baseline", "top-issues", "cu-headroom", "provider-report"]) {
          const response = await fetch(`${node.url}/v1/${route}/${program}`);
          out[`${route}/${program}`] = { status: response.status, body: await response.json() };
        }
      }
      out.programs = await (await fetch(`${node.url}/v1/programs`, { headers: { "x-api-key": key } })).json();
      return out;
    };
    const [a1, a2] = [await answers(read1), await answers(read2)];
    expect(a1).toEqual(a2);
    expect((a1[`baseline/${PROGRAMS.jupiter}`] as { status: number }).status).toBe(200);
    const listed = (a1.programs as { items: { program: string; attempts: number }[] }).items;
    expect(listed.reduce((sum, item) => sum + item.attempts, 0)).toBe(rows.length);
  },
  360_000,
);
