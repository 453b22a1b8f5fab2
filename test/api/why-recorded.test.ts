// why/{sig} for a signature txray never ingested: fetched from an RPC endpoint serving recorded real
// mainnet transactions, decoded on demand (with an IDL registered through the CLI), cached.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { run } from "../../src/cli/commands";
import { recordedTransaction, startRecordedRpc } from "../helpers/recorded-rpc";
import { type TestServer, testServer } from "../helpers/server";

const jupiterFailure = recordedTransaction("19_"); // Jupiter 6001 with no AnchorError line: needs the IDL
const chainlinkFailure = recordedTransaction("23_"); // AnchorError thrown in … StaleReport 6003
const usdcTransfer = recordedTransaction("01_");
let rpc: ReturnType<typeof startRecordedRpc>;
let t: TestServer;

beforeAll(async () => {
  rpc = startRecordedRpc([jupiterFailure, chainlinkFailure, usdcTransfer]);
  t = await testServer({ SOLANA_RPC_URL: rpc.url });
  const out: string[] = [];
  const code = await run(
    [
      "idl",
      "add",
      "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
      join(import.meta.dir, "..", "fixtures", "mainnet", "04_idl_jupiter_v6_legacy.json"),
    ],
    {
      stdout: (s) => out.push(s),
      stderr: (s) => out.push(s),
      env: { TXRAY_DATA_DIR: t.ctx.config.dataDir },
    },
  );
  expect(code).toBe(0);
  expect(out.join("")).toContain("stored IDL");
});
afterAll(async () => {
  await t.stop();
  rpc.stop();
});

test("a failed Jupiter route never ingested: decoded from the chain with the registered IDL", async () => {
  const response = await t.get(`/v1/why/${jupiterFailure.sig}`);
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({
    sig: jupiterFailure.sig,
    outcome: "failed_onchain",
    program: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
    instruction: "Route",
    failingProgram: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
    failingInstruction: "Route",
    ixPath: "2",
    cpiDepth: 0,
    errCode: 6001,
    errName: "SlippageToleranceExceeded",
    cuUsed: 104305,
    cuRequested: 146000,
    payerBotScore: null,
    source: "chain",
  });
  expect(response.body.issue.fingerprint).toMatch(/^v1:[0-9a-f]{16}$/);
  expect(response.body.issue.count7d).toBe(0);
  expect(response.body.issue.firstSeen).toBe(jupiterFailure.result.blockTime * 1000);
  expect(typeof response.body.payer).toBe("string");
});

test("an Anchor error is named from its own log line", async () => {
  const response = await t.get(`/v1/why/${chainlinkFailure.sig}`);
  expect(response.body).toMatchObject({ outcome: "failed_onchain", errCode: 6003, errName: "StaleReport" });
});

test("a successful transfer: landed, every error field null, no issue", async () => {
  const response = await t.get(`/v1/why/${usdcTransfer.sig}`);
  expect(response.body).toMatchObject({ outcome: "landed", errCode: null, errName: null, issue: null, cpiDepth: 0 });
});

test("the transaction is fetched once, then served from the cache", async () => {
  const before = rpc.requests();
  for (let i = 0; i < 3; i++) expect((await t.get(`/v1/why/${jupiterFailure.sig}`)).status).toBe(200);
  expect(rpc.requests()).toBe(before);
});

test("a signature the chain does not know is 404", async () => {
  const response = await t.get(`/v1/why/${"4".repeat(87)}`);
  expect(response.status).toBe(404);
  expect(response.body.error.code).toBe("not_found");
});
