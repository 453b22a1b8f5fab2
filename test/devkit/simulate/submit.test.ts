// The ingest client against a fake POST /v1/ingest: body shape ({apiKey, envelopes}), batching,
// 202 accounting, 429 + Retry-After back-off, and errors carrying the server's error code.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import {
  batchEnvelopes,
  type Envelope,
  retryAfterMs,
  SDK_VERSION,
  SubmitError,
  submitEnvelopes,
} from "../../../devkit/simulate/index.ts";

const envelope = (i: number): Envelope => ({
  sig: null,
  program: "11111111111111111111111111111111",
  blockhash: "CmpNeggWJ4JaWJeJ8YKN1Zypmk7uvQq3PECGUCAEMbky",
  lastValidBlockHeight: 1050 + i,
  sentAt: 1_750_000_000_000 + i,
  rpcHash: "0123456789abcdef",
  rpcLabel: "alpha",
  walletAdapter: "Phantom",
  kind: "preflight",
  preflightError: "Transaction simulation failed: Blockhash not found",
  simulationLogs: [],
  payer: "JBMqHqytSmNUt2hxbGFWndX8DuQoiH9YcJRpT3qgCsqk",
  sdkVersion: SDK_VERSION,
});

interface Received {
  path: string;
  body: { apiKey: string; envelopes: Envelope[] };
}

let server: Server<undefined>;
let received: Received[] = [];
/** Scripted answers, consumed one per request; default 202. */
let script: (() => Response)[] = [];

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = (await request.json()) as Received["body"];
      received.push({ path: new URL(request.url).pathname, body });
      const next = script.shift();
      return next ? next() : Response.json({ accepted: body.envelopes.length }, { status: 202 });
    },
  });
});
afterAll(async () => {
  await server.stop(true);
});

const endpoint = () => `http://127.0.0.1:${server.port}/`;

function reset(...answers: (() => Response)[]) {
  received = [];
  script = answers;
}

describe("submitEnvelopes", () => {
  test("posts {apiKey, envelopes} to /v1/ingest in batches and sums `accepted`", async () => {
    reset();
    const envelopes = Array.from({ length: 5 }, (_, i) => envelope(i));
    const result = await submitEnvelopes(endpoint(), "txr_live_test", envelopes, { batchSize: 2 });
    expect(result).toEqual({ accepted: 5, batches: 3, retries: 0 });
    expect(received.map((r) => r.path)).toEqual(["/v1/ingest", "/v1/ingest", "/v1/ingest"]);
    expect(received.map((r) => r.body.envelopes.length)).toEqual([2, 2, 1]);
    expect(received[0].body.apiKey).toBe("txr_live_test");
    expect(received.flatMap((r) => r.body.envelopes)).toEqual(envelopes);
  });

  test("429 waits for Retry-After, then resends the same batch", async () => {
    reset(
      () =>
        new Response(JSON.stringify({ error: { code: "rate_limited", message: "slow down" } }), {
          status: 429,
          headers: { "retry-after": "2" },
        }),
    );
    const waits: number[] = [];
    const result = await submitEnvelopes(endpoint(), "k", [envelope(1)], { sleep: async (ms) => void waits.push(ms) });
    expect(result).toEqual({ accepted: 1, batches: 1, retries: 1 });
    expect(waits).toEqual([2000]);
    expect(received).toHaveLength(2);
    expect(received[1].body).toEqual(received[0].body);
  });

  test("without Retry-After it backs off exponentially and gives up after maxRetries", async () => {
    reset(...Array.from({ length: 3 }, () => () => new Response("", { status: 429 })));
    const waits: number[] = [];
    const failure = await submitEnvelopes(endpoint(), "k", [envelope(1)], {
      maxRetries: 2,
      sleep: async (ms) => void waits.push(ms),
    }).catch((e) => e);
    expect(failure).toBeInstanceOf(SubmitError);
    expect(failure.status).toBe(429);
    expect(waits).toEqual([500, 1000]);
  });

  test("a 400 is not retried and carries the server's error code", async () => {
    reset(() =>
      Response.json(
        { error: { code: "schema_violation", message: "envelopes[0].sentAt: expected number" } },
        { status: 400 },
      ),
    );
    const failure = await submitEnvelopes(endpoint(), "k", [envelope(1)]).catch((e) => e);
    expect(failure).toBeInstanceOf(SubmitError);
    expect(failure.message).toBe("ingest answered 400 schema_violation: envelopes[0].sentAt: expected number");
    expect(failure.code).toBe("schema_violation");
    expect(received).toHaveLength(1);
  });

  test("Retry-After as an HTTP date; batches also split by body size", () => {
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:10 GMT", Date.parse("Thu, 01 Jan 2026 00:00:00 GMT"))).toBe(10_000);
    expect(retryAfterMs("0")).toBe(0);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs("soon")).toBeNull();
    const size = JSON.stringify(envelope(0)).length + 1;
    expect(batchEnvelopes([envelope(0), envelope(1), envelope(2)], 1000, size * 2).map((b) => b.length)).toEqual([
      2, 1,
    ]);
  });
});
