// docs/architecture.md, "Durability": a kill -9 of the server while clients ingest loses no acknowledged envelope and
// duplicates none. A real child process, real concurrent HTTP clients, a real SIGKILL.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { createContext } from "../../src/context";
import { createAccountKey, openControlDb } from "../../src/control";
import { flushSpool } from "../../src/lake/flush-spool";
import { dataPaths } from "../../src/lake/paths";
import { silentLogger } from "../../src/shared/logger";
import { makeEnvelope } from "../helpers/envelopes";
import { startServerProcess } from "../helpers/process";

const dataDir = mkdtempSync(join(tmpdir(), "txray-kill-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test("kill -9 during concurrent ingest: every 202'd envelope is in the lake exactly once", async () => {
  const control = openControlDb(dataPaths(dataDir).controlDb);
  const { key } = createAccountKey(control, "acme", "live", Date.now());
  control.close();
  const env = { TXRAY_DATA_DIR: dataDir, INGEST_BURST: "100000000", INGEST_RATE_PER_SECOND: "100000000" };

  const first = await startServerProcess(env);
  const acknowledged: string[] = [];
  let sent = 0;
  let stop = false;
  const client = async () => {
    while (!stop) {
      const envelopes = Array.from({ length: 20 }, () => makeEnvelope());
      sent += envelopes.length;
      try {
        const response = await fetch(`${first.url}/v1/ingest`, {
          method: "POST",
          body: JSON.stringify({ apiKey: key, envelopes }),
        });
        if (response.status === 202) acknowledged.push(...envelopes.map((e) => e.sig!));
      } catch {
        return; // the server is gone
      }
    }
  };
  const clients = Array.from({ length: 8 }, client);
  await Bun.sleep(700);
  first.process.kill("SIGKILL");
  stop = true;
  await Promise.all(clients);
  await first.process.exited;
  expect(acknowledged.length).toBeGreaterThan(200);

  // Restart on the same data directory (it recovers and seals the dead process's segment), stop it
  // gracefully, then flush everything into the lake.
  const second = await startServerProcess(env);
  second.process.kill("SIGTERM");
  await second.process.exited;
  const ctx = await createContext(loadConfig({ TXRAY_DATA_DIR: dataDir }), { logger: silentLogger });
  await flushSpool(ctx);
  const rows = await ctx.duck.all<{ sig: string }>(
    `SELECT sig FROM read_parquet('${ctx.paths.datasetGlob("envelopes")}', hive_partitioning = true)`,
  );
  ctx.close();

  const inLake = new Map<string, number>();
  for (const { sig } of rows) inLake.set(sig, (inLake.get(sig) ?? 0) + 1);
  const missing = acknowledged.filter((sig) => !inLake.has(sig));
  const duplicated = [...inLake.values()].filter((count) => count > 1).length;
  expect(missing).toEqual([]);
  expect(duplicated).toBe(0);
  expect(rows.length).toBeLessThanOrEqual(sent);
}, 60_000);
