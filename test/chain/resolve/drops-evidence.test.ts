// Drop verdicts that blame the client only on evidence that beats the provider: over a world like
// the simulator's (devkit/simulate: drops only by providers that do not forward, at 0%, 5% and 30%
// as in the demo; people pay a random 1,000–50,000 µlamports/CU, the bot nothing), no drop is blamed
// on its fee; every diagnosis carries its provider's measured drop rate; and heights gathered around
// a hanging or an erroring RPC endpoint never make a stale-blockhash verdict.
import { afterAll, describe, expect, test } from "bun:test";
import type { Attempt } from "../../../src/chain/resolve";
import { classifyDrops, type DropItem, estimateHeightAt, type Neighbour } from "../../../src/chain/resolve/drops";
import { ChainHealth, createRpcClient } from "../../../src/chain/rpc";
import { seeded } from "./drops-reference";

const T = 1_763_700_000_000;

/** Sends over 20 minutes through three providers, dropped only by their provider's roll, priced as the simulator does. */
function simulatorWorld(seed: number, dropRates: Record<string, number>) {
  const random = seeded(seed);
  const providers = Object.keys(dropRates);
  const neighbours: Neighbour[] = [];
  const items: DropItem[] = [];
  for (let i = 0; i < 3000; i++) {
    const rpcHash = providers[Math.floor(random() * providers.length)];
    const bot = random() < 0.5; // the bot sends 4× a person's traffic: about half of all sends
    const price = bot ? null : 1_000 * (1 + Math.floor(random() * 50));
    const payer = bot ? "bot" : `person-${Math.floor(random() * 40)}`;
    const sentAt = T + Math.floor(random() * 20 * 60_000);
    const dropped = random() < dropRates[rpcHash];
    const program = random() < 0.5 ? "System" : "Token";
    neighbours.push({
      sig: `s${i}`,
      payer,
      program,
      rpcHash,
      sentAt,
      outcome: dropped ? "dropped" : "landed",
      cuPriceMicroLamports: price,
    });
    if (!dropped) continue;
    const attempt: Attempt = {
      attemptId: `a${i}`,
      accountId: "acc",
      program,
      sig: `s${i}`,
      lastValidBlockHeight: 10_000 + i,
      sentAt,
      rpcHash,
      rpcLabel: rpcHash,
      payer,
      cuPriceMicroLamports: price,
      nonce: false,
      kind: "send",
      receivedAt: sentAt,
      cuLimit: null,
      ixPrefix: null,
      preflightError: null,
      simulationLogs: null,
    };
    // Fresh blockhashes (the simulator signs right before sending): 150 blocks left.
    items.push({
      attempt,
      heightAtExpiry: attempt.lastValidBlockHeight + 2,
      heightAtSend: attempt.lastValidBlockHeight - 150,
    });
  }
  return { items, neighbours };
}

describe("over the simulator's drops (only providers that do not forward drop)", () => {
  for (const seed of [1, 2, 3]) {
    test(`none is blamed on its fee, and each names its provider's drop rate (seed ${seed})`, () => {
      const { items, neighbours } = simulatorWorld(seed, { alpha: 0, bravo: 0.05, charlie: 0.3 });
      const diagnoses = classifyDrops(items, neighbours);
      expect(diagnoses.length).toBeGreaterThan(100);
      const classes = new Set(diagnoses.map((d) => d.dropClass));
      expect(classes.has("priority_fee_too_low")).toBe(false);
      expect(classes.has("stale_blockhash_at_send")).toBe(false);
      diagnoses.forEach((d, i) => {
        const row = d.evidence.find((e) => e.kind === "provider_drop_rate");
        expect(row?.detail).toMatch(
          new RegExp(
            `^${items[i].attempt.rpcLabel} dropped \\d+ of \\d+ sends within 15 min \\(95% CI [\\d.]+%–[\\d.]+%\\)$`,
          ),
        );
        expect(typeof row?.value).toBe("number");
      });
      // charlie's drops are told as its own, with the rates that show it.
      const charlie = diagnoses.filter((_, i) => items[i].attempt.rpcHash === "charlie");
      expect(charlie.filter((d) => d.dropClass === "rpc_not_forwarding").length).toBeGreaterThan(charlie.length / 2);
    });
  }

  test("a provider dropping significantly more than the others takes the blame from a cheap fee", () => {
    // Cheap sends do drop more here, but the attempt's provider drops far more than the others still.
    const neighbours: Neighbour[] = [];
    for (let i = 0; i < 200; i++)
      neighbours.push({
        sig: `n${i}`,
        payer: `p${i}`,
        program: "P",
        rpcHash: "good",
        sentAt: T + i * 1000,
        outcome: i % 20 === 0 ? "dropped" : "landed",
        cuPriceMicroLamports: i % 20 === 0 ? 100 : 5_000 + (i % 10) * 100,
      });
    for (let i = 0; i < 12; i++)
      neighbours.push({
        sig: `b${i}`,
        payer: `b${i}`,
        program: "P",
        rpcHash: "bad",
        sentAt: T + i * 1000,
        outcome: i % 3 === 0 ? "landed" : "dropped",
        cuPriceMicroLamports: 5_000,
      });
    const attempt: Attempt = {
      attemptId: "a",
      accountId: "acc",
      program: "P",
      sig: "S",
      lastValidBlockHeight: 1000,
      sentAt: T + 60_000,
      rpcHash: "good",
      rpcLabel: "good",
      payer: "payer",
      cuPriceMicroLamports: 100,
      nonce: false,
      kind: "send",
      receivedAt: T,
      cuLimit: null,
      ixPrefix: null,
      preflightError: null,
      simulationLogs: null,
    };
    const item = { attempt, heightAtExpiry: 1001, heightAtSend: 850 };
    expect(classifyDrops([item], neighbours)[0].dropClass).toBe("priority_fee_too_low");
    const viaBad = { ...item, attempt: { ...attempt, rpcHash: "bad", rpcLabel: "bad" } };
    const d = classifyDrops([viaBad], neighbours)[0];
    expect(d.dropClass).not.toBe("priority_fee_too_low");
    expect(d.evidence.find((e) => e.kind === "provider_drop_rate")?.value).toBe(0.6667);
    // Nor is a blockhash with blocks left blamed when its provider explains the drop better.
    expect(classifyDrops([{ ...viaBad, heightAtSend: 990 }], neighbours)[0].dropClass).not.toBe(
      "stale_blockhash_at_send",
    );
    expect(classifyDrops([{ ...viaBad, heightAtSend: 1001 }], neighbours)[0].dropClass).toBe("stale_blockhash_at_send");
  });
});

describe("heights gathered around an RPC outage never blame the client", () => {
  const hung: (() => void)[] = [];
  const hanging = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Promise<Response>((resolve) => hung.push(() => resolve(new Response("late")))),
  });
  const erroring = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("down", { status: 502 }) });
  afterAll(async () => {
    for (const answer of hung) answer();
    await Promise.all([hanging.stop(true), erroring.stop(true)]);
  });

  for (const [name, server, failure] of [
    ["a hanging", hanging, "timeout"],
    ["an erroring", erroring, "http_5xx"],
  ] as const) {
    test(`${name} endpoint: no height is estimated across it, so no stale_blockhash_at_send`, async () => {
      const health = new ChainHealth("resolve", Date.now, null);
      const rpc = createRpcClient({
        url: `http://127.0.0.1:${server.port}`,
        timeoutMs: 50,
        maxRetries: 0,
        onOutcome: (outcome) => health.note(outcome),
      });
      const before = Date.now();
      await expect(rpc.call("getBlockHeight")).rejects.toThrow();
      expect(health.current()).toMatchObject({ reachable: false, lastError: failure });
      // The heights on either side of the failed requests: 60 s apart, the second one stale by 150 blocks.
      const samples = [
        { observed_at: before - 30_000, height: 5_000 },
        { observed_at: before + 30_000, height: 5_300 },
      ];
      const sentAt = before - 10_000;
      expect(estimateHeightAt(samples, sentAt)).toBe(5_100); // what the heights alone would claim
      const heightAtSend = estimateHeightAt(samples, sentAt, (from, to) => health.failedWithin(from, to));
      expect(heightAtSend).toBeNull();
      const world = simulatorWorld(4, { alpha: 0, bravo: 0.05, charlie: 0.3 });
      const items = world.items.map((item) => ({
        ...item,
        attempt: { ...item.attempt, lastValidBlockHeight: 5_110 },
        heightAtSend,
      }));
      const classes = new Set(classifyDrops(items, world.neighbours).map((d) => d.dropClass));
      expect(classes.has("stale_blockhash_at_send")).toBe(false);
      expect(classes.has("priority_fee_too_low")).toBe(false);
    });
  }

  test("observations farther apart than the bound estimate nothing", () => {
    const samples = [
      { observed_at: T, height: 1_000 },
      { observed_at: T + 3 * 60_000, height: 1_450 },
    ];
    expect(estimateHeightAt(samples, T + 60_000)).toBeNull();
    expect(estimateHeightAt(samples.slice(0, 1), T + 1_000)).toBeNull();
    expect(estimateHeightAt([samples[0], { observed_at: T + 15_000, height: 1_037 }], T + 5_000)).toBe(1_012);
  });
});
