// Issue 3's end-to-end check: real transactions on the LiteSVM local chain (landed, failed on chain
// with token and system errors, compute exceeded, preflight failures, drops by a provider that does
// not forward, expired blockhashes), their envelopes ingested over HTTP, flushed, resolved against
// the chain, then why/ and diagnose-drop/ must tell each attempt's truth.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Localnet, startLocalnet } from "../../../devkit/localnet";
import { type Attempt, runTraffic, submitEnvelopes } from "../../../devkit/simulate";
import { loadIdls } from "../../../src/chain/idl";
import { DROP_CLASSES } from "../../../src/chain/resolve";
import { createRpcClient } from "../../../src/chain/rpc";
import { flushSpool } from "../../../src/lake/flush-spool";
import { resolveUntilSettled } from "../../helpers/resolve";
import { type TestServer, testServer } from "../../helpers/server";

let chain: Localnet;
let t: TestServer;
let attempts: Attempt[];
let resolveRequests = 0;

beforeAll(async () => {
  chain = await startLocalnet({ blockTimeMs: 0 });
  t = await testServer({ SOLANA_RPC_URL: chain.url });
  const run = await runTraffic({
    rpcUrl: chain.url,
    attempts: 160,
    seed: 11,
    providers: [
      { label: "alpha", dropRate: 0 },
      { label: "charlie", dropRate: 0.5 },
    ],
    blocksPerAttempt: 1,
    payers: 40,
  });
  attempts = run.attempts;
  const key = t.key("acme");
  const submitted = await submitEnvelopes(
    t.url,
    key,
    attempts.map((a) => a.envelope),
  );
  expect(submitted.accepted).toBe(attempts.length);
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
  const rpc = createRpcClient({ url: chain.url });
  const summary = await resolveUntilSettled(t.ctx, { rpc, idls: loadIdls(t.ctx.paths.root), recheckDelayMs: 20 });
  resolveRequests = rpc.stats().httpRequests;
  expect(summary.stillPending).toBe(0);
}, 120_000);

afterAll(async () => {
  await t.stop();
  await chain.stop();
});

const withSig = () => attempts.filter((a) => a.envelope.sig !== null);

describe("every attempt's outcome matches what the chain did", () => {
  test("the traffic covers every outcome", () => {
    const outcomes = new Set(attempts.map((a) => a.truth.outcome));
    expect([...outcomes].sort()).toEqual(["dropped", "failed_onchain", "landed", "preflight"]);
  });

  test("why/{sig}: outcome, program and error code for each signature", async () => {
    for (const attempt of withSig()) {
      const response = await t.get(`/v1/why/${attempt.envelope.sig}`);
      expect(response.status).toBe(200);
      const story = response.body;
      expect(story.sig).toBe(attempt.envelope.sig);
      expect({ sig: story.sig, outcome: story.outcome }).toEqual({
        sig: attempt.envelope.sig,
        outcome: attempt.truth.outcome,
      });
      expect(story.program).toBe(attempt.envelope.program);
      for (const field of [
        "instruction",
        "ixPath",
        "cpiDepth",
        "errCode",
        "errName",
        "cuUsed",
        "cuRequested",
        "payer",
        "payerBotScore",
        "issue",
        "failingProgram",
        "failingInstruction",
      ]) {
        expect(story).toHaveProperty(field);
      }
      if (attempt.truth.outcome === "failed_onchain") {
        expect(story.errCode).toBe(attempt.truth.errCode);
        expect(story.failingProgram).toBe(attempt.truth.failingProgram);
        expect(story.issue.fingerprint).toMatch(/^v1:[0-9a-f]{16}$/);
        expect(story.issue.count7d).toBeGreaterThanOrEqual(1);
        expect(typeof story.cuUsed).toBe("number");
      }
      if (attempt.truth.outcome === "landed") {
        expect(story.errCode).toBeNull();
        expect(story.errName).toBeNull();
        expect(story.issue).toBeNull();
        expect(typeof story.slot).toBe("number");
      }
      if (attempt.truth.outcome === "dropped") expect(story.issue.fingerprint).toMatch(/^v1:/);
    }
  });

  test("compute exhaustion and token errors are named", async () => {
    const compute = attempts.find(
      (a) => a.truth.scenario === "compute_exceeded" && a.truth.outcome === "failed_onchain",
    )!;
    const story = (await t.get(`/v1/why/${compute.envelope.sig}`)).body;
    expect(story.errName).toBe("ComputationalBudgetExceeded");
    expect(story.computeExceeded).toBe(true);
    expect(story.cuRequested).toBe(compute.envelope.cuLimit ?? story.cuRequested);
    const token = attempts.find(
      (a) => a.truth.scenario === "token_insufficient" && a.truth.outcome === "failed_onchain",
    )!;
    const tokenStory = (await t.get(`/v1/why/${token.envelope.sig}`)).body;
    expect(tokenStory.errCode).toBe(1);
    expect(tokenStory.errName).toBe("InsufficientFunds");
  });

  test("preflight failures are decoded from the envelope's own error", async () => {
    const preflights = withSig().filter((a) => a.truth.outcome === "preflight");
    expect(preflights.length).toBeGreaterThan(0);
    for (const attempt of preflights) {
      const story = (await t.get(`/v1/why/${attempt.envelope.sig}`)).body;
      expect(story.outcome).toBe("preflight");
      expect(story.errName).not.toBeNull();
      expect(story.issue.fingerprint).toMatch(/^v1:/);
    }
  });

  test("diagnose-drop/{sig}: a class with evidence for every drop, null for the rest", async () => {
    let notForwarding = 0;
    for (const attempt of withSig()) {
      const response = await t.get(`/v1/diagnose-drop/${attempt.envelope.sig}`);
      expect(response.status).toBe(200);
      const diagnosis = response.body;
      expect(diagnosis.outcome).toBe(attempt.truth.outcome);
      expect(diagnosis.provider.rpcHash).toBe(attempt.envelope.rpcHash);
      // The provider's 7-day figures are every resolved send of it in this run (hourly counts, control migration 4).
      const sameProvider = attempts.filter(
        (a) => a.envelope.rpcHash === attempt.envelope.rpcHash && a.envelope.kind !== "preflight",
      );
      expect(diagnosis.provider.sends7d).toBe(sameProvider.length);
      expect(diagnosis.provider.dropRate).toBeCloseTo(
        sameProvider.filter((a) => a.truth.outcome === "dropped").length / sameProvider.length,
        10,
      );
      expect(typeof diagnosis.advice).toBe("string");
      if (attempt.truth.outcome !== "dropped") {
        expect(diagnosis.dropClass).toBeNull();
        continue;
      }
      expect(diagnosis.evidence.length).toBeGreaterThan(0);
      expect(diagnosis.evidence[0].kind).toBe("blockhash_expired");
      // The simulator sends everything within seconds and jumps block height by hand, so only the
      // provider comparison is meaningful here; unit tests (drops.test.ts) pin each class on
      // controlled inputs.
      expect(DROP_CLASSES as readonly string[]).toContain(diagnosis.dropClass);
      // The class claims its provider drops far more than the others: only charlie (50%) does.
      if (diagnosis.dropClass === "rpc_not_forwarding") {
        expect(attempt.truth.provider).toBe("charlie");
        expect(diagnosis.evidence.map((e: { kind: string }) => e.kind)).toEqual([
          "blockhash_expired",
          "provider_drop_rate",
          "other_providers_drop_rate",
        ]);
        if (attempt.truth.dropCause === "provider_not_forwarding") notForwarding++;
      }
    }
    const providerDrops = withSig().filter((a) => a.truth.dropCause === "provider_not_forwarding").length;
    expect(notForwarding).toBeGreaterThanOrEqual(providerDrops / 2);
  });

  test("the resolver stays cheap: HTTP requests per 1000 attempts", () => {
    expect(resolveRequests).toBeLessThan(attempts.length);
  });
});

describe("errors", () => {
  test("400 for a malformed signature, 404 for one nobody knows", async () => {
    const bad = await t.get("/v1/why/not-a-signature");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("bad_request");
    expect((await t.get("/v1/diagnose-drop/0OIl")).status).toBe(400);
    const unknown = "5".repeat(87);
    const missing = await t.get(`/v1/why/${unknown}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
    expect((await t.get(`/v1/diagnose-drop/${unknown}`)).status).toBe(404);
  });
});
