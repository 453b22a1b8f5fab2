// Deploy detection against a fake JSON-RPC server on loopback serving recorded upgradeable-loader
// account bytes, then end to end against the LiteSVM local chain (deploy, redeploy), and through
// the tables job into release-diff's deploy list.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { type Localnet, startLocalnet } from "../../../devkit/localnet";
import {
  decodeProgramData,
  detectDeploys,
  latestRecordedSlot,
  programDataAddressOf,
  UPGRADEABLE_LOADER_ID,
} from "../../../src/chain/deploys";
import { createRpcClient } from "../../../src/chain/rpc";
import { addProgramCounts } from "../../../src/control";
import { deploysJob, FULL_LOOK_MS } from "../../../src/jobs/deploys";
import { runJob } from "../../../src/jobs/run";
import { decodeBase58, encodeBase58 } from "../../../src/shared/base58";
import { testContext } from "../../helpers/context";

const programAccountData = (programData: string) => Buffer.concat([u32(2), Buffer.from(decodeBase58(programData)!)]);
const programDataHeader = (slot: number, authority: string | null) =>
  Buffer.concat([
    u32(3),
    u64(slot),
    authority ? Buffer.concat([Buffer.from([1]), Buffer.from(decodeBase58(authority)!)]) : Buffer.from([0]),
  ]);
function u32(n: number) {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}
function u64(n: number) {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}
const address = () => encodeBase58(randomBytes(32));

describe("loader state", () => {
  test("program account → ProgramData address; ProgramData → slot and authority", () => {
    const programData = address();
    const authority = address();
    expect(programDataAddressOf(programAccountData(programData))).toBe(programData);
    expect(decodeProgramData(programDataHeader(123_456_789, authority))).toEqual({ slot: 123_456_789, authority });
    expect(decodeProgramData(programDataHeader(5, null))).toEqual({ slot: 5, authority: null });
    expect(programDataAddressOf(Buffer.alloc(36))).toBeNull();
    expect(decodeProgramData(programAccountData(programData))).toBeNull();
  });
});

describe("against a fake RPC", () => {
  const program = address();
  const immutable = address();
  const programData = address();
  const authority = address();
  const state = { slot: 1_000, blockTimes: new Map<number, number | null>([[1_000, 1_700_000_000]]) };
  /** Every call the fake answered: its method and, for getMultipleAccounts, the keys and the data slice asked for. */
  const calls: { method: string; keys?: string[]; dataSlice?: unknown }[] = [];
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const body = (await request.json()) as { id: number; method: string; params: any[] };
        const reply = (result: unknown) => Response.json({ jsonrpc: "2.0", id: body.id, result });
        calls.push(
          body.method === "getMultipleAccounts"
            ? { method: body.method, keys: body.params[0], dataSlice: body.params[1]?.dataSlice }
            : { method: body.method },
        );
        if (body.method === "getMultipleAccounts") {
          const value = (body.params[0] as string[]).map((key) => {
            if (key === program)
              return {
                owner: UPGRADEABLE_LOADER_ID,
                executable: true,
                lamports: 1,
                data: [programAccountData(programData).toString("base64"), "base64"],
              };
            if (key === programData)
              return {
                owner: UPGRADEABLE_LOADER_ID,
                executable: false,
                lamports: 1,
                data: [programDataHeader(state.slot, authority).toString("base64"), "base64"],
              };
            if (key === immutable)
              return {
                owner: "BPFLoader2111111111111111111111111111111111",
                executable: true,
                lamports: 1,
                data: ["", "base64"],
              };
            return null;
          });
          return reply({ context: { slot: state.slot }, value });
        }
        if (body.method === "getBlockTime") {
          const time = state.blockTimes.get(body.params[0]);
          if (time === undefined || time === null)
            return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32009, message: "Slot was skipped" } });
          return reply(time);
        }
        return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } });
      },
    });
  });
  afterAll(() => server.stop(true));

  test("records each new ProgramData slot once, with its block time (null when unknown)", async () => {
    const ctx = await testContext();
    (ctx as { clock: () => number }).clock = () => 1_763_000_000_000;
    try {
      const rpc = createRpcClient({ url: `http://127.0.0.1:${server.port}`, maxRetries: 0 });
      const first = await detectDeploys(ctx, rpc, [program, immutable]);
      expect(first.recorded).toEqual([
        { program, slot: 1_000, deployedAt: 1_700_000_000_000, detectedAt: 1_763_000_000_000, authority },
      ]);
      expect(first.skipped.map((s) => s.program)).toEqual([immutable]);
      expect((await detectDeploys(ctx, rpc, [program])).recorded).toEqual([]);
      state.slot = 2_000; // redeploy; the node has no block time for it
      const second = await detectDeploys(ctx, rpc, [program]);
      expect(second.recorded.map((d) => [d.slot, d.deployedAt])).toEqual([[2_000, null]]);
      expect(latestRecordedSlot(ctx.paths, program)).toBe(2_000);
      const rows = await ctx.duck.all(
        `SELECT slot, deployed_at, authority FROM read_parquet('${ctx.paths.partition("deploys", program)}/*/*.parquet') ORDER BY slot`,
      );
      expect(rows).toEqual([
        { slot: 1_000, deployed_at: 1_700_000_000_000, authority },
        { slot: 2_000, deployed_at: null, authority },
      ]);
      const columns = await ctx.duck.all<{ column_name: string; column_type: string }>(
        `DESCRIBE SELECT * FROM read_parquet('${ctx.paths.partition("deploys", program)}/*/*.parquet', hive_partitioning = false)`,
      );
      expect(columns.map((c) => [c.column_name, c.column_type])).toEqual([
        ["slot", "BIGINT"],
        ["deployed_at", "TIMESTAMP WITH TIME ZONE"],
        ["detected_at", "TIMESTAMP WITH TIME ZONE"],
        ["authority", "VARCHAR"],
      ]);
    } finally {
      ctx.dispose();
    }
  });
  test("between full looks the deploys job watches only the ProgramData headers: one call a run", async () => {
    let now = 1_764_000_000_000;
    const ctx = await testContext({ SOLANA_RPC_URL: `http://127.0.0.1:${server.port}` });
    (ctx as { clock: () => number }).clock = () => now;
    try {
      addProgramCounts(ctx.control, [
        { accountId: "acc_test", program, attempts: 1, lastSeen: 1 },
        { accountId: "acc_test", program: immutable, attempts: 1, lastSeen: 1 },
      ]);
      state.slot = 3_000;
      state.blockTimes.set(3_000, 1_763_900_000);
      state.blockTimes.set(4_000, 1_763_999_000);
      const first = await runJob(ctx, deploysJob);
      expect(first.details).toMatchObject({ fullLook: true, recorded: 1, skipped: 1 });
      calls.length = 0;
      now += 5_000;
      state.slot = 4_000; // a redeploy
      const watch = await runJob(ctx, deploysJob);
      expect(watch.details).toMatchObject({ fullLook: false, recorded: 1, skipped: 1 });
      expect(latestRecordedSlot(ctx.paths, program)).toBe(4_000);
      expect(calls).toEqual([
        { method: "getMultipleAccounts", keys: [programData], dataSlice: { offset: 0, length: 45 } },
        { method: "getBlockTime" },
        { method: "getAccountInfo" }, // the redeployed program's IDL
        // the new deploy's verified-build records (verified-build.ts: its authority's and the verifiers')
        { method: "getMultipleAccounts", keys: expect.any(Array), dataSlice: undefined },
      ]);
      calls.length = 0;
      now += FULL_LOOK_MS;
      const full = await runJob(ctx, deploysJob);
      expect(full.details).toMatchObject({ fullLook: true, recorded: 0 });
      const look = calls[0] as { method: string; keys: string[]; dataSlice: unknown };
      expect({ ...look, keys: [...look.keys].sort() }).toEqual({
        method: "getMultipleAccounts",
        keys: [program, immutable].sort(), // tracked programs come in no promised order
        dataSlice: undefined,
      });
    } finally {
      ctx.dispose();
    }
  });
});

describe("against the local chain", () => {
  let localnet: Localnet;
  beforeAll(async () => {
    localnet = await startLocalnet({ port: 0, blockTimeMs: 0 });
  });
  afterAll(async () => await localnet.stop());

  test("deploy then redeploy: the deploys job records both slots of tracked programs", async () => {
    const ctx = await testContext({ SOLANA_RPC_URL: localnet.url });
    try {
      const deployed = localnet.deployProgram();
      addProgramCounts(ctx.control, [{ accountId: "acc_test", program: deployed.programId, attempts: 1, lastSeen: 1 }]);
      const first = await runJob(ctx, deploysJob);
      expect(first.ok).toBe(true);
      expect(first.details).toMatchObject({ programs: 1, upgradeable: 1, recorded: 1 });
      expect(latestRecordedSlot(ctx.paths, deployed.programId)).toBe(deployed.slot);
      localnet.advanceBlocks(5);
      const redeployed = localnet.deployProgram(deployed.programId, { template: "spl-token" });
      expect(redeployed.slot).toBeGreaterThan(deployed.slot);
      const second = await runJob(ctx, deploysJob);
      expect(second.details).toMatchObject({ recorded: 1 });
      expect(latestRecordedSlot(ctx.paths, deployed.programId)).toBe(redeployed.slot);
      const rows = await ctx.duck.all<{ slot: number; deployed_at: number | null }>(
        `SELECT slot, deployed_at FROM read_parquet('${ctx.paths.partition("deploys", deployed.programId)}/*/*.parquet') ORDER BY slot`,
      );
      expect(rows.map((r) => r.slot)).toEqual([deployed.slot, redeployed.slot]);
      expect(typeof rows[1].deployed_at).toBe("number");
    } finally {
      ctx.dispose();
    }
  });
});
