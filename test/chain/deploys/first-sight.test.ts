// The first look at a program: its ProgramData slot is a deploy only when the chain can date it
// (getBlockTime answers); otherwise it is a baseline and nothing is recorded, so release-diff has no
// deploy to diff against. A change of slot seen later is always a deploy, dated or not. Against a
// fake JSON-RPC server on loopback serving upgradeable-loader account bytes.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { detectDeploys, latestRecordedSlot, UPGRADEABLE_LOADER_ID } from "../../../src/chain/deploys";
import { createRpcClient, type RpcClient } from "../../../src/chain/rpc";
import type { Context, OwnedPart } from "../../../src/context";
import { decodeBase58, encodeBase58 } from "../../../src/shared/base58";
import { testContext } from "../../helpers/context";

const address = () => encodeBase58(randomBytes(32));
const le = (bytes: number, n: number) => {
  const b = Buffer.alloc(bytes);
  if (bytes === 4) b.writeUInt32LE(n);
  else b.writeBigUInt64LE(BigInt(n));
  return b;
};
const base64 = (data: Buffer) => [data.toString("base64"), "base64"];

/** program → [its ProgramData address, the slot the ProgramData records]. */
const chain = new Map<string, { programData: string; slot: number }>();
/** Slots the node can date (Unix seconds); any other slot answers "Slot was skipped". */
const blockTimes = new Map<number, number | null>();
const blockTimeCalls: number[] = [];
/** Slots whose block time the node does not answer for at all (an HTTP error, not a JSON-RPC one). */
const unreachableSlots = new Set<number>();
let server: ReturnType<typeof Bun.serve>;
let rpc: RpcClient;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as { id: number; method: string; params: any[] };
      const reply = (result: unknown) => Response.json({ jsonrpc: "2.0", id: body.id, result });
      if (body.method === "getMultipleAccounts") {
        const value = (body.params[0] as string[]).map((key) => {
          const program = chain.get(key);
          if (program)
            return {
              owner: UPGRADEABLE_LOADER_ID,
              executable: true,
              lamports: 1,
              data: base64(programAccount(program)),
            };
          const data = [...chain.values()].find((p) => p.programData === key);
          if (data)
            return { owner: UPGRADEABLE_LOADER_ID, executable: false, lamports: 1, data: base64(programData(data)) };
          return null;
        });
        return reply({ context: { slot: 1 }, value });
      }
      if (body.method === "getBlockTime") {
        blockTimeCalls.push(body.params[0]);
        if (unreachableSlots.has(body.params[0])) return new Response("unavailable", { status: 503 });
        const time = blockTimes.get(body.params[0]);
        if (time === undefined)
          return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32009, message: "Slot was skipped" } });
        return reply(time);
      }
      return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } });
    },
  });
  rpc = createRpcClient({ url: `http://127.0.0.1:${server.port}`, maxRetries: 0 });
});
afterAll(() => server.stop(true));

const programAccount = (p: { programData: string }) =>
  Buffer.concat([le(4, 2), Buffer.from(decodeBase58(p.programData)!)]);
const programData = (p: { slot: number }) => Buffer.concat([le(4, 3), le(8, p.slot), Buffer.from([0])]);

const deps = ({ paths, duck, logger, clock }: Context) => ({ paths, duck, logger, clock });

function deployAt(slot: number) {
  const program = address();
  chain.set(program, { programData: address(), slot });
  return program;
}

test("first look at an undatable slot: a baseline, no deploy; a later change is a deploy, dated or not", async () => {
  const ctx = await testContext();
  (ctx as { clock: () => number }).clock = () => 1_763_000_000_000;
  try {
    const dumped = deployAt(447_552_000); // loaded from a dump: the chain never produced that slot
    const nullTime = deployAt(900); // the node answers null for that slot
    blockTimes.set(900, null);

    const first = await detectDeploys(ctx, rpc, [dumped, nullTime]);
    expect(first.recorded).toEqual([]);
    expect(first.baselines).toEqual([
      { program: dumped, slot: 447_552_000 },
      { program: nullTime, slot: 900 },
    ]);
    expect(latestRecordedSlot(ctx.paths, dumped)).toBeNull();
    expect(latestRecordedSlot(ctx.paths, nullTime)).toBeNull();

    // Unchanged since the baseline: nothing recorded, the node not asked again.
    blockTimeCalls.length = 0;
    const again = await detectDeploys(ctx, rpc, [dumped, nullTime]);
    expect([again.recorded, again.baselines, blockTimeCalls]).toEqual([[], [], []]);

    chain.get(dumped)!.slot = 447_552_100; // an observed redeploy the node cannot date
    blockTimes.set(1_000, 1_700_000_000);
    chain.get(nullTime)!.slot = 1_000; // an observed redeploy it can
    const changed = await detectDeploys(ctx, rpc, [dumped, nullTime]);
    expect(changed.recorded).toEqual([
      { program: dumped, slot: 447_552_100, deployedAt: null, detectedAt: 1_763_000_000_000, authority: null },
      { program: nullTime, slot: 1_000, deployedAt: 1_700_000_000_000, detectedAt: 1_763_000_000_000, authority: null },
    ]);
    expect(latestRecordedSlot(ctx.paths, dumped)).toBe(447_552_100);
  } finally {
    ctx.dispose();
  }
});

test("first look at a datable slot: a deploy with its block time; a later change is a deploy", async () => {
  const ctx = await testContext();
  (ctx as { clock: () => number }).clock = () => 1_763_000_000_000;
  try {
    blockTimes.set(5_000, 1_700_000_500);
    const program = deployAt(5_000);
    const first = await detectDeploys(ctx, rpc, [program]);
    expect(first.baselines).toEqual([]);
    expect(first.recorded).toEqual([
      { program, slot: 5_000, deployedAt: 1_700_000_500_000, detectedAt: 1_763_000_000_000, authority: null },
    ]);
    chain.get(program)!.slot = 6_000; // undatable, but a change txray observed
    const second = await detectDeploys(ctx, rpc, [program]);
    expect(second.recorded.map((d) => [d.slot, d.deployedAt])).toEqual([[6_000, null]]);
    expect(latestRecordedSlot(ctx.paths, program)).toBe(6_000);
  } finally {
    ctx.dispose();
  }
});

test("a context that starts over a recorded deploy takes any other slot as a deploy", async () => {
  const ctx = await testContext();
  try {
    blockTimes.set(7_000, 1_700_000_700);
    const program = deployAt(7_000);
    expect((await detectDeploys(ctx, rpc, [program])).recorded).toHaveLength(1);
    // As after a restart: nothing in memory (each part made afresh), a recorded deploy on disk.
    const restarted = { ...deps(ctx), own: <T>(part: OwnedPart<T>) => part.make(ctx) };
    chain.get(program)!.slot = 8_000;
    const after = await detectDeploys(restarted, rpc, [program]);
    expect(after.recorded.map((d) => [d.slot, d.deployedAt])).toEqual([[8_000, null]]);
    expect(after.baselines).toEqual([]);
  } finally {
    ctx.dispose();
  }
});

test("a first look whose block time could not be asked decides nothing; the next poll asks again", async () => {
  const ctx = await testContext();
  try {
    unreachableSlots.add(9_000);
    const program = deployAt(9_000);
    const first = await detectDeploys(ctx, rpc, [program]);
    expect([first.recorded, first.baselines, first.skipped.map((s) => s.program)]).toEqual([[], [], [program]]);
    unreachableSlots.delete(9_000);
    blockTimes.set(9_000, 1_700_000_900);
    const second = await detectDeploys(ctx, rpc, [program]);
    expect(second.recorded.map((d) => [d.slot, d.deployedAt])).toEqual([[9_000, 1_700_000_900_000]]);
  } finally {
    ctx.dispose();
  }
});
