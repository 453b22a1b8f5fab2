// The call stack and logs of real recorded mainnet failures with CPI, ingested, resolved against a
// JSON-RPC endpoint serving the recordings, and read back through why/{sig}, issue/{fingerprint} and
// the MCP tool `issue` (which answers the route's object): a pump.fun Buy whose System transfer CPI
// (depth 2) runs out of lamports, and a Jupiter route that fails after its Raydium and Meteora CPIs.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { IssueDetailSchema, WhySchema } from "../../src/analytics/queries";
import { loadIdls } from "../../src/chain/idl";
import { resolvePending } from "../../src/chain/resolve";
import { createRpcClient } from "../../src/chain/rpc";
import { run } from "../../src/cli/commands";
import { flushJob } from "../../src/jobs/flush";
import { runJob } from "../../src/jobs/run";
import { tablesJob } from "../../src/jobs/tables";
import { makeEnvelope } from "../helpers/envelopes";
import { recordedTransaction, startRecordedRpc } from "../helpers/recorded-rpc";
import { type TestServer, testServer } from "../helpers/server";

const PUMP = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";
const JUPITER = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
const SYSTEM = "11111111111111111111111111111111";
const TOKEN = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const pumpBuy = recordedTransaction("27_"); // System transfer at depth 2 inside pump.fun Buy: insufficient lamports
const jupiterRoute = recordedTransaction("19_"); // Jupiter Route 6001 after Raydium AMM and Meteora DLMM CPIs
const HEIGHT = 300_000_000;
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;

beforeAll(async () => {
  rpc = startRecordedRpc([pumpBuy, jupiterRoute], { blockHeight: HEIGHT });
  // The recordings are mainnet's; served on loopback, so the explorer cluster is named (auto would turn links off).
  t = await testServer({ SOLANA_RPC_URL: rpc.url, EXPLORER_CLUSTER: "mainnet-beta" });
  const out: string[] = [];
  const idl = join(import.meta.dir, "..", "fixtures", "mainnet", "04_idl_jupiter_v6_legacy.json");
  expect(
    await run(["idl", "add", JUPITER, idl], {
      stdout: (s) => out.push(s),
      stderr: (s) => out.push(s),
      env: { TXRAY_DATA_DIR: t.ctx.config.dataDir },
    }),
  ).toBe(0);
  const now = Date.now();
  const response = await t.ingest({
    apiKey: t.key("acme"),
    envelopes: [
      makeEnvelope({ sig: pumpBuy.sig, program: PUMP, lastValidBlockHeight: HEIGHT + 10, sentAt: now }),
      makeEnvelope({ sig: jupiterRoute.sig, program: JUPITER, lastValidBlockHeight: HEIGHT + 10, sentAt: now }),
    ],
  });
  expect(response.status).toBe(202);
  const runtime = { spool: t.server.spool ?? undefined };
  expect((await runJob(t.ctx, flushJob, runtime)).ok).toBe(true);
  const summary = await resolvePending(t.ctx, {
    rpc: createRpcClient({ url: rpc.url }),
    idls: loadIdls(t.ctx.paths.root),
    recheckDelayMs: 5,
  });
  expect(summary.resolved.failed_onchain).toBe(2);
  expect((await runJob(t.ctx, tablesJob, runtime)).ok).toBe(true);
}, 60_000);
afterAll(async () => {
  await t?.stop();
  rpc?.stop();
});

/** The pump.fun Buy's frames as its logs show them (test/fixtures/mainnet/27_…, lines numbered from 0). */
const PUMP_FRAMES = [
  {
    program: "ComputeBudget111111111111111111111111111111",
    depth: 1,
    path: "0",
    parent: null,
    result: "success",
    lines: [0, 1],
  },
  {
    program: "ComputeBudget111111111111111111111111111111",
    depth: 1,
    path: "1",
    parent: null,
    result: "success",
    lines: [2, 3],
  },
  { program: SYSTEM, depth: 1, path: "2", parent: null, result: "success", lines: [4, 5] },
  {
    program: "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
    depth: 1,
    path: "3",
    parent: null,
    result: "success",
    lines: [6, 26],
    instruction: "Create",
    computeUnits: 21807,
  },
  {
    program: TOKEN,
    depth: 2,
    path: "3.0",
    parent: 3,
    result: "success",
    lines: [8, 12],
    instruction: "GetAccountDataSize",
    computeUnits: 1569,
  },
  { program: SYSTEM, depth: 2, path: "3.1", parent: 3, result: "success", lines: [13, 14] },
  {
    program: TOKEN,
    depth: 2,
    path: "3.2",
    parent: 3,
    result: "success",
    lines: [16, 20],
    instruction: "InitializeImmutableOwner",
  },
  {
    program: TOKEN,
    depth: 2,
    path: "3.3",
    parent: 3,
    result: "success",
    lines: [21, 24],
    instruction: "InitializeAccount3",
  },
  {
    program: PUMP,
    depth: 1,
    path: "4",
    parent: null,
    result: "failed",
    lines: [27, 37],
    instruction: "Buy",
    computeUnits: 35389,
    failing: false,
  },
  { program: TOKEN, depth: 2, path: "4.0", parent: 8, result: "success", lines: [29, 32], instruction: "Transfer" },
  {
    program: SYSTEM,
    depth: 2,
    path: "4.1",
    parent: 8,
    result: "failed",
    lines: [33, 35],
    failing: true,
    error: "custom program error: 0x1",
    computeUnits: null,
  },
];

test("why/{sig}: the logs as recorded and the call stack rebuilt from them, the failing CPI frame marked", async () => {
  const { status, body } = await t.get(`/v1/why/${pumpBuy.sig}`);
  expect(status).toBe(200);
  expect(WhySchema.safeParse(body).success).toBe(true);
  expect(body).toMatchObject({
    outcome: "failed_onchain",
    program: PUMP,
    instruction: "Buy",
    failingProgram: SYSTEM,
    ixPath: "4.1",
    cpiDepth: 1,
    errName: "ResultWithNegativeLamports",
  });
  expect(body.logs).toEqual(pumpBuy.result.meta.logMessages);
  expect(body.callStack).toHaveLength(PUMP_FRAMES.length);
  for (const [i, frame] of PUMP_FRAMES.entries())
    expect(body.callStack[i]).toMatchObject({ index: i, failing: false, ...frame });
  expect(body.callStack.filter((f: any) => f.failing)).toHaveLength(1);
  expect(body.callStack[10].instruction).toBe("Transfer"); // the story's failingInstruction names the System frame
  expect(body.callStack[8].programName).toBe("pump.fun");
  expect(body.issue.title).toBe("ResultWithNegativeLamports in Buy");
  // A recorded mainnet transaction: links to the public explorers.
  expect(body.links).toEqual({
    solanaExplorer: `https://explorer.solana.com/tx/${pumpBuy.sig}`,
    solscan: `https://solscan.io/tx/${pumpBuy.sig}`,
  });
});

test("issue/{fingerprint}: the representative event carries the same logs and call stack", async () => {
  const why = (await t.get(`/v1/why/${pumpBuy.sig}`)).body;
  const { status, body } = await t.get(`/v1/issue/${why.issue.fingerprint}?window=1d`);
  expect(status).toBe(200);
  expect(IssueDetailSchema.safeParse(body).success).toBe(true);
  expect(body).toMatchObject({
    fingerprint: why.issue.fingerprint,
    program: PUMP,
    title: "ResultWithNegativeLamports in Buy",
    outcome: "failed_onchain",
    instruction: "Buy",
    failingProgram: SYSTEM,
    failingInstruction: "Transfer",
    errCode: 1,
    errName: "ResultWithNegativeLamports",
    errMessage: "account does not have enough SOL to perform the operation",
    counts: { "1d": 1, "7d": 1, "30d": 1 },
    wallets: 1,
  });
  expect(body.representative).toMatchObject({
    sig: pumpBuy.sig,
    outcome: "failed_onchain",
    ixPath: "4.1",
    cpiDepth: 1,
    slot: pumpBuy.result.slot,
  });
  expect(body.representative.logs).toEqual(pumpBuy.result.meta.logMessages);
  expect(body.representative.callStack).toEqual(why.callStack);
  expect(body.examples.map((e: any) => e.sig)).toEqual([pumpBuy.sig]);
});

test("a Jupiter route failing at top level after its CPIs: the failing frame is the Route frame, named by the IDL", async () => {
  const why = (await t.get(`/v1/why/${jupiterRoute.sig}`)).body;
  const { body } = await t.get(`/v1/issue/${why.issue.fingerprint}`);
  expect(body.title).toBe("SlippageToleranceExceeded in Route");
  expect(body.errMessage).toBe("Slippage tolerance exceeded");
  const stack = body.representative.callStack;
  const failing = stack.filter((f: any) => f.failing);
  expect(failing).toHaveLength(1);
  expect(failing[0]).toMatchObject({
    program: JUPITER,
    depth: 1,
    path: "2",
    instruction: "Route",
    result: "failed",
    error: "custom program error: 0x1771",
  });
  const calls = stack.filter((f: any) => f.parent === failing[0].index).map((f: any) => f.programName ?? f.program);
  expect(calls).toEqual(["Raydium AMM v4", "Jupiter v6", "Meteora DLMM", "Jupiter v6"]);
  expect(stack.every((f: any) => f.failing || f.result === "success" || f === failing[0])).toBe(true);
  expect(body.representative.logs).toEqual(jupiterRoute.result.meta.logMessages);
});

test("the MCP tool `issue` answers the route's object", async () => {
  const why = (await t.get(`/v1/why/${pumpBuy.sig}`)).body;
  const client = new Client({ name: "txray-test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
  try {
    for (const window of ["7d", "30d"]) {
      const result = await client.callTool({
        name: "issue",
        arguments: { fingerprint: why.issue.fingerprint, window },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(
        (await t.get(`/v1/issue/${why.issue.fingerprint}?window=${window}`)).body,
      );
      expect((result.content as { text: string }[])[0].text).toContain("ResultWithNegativeLamports in Buy");
      expect((result.content as { text: string }[])[0].text).toContain("✗ System Program Transfer [#5.2]");
    }
    const bad = await client.callTool({ name: "issue", arguments: { fingerprint: "nope" } });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0].text).toContain("bad_request (HTTP 400): fingerprint");
  } finally {
    await client.close();
  }
});
