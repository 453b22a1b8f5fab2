// A full simulated run: every envelope valid, every ground truth confirmed by the chain (landed and
// failed attempts are in the ledger with the recorded error; drops and preflights are not; every
// dropped blockhash is expired at the end), the same seed replays the same run, and a mid-run
// redeploy turns the app program's successes into on-chain failures.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Localnet, startLocalnet } from "../../../devkit/localnet/index.ts";
import {
  envelopeSchema,
  formatSummary,
  type RunResult,
  runTraffic,
  SCENARIOS,
} from "../../../devkit/simulate/index.ts";

const providers = [
  { label: "alpha", dropRate: 0 },
  { label: "charlie", dropRate: 0.5, seed: 99 },
];
const equalMix = Object.fromEntries(SCENARIOS.map((kind) => [kind, 1]));

let localnet: Localnet;
let result: RunResult;

beforeAll(async () => {
  localnet = await startLocalnet({ blockTimeMs: 0 });
  result = await runTraffic({
    rpcUrl: localnet.url,
    attempts: 33,
    seed: 1,
    providers,
    mix: equalMix,
    payers: 3,
    now: () => 1_750_000_000_000,
  });
});
afterAll(async () => {
  await localnet.stop();
});

describe("runTraffic", () => {
  test("every envelope is valid and every attempt behaved as its scenario intended", () => {
    expect(result.attempts).toHaveLength(33);
    for (const { envelope, truth } of result.attempts) {
      const parsed = envelopeSchema.safeParse(envelope);
      expect(parsed.success).toBe(true);
      expect(truth.consistent).toBe(true);
      expect(envelope.sig === null).toBe(truth.scenario === "preflight_unsigned");
      expect(envelope.kind).toBe(truth.outcome === "preflight" ? "preflight" : "send");
      expect(envelope.preflightError === null).toBe(truth.outcome !== "preflight");
    }
    expect(result.summary.inconsistent).toBe(0);
    expect(new Set(result.attempts.map((a) => a.truth.scenario))).toEqual(new Set(SCENARIOS));
    expect(Object.values(result.summary.outcomes).reduce((a, b) => a + b, 0)).toBe(33);
    for (const outcome of ["landed", "failed_onchain", "dropped", "preflight"] as const)
      expect(result.summary.outcomes[outcome]).toBeGreaterThan(0);
  });

  test("the chain agrees with every ground truth", () => {
    for (const { envelope, truth } of result.attempts) {
      const record = envelope.sig ? localnet.chain.ledger.get(envelope.sig) : undefined;
      if (truth.outcome === "landed" || truth.outcome === "failed_onchain") {
        expect(record?.err ?? null).toEqual(truth.err);
        expect(record?.slot).toBe(truth.slot!);
      } else {
        expect(record).toBeUndefined();
      }
      if (truth.outcome === "dropped")
        expect(localnet.chain.blockHeight).toBeGreaterThan(envelope.lastValidBlockHeight);
    }
  });

  test("drops come from the non-forwarding provider (or stale blockhashes), never from alpha", () => {
    const { alpha, charlie } = result.summary.providers;
    expect(alpha.notForwarded).toBe(0);
    expect(charlie.notForwarded).toBeGreaterThan(0);
    expect(charlie.notForwarded).toBeLessThanOrEqual(charlie.sends);
    const alphaDrops = result.attempts.filter((a) => a.truth.provider === "alpha" && a.truth.outcome === "dropped");
    for (const drop of alphaDrops) expect(drop.truth.dropCause).toBe("stale_blockhash");
    const hashes = new Set(result.attempts.map((a) => `${a.envelope.rpcLabel}:${a.envelope.rpcHash}`));
    expect(hashes.size).toBe(2);
    expect(formatSummary(result.summary)).toContain("charlie");
  });

  test("the same seed replays the same run on a fresh chain", async () => {
    const again = await startLocalnet({ blockTimeMs: 0 });
    try {
      const replay = await runTraffic({
        rpcUrl: again.url,
        attempts: 33,
        seed: 1,
        providers,
        mix: equalMix,
        payers: 3,
        now: () => 1_750_000_000_000,
      });
      const fingerprint = (r: RunResult) =>
        r.attempts.map((a) => [
          a.truth.scenario,
          a.truth.provider,
          a.truth.outcome,
          a.envelope.sig,
          a.envelope.payer,
          a.envelope.blockhash,
        ]);
      expect(fingerprint(replay)).toEqual(fingerprint(result));
    } finally {
      await again.stop();
    }
  });

  test("redeployAt swaps the app program mid-run: app calls land before, fail with 0xc after", async () => {
    const chain = await startLocalnet({ blockTimeMs: 0 });
    try {
      const run = await runTraffic({
        rpcUrl: chain.url,
        attempts: 12,
        seed: 5,
        providers: [{ label: "alpha", dropRate: 0 }],
        mix: { app_call: 1 },
        redeployAt: 6,
        blocksPerAttempt: 1,
      });
      expect(run.deploys).toHaveLength(1);
      const outcomes = run.attempts.map((a) => a.truth.outcome);
      expect(outcomes).toEqual([...Array(6).fill("landed"), ...Array(6).fill("failed_onchain")]);
      expect(run.attempts.slice(6).every((a) => a.truth.errCode === 12)).toBe(true);
      const programData = chain.chain.getAccount(run.deploys[0].programDataAddress)!;
      expect(Number(Buffer.from(programData.data).readBigUInt64LE(4))).toBe(run.deploys[0].slot);
      expect(run.deploys[0].slot).toBeGreaterThan(run.attempts[5].truth.slot!);
      expect(run.deploys[0].slot).toBeLessThan(run.attempts[6].truth.slot!);
    } finally {
      await chain.stop();
    }
  });
});
