// Each drop class on controlled evidence, and the precedence between them.
import { describe, expect, test } from "bun:test";
import { type Attempt, classifyDrop } from "../../../src/chain/resolve";
import type { Neighbour } from "../../../src/chain/resolve/drops";

const T = 1_763_700_000_000;
const attempt: Attempt = {
  attemptId: "a1",
  accountId: "acc",
  program: "P",
  sig: "S0",
  lastValidBlockHeight: 1000,
  sentAt: T,
  rpcHash: "bad0000000000000",
  rpcLabel: "badrpc",
  payer: "payer-1",
  cuPriceMicroLamports: null,
  nonce: false,
  kind: "send",
  receivedAt: T,
  cuLimit: null,
  ixPrefix: null,
  preflightError: null,
  simulationLogs: null,
};
const base = { heightAtExpiry: 1001, heightAtSend: 900 };

function peers(count: number, rpcHash: string, dropEvery: number, overrides: Partial<Neighbour> = {}): Neighbour[] {
  return Array.from({ length: count }, (_, i) => ({
    sig: `${rpcHash}-${i}`,
    payer: `p${i}`,
    program: "P",
    rpcHash,
    sentAt: T + (i % 600) * 1000 - 300_000,
    outcome: dropEvery > 0 && i % dropEvery === 0 ? "dropped" : "landed",
    cuPriceMicroLamports: null,
    ...overrides,
  }));
}

describe("classifyDrop", () => {
  test("no evidence beyond expiry: expired_blockhash", () => {
    const d = classifyDrop(attempt, { ...base, neighbours: [] });
    expect(d.dropClass).toBe("expired_blockhash");
    // The provider's rows come with every diagnosis, saying when nothing measures it.
    expect(d.evidence).toEqual([
      expect.objectContaining({ kind: "blockhash_expired", value: 1 }),
      {
        kind: "provider_drop_rate",
        detail: "no sends through badrpc within 15 min to measure its drop rate",
        value: null,
      },
      {
        kind: "other_providers_drop_rate",
        detail: "no sends through other providers within 15 min to compare with",
        value: null,
      },
    ]);
  });

  test("the payer's next attempt at the program landed: superseded_by_retry", () => {
    const retry: Neighbour = {
      sig: "S1",
      payer: "payer-1",
      program: "P",
      rpcHash: "x",
      sentAt: T + 4000,
      outcome: "landed",
      cuPriceMicroLamports: null,
    };
    const d = classifyDrop(attempt, { ...base, neighbours: [retry] });
    expect(d.dropClass).toBe("superseded_by_retry");
    expect(d.evidence[1]).toMatchObject({ kind: "landed_retry", value: "S1" });
  });

  test("a busy payer landing other work is not a retry", () => {
    const work: Neighbour[] = [0, 4000, 9000].map((dt, i) => ({
      sig: `W${i}`,
      payer: "payer-1",
      program: "P",
      rpcHash: "x",
      sentAt: T + dt + 1,
      outcome: "landed",
      cuPriceMicroLamports: null,
    }));
    expect(classifyDrop(attempt, { ...base, neighbours: work }).dropClass).toBe("expired_blockhash");
  });

  test("a blockhash with no blocks left at send: stale_blockhash_at_send", () => {
    const d = classifyDrop(attempt, { heightAtExpiry: 1001, heightAtSend: 995, neighbours: [] });
    expect(d.dropClass).toBe("stale_blockhash_at_send");
    expect(d.evidence[1]).toMatchObject({ kind: "blocks_left_at_send", value: 5 });
    expect(
      classifyDrop(attempt, { heightAtExpiry: 1001, heightAtSend: 1010, neighbours: [] }).confidence,
    ).toBeGreaterThan(d.confidence);
  });

  test("a provider dropping far above the others in the window: rpc_not_forwarding", () => {
    const neighbours = [...peers(60, "bad0000000000000", 2), ...peers(200, "good000000000000", 50)];
    const d = classifyDrop(attempt, { ...base, neighbours });
    expect(d.dropClass).toBe("rpc_not_forwarding");
    expect(d.evidence.map((e) => e.kind)).toEqual([
      "blockhash_expired",
      "provider_drop_rate",
      "other_providers_drop_rate",
    ]);
    expect(d.evidence[1].value).toBe(0.5);
    expect(d.evidence[2].value).toBe(0.02);
  });

  test("too few samples or overlapping intervals: no provider blame", () => {
    expect(
      classifyDrop(attempt, {
        ...base,
        neighbours: [...peers(10, "bad0000000000000", 2), ...peers(200, "good000000000000", 50)],
      }).dropClass,
    ).toBe("expired_blockhash");
    expect(
      classifyDrop(attempt, {
        ...base,
        neighbours: [...peers(60, "bad0000000000000", 10), ...peers(200, "good000000000000", 12)],
      }).dropClass,
    ).toBe("expired_blockhash");
  });

  test("a network-wide spike in the same minute: network_congestion", () => {
    const minute = Array.from({ length: 40 }, (_, i) => ({
      sig: `m${i}`,
      payer: `q${i}`,
      program: "P",
      rpcHash: i % 2 ? "r1" : "r2",
      sentAt: T + i * 1000 - 20_000,
      outcome: (i % 2 === 0 ? "dropped" : "landed") as Neighbour["outcome"],
      cuPriceMicroLamports: null,
    }));
    const calm = Array.from({ length: 100 }, (_, i) => ({
      sig: `c${i}`,
      payer: `c${i}`,
      program: "P",
      rpcHash: i % 3 ? "r1" : attempt.rpcHash,
      sentAt: T + 120_000 + i * 5000,
      outcome: (i % 50 === 0 ? "dropped" : "landed") as Neighbour["outcome"],
      cuPriceMicroLamports: null,
    }));
    const d = classifyDrop(attempt, { ...base, neighbours: [...minute, ...calm] });
    expect(d.dropClass).toBe("network_congestion");
    expect(d.evidence[1]).toMatchObject({ kind: "minute_drop_rate", value: 0.5 });
  });

  test("peers that landed paid clearly more per compute unit, and cheap sends dropped more: priority_fee_too_low", () => {
    const cheap = { ...attempt, cuPriceMicroLamports: 100 };
    const cheapDrops = Array.from({ length: 4 }, (_, i) => ({
      sig: `x${i}`,
      payer: `x${i}`,
      program: "P",
      rpcHash: "r",
      sentAt: T + i * 1000,
      outcome: "dropped" as const,
      cuPriceMicroLamports: 100 + i,
    }));
    const landed = Array.from({ length: 20 }, (_, i) => ({
      sig: `l${i}`,
      payer: `l${i}`,
      program: "P",
      rpcHash: "r",
      sentAt: T + i * 1000,
      outcome: "landed" as const,
      cuPriceMicroLamports: 5000 + i * 100,
    }));
    const d = classifyDrop(cheap, { ...base, neighbours: [...landed, ...cheapDrops] });
    expect(d.dropClass).toBe("priority_fee_too_low");
    expect(d.evidence[1]).toMatchObject({ kind: "cu_price", value: 100 });
    expect(d.evidence[2]).toMatchObject({ kind: "landed_peers_cu_price_p25", value: 5500 });
    expect(d.evidence[3]).toMatchObject({ kind: "cheap_sends_dropped", value: 1 });
    expect(d.evidence.slice(4).map((e) => e.kind)).toEqual(["provider_drop_rate", "other_providers_drop_rate"]);
    expect(
      classifyDrop({ ...attempt, cuPriceMicroLamports: 9000 }, { ...base, neighbours: [...landed, ...cheapDrops] })
        .dropClass,
    ).toBe("expired_blockhash");
    // Landed peers paying more is not enough: with no sign that cheap sends drop more, the fee is not blamed.
    expect(classifyDrop(cheap, { ...base, neighbours: landed }).dropClass).toBe("expired_blockhash");
  });

  test("a retry outranks a stale blockhash", () => {
    const retry: Neighbour = {
      sig: "S1",
      payer: "payer-1",
      program: "P",
      rpcHash: "x",
      sentAt: T + 4000,
      outcome: "landed",
      cuPriceMicroLamports: null,
    };
    expect(classifyDrop(attempt, { heightAtExpiry: 1001, heightAtSend: 999, neighbours: [retry] }).dropClass).toBe(
      "superseded_by_retry",
    );
  });
});
