// why/{sig} of an ingested preflight failure whose error is raised inside a CPI (Jupiter → Raydium
// CLMM, recorded mainnet simulation logs, fixture 14): through ingest, flush, resolve and the route,
// `instruction` is Jupiter's, `failingInstruction` the CLMM's, cuUsed comes from the logs, and the
// lake row carries both.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveJob } from "../../src/jobs/resolve";
import { runJob } from "../../src/jobs/run";
import { flushSpool } from "../../src/lake/flush-spool";
import { makePreflightEnvelope, randomSignature } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

const JUPITER = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
const CLMM = "CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK";
const logs = JSON.parse(
  readFileSync(
    join(
      import.meta.dir,
      "..",
      "fixtures",
      "mainnet",
      "14_mixin_simulation_logs_raydium_clmm_6028_via_jupiter_cpi.json",
    ),
    "utf8",
  ),
) as string[];
let t: TestServer;

beforeAll(async () => {
  t = await testServer({ SOLANA_RPC_URL: "http://127.0.0.1:9" });
});
afterAll(async () => await t.stop());

test("instruction of the targeted program, failingInstruction of the failing CPI", async () => {
  const sig = randomSignature();
  const envelope = makePreflightEnvelope({
    sig,
    program: JUPITER,
    preflightError: "Transaction simulation failed: Error processing Instruction 2: custom program error: 0x178c",
    simulationLogs: logs,
  });
  expect((await t.ingest({ apiKey: t.key("acme"), envelopes: [envelope] })).status).toBe(202);
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
  expect((await runJob(t.ctx, resolveJob)).ok).toBe(true);

  const response = await t.get(`/v1/why/${sig}`);
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({
    outcome: "preflight",
    program: JUPITER,
    instruction: "SharedAccountsRoute",
    failingProgram: CLMM,
    failingInstruction: "Swap",
    errCode: 6028,
    errName: "InvalidFirstTickArrayAccount",
    ixPath: "2.4",
    cpiDepth: 1,
    cuUsed: 225269,
    source: "ingested",
  });
  const rows = await t.ctx.duck.all<{ instruction: string; failing_instruction: string; failing_program: string }>(
    `SELECT instruction, failing_instruction, failing_program FROM read_parquet('${t.ctx.paths.datasetGlob("resolutions")}', hive_partitioning = true)`,
  );
  expect(rows).toEqual([{ instruction: "SharedAccountsRoute", failing_instruction: "Swap", failing_program: CLMM }]);
});
