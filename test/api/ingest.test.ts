// POST /v1/ingest against a real server on loopback: every status code of docs/api.md#post-v1ingest with
// the error shape of docs/api.md#errors, and nothing from a rejected batch ever reaches the lake; in JavaScript on
// the main thread, and on worker threads with the native fast path, alike.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashKey, revokeKey } from "../../src/control";
import { flushSpool } from "../../src/lake/flush-spool";
import { makeEnvelope, makePreflightEnvelope, randomSignature } from "../helpers/envelopes";
import { lakeRows, type TestServer, testServer } from "../helpers/server";

for (const [workers, native] of [
  ["0", "off"],
  ["2", "on"],
])
  describe(`INGEST_WORKERS=${workers} INGEST_NATIVE=${native}`, () => {
    let t: TestServer;
    let key: string;
    const acceptedSigs: string[] = [];

    let acceptedTotal = 0;

    beforeAll(async () => {
      t = await testServer({
        INGEST_WORKERS: workers,
        INGEST_NATIVE: native,
        INGEST_MAX_BODY_BYTES: "65536",
        INGEST_MAX_BATCH: "50",
        INGEST_BURST: "400",
        INGEST_RATE_PER_SECOND: "1",
      });
      key = t.key("acme");
      const ingest = t.ingest;
      t.ingest = async (body, headers) => {
        const response = await ingest(body, headers);
        if (response.status === 202) acceptedTotal += response.body.accepted;
        return response;
      };
    });
    afterAll(() => t.stop());

    function expectError(response: { status: number; body: any }, status: number, code: string, messagePart?: string) {
      expect(response.status).toBe(status);
      expect(Object.keys(response.body)).toEqual(["error"]);
      expect(response.body.error.code).toBe(code);
      expect(typeof response.body.error.message).toBe("string");
      if (messagePart) expect(response.body.error.message).toContain(messagePart);
    }

    describe("accepts", () => {
      test("202 with the count, key in the header", async () => {
        const envelopes = [makeEnvelope(), makeEnvelope(), makePreflightEnvelope({ sig: randomSignature() })];
        const response = await t.ingest({ envelopes }, { "x-api-key": key });
        expect(response.status).toBe(202);
        expect(response.body).toEqual({ accepted: 3 });
        expect(response.headers.get("ratelimit-limit")).toBe("400");
        acceptedSigs.push(...envelopes.map((e) => e.sig!));
      });

      test("202 with the key in the body (what the SDK sends)", async () => {
        const envelope = makeEnvelope();
        const response = await t.ingest({ apiKey: key, envelopes: [envelope] });
        expect(response.status).toBe(202);
        expect(response.body).toEqual({ accepted: 1 });
        acceptedSigs.push(envelope.sig!);
      });

      test("preflight with a null sig and the optional fields", async () => {
        const response = await t.ingest({
          apiKey: key,
          envelopes: [
            makePreflightEnvelope({
              cuLimit: 200_000,
              cuPriceMicroLamports: 5000,
              maxRetries: 0,
              skipPreflight: false,
              sendPath: "rpc",
              nonce: false,
            }),
          ],
        });
        expect(response.status).toBe(202);
      });

      test("unknown fields are ignored, not stored, and do not fail the batch", async () => {
        const envelope = { ...makeEnvelope(), futureField: "x" };
        const response = await t.ingest({ apiKey: key, envelopes: [envelope] });
        expect(response.status).toBe(202);
        acceptedSigs.push(envelope.sig!);
      });

      test("an empty batch is accepted with zero", async () => {
        expect((await t.ingest({ apiKey: key, envelopes: [] })).body).toEqual({ accepted: 0 });
      });
    });

    describe("rejects with the seed's error shape", () => {
      test("400 bad_request for unparsable JSON", async () => {
        expectError(await t.ingest("{not json", { "x-api-key": key }), 400, "bad_request");
      });

      test("400 schema_violation naming the field path", async () => {
        const envelopes = [makeEnvelope(), makeEnvelope(), makeEnvelope(), { ...makeEnvelope(), sentAt: "yesterday" }];
        expectError(await t.ingest({ apiKey: key, envelopes }), 400, "schema_violation", "envelopes[3].sentAt");
      });

      test.each([
        ["sig", { sig: "not-base58-0OIl" }, "envelopes[0].sig"],
        ["sig of the wrong length", { sig: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" }, "envelopes[0].sig"],
        ["program", { program: "../../etc/passwd" }, "envelopes[0].program"],
        ["blockhash", { blockhash: "xyz" }, "envelopes[0].blockhash"],
        ["lastValidBlockHeight", { lastValidBlockHeight: -1 }, "envelopes[0].lastValidBlockHeight"],
        ["rpcHash", { rpcHash: "https://mainnet.helius-rpc.com" }, "envelopes[0].rpcHash"],
        ["kind", { kind: "maybe" }, "envelopes[0].kind"],
        ["payer", { payer: "payer!" }, "envelopes[0].payer"],
        ["sentAt in seconds", { sentAt: 1_763_700_000 }, "envelopes[0].sentAt"],
        ["simulationLogs", { simulationLogs: "log" }, "envelopes[0].simulationLogs"],
        ["sig null on a send", { sig: null }, "envelopes[0].sig"],
        ["preflightError on a send", { preflightError: "boom" }, "envelopes[0].preflightError"],
        ["missing field", { walletAdapter: undefined }, "envelopes[0].walletAdapter"],
        ["negative sentSlot", { sentSlot: -1 }, "envelopes[0].sentSlot"],
        ["sentSlot beyond a safe integer", { sentSlot: 1e18 }, "envelopes[0].sentSlot"],
        ["fractional sentSlot", { sentSlot: 289_000_000.5 }, "envelopes[0].sentSlot"],
        ["sentSlot as text", { sentSlot: "289000000" }, "envelopes[0].sentSlot"],
      ])("400 for a bad %s", async (_name, override, path) => {
        const envelope = JSON.parse(JSON.stringify({ ...makeEnvelope(), ...override }));
        expectError(await t.ingest({ apiKey: key, envelopes: [envelope] }), 400, "schema_violation", path);
      });

      test("400 for a preflight without its error", async () => {
        expectError(
          await t.ingest({ apiKey: key, envelopes: [makePreflightEnvelope({ preflightError: null })] }),
          400,
          "schema_violation",
          "envelopes[0].preflightError",
        );
      });

      test("400 when envelopes is not an array or the body not an object", async () => {
        expectError(await t.ingest({ apiKey: key, envelopes: "many" }), 400, "schema_violation", "envelopes");
        expectError(await t.ingest(`[1,2]`, { "x-api-key": key }), 400, "schema_violation");
      });

      test("401 for a missing, malformed, unknown or revoked key", async () => {
        const envelopes = [makeEnvelope()];
        expectError(await t.ingest({ envelopes }), 401, "unauthorized", "missing");
        expectError(await t.ingest({ envelopes }, { "x-api-key": "hello" }), 401, "unauthorized");
        expectError(await t.ingest({ apiKey: `txr_live_${"1".repeat(32)}`, envelopes }), 401, "unauthorized");
        const revoked = t.key("acme");
        const id = t.ctx.control
          .query<{ id: string }, [string]>("SELECT id FROM api_keys WHERE key_hash = ?")
          .get(hashKey(revoked))!.id;
        expect(revokeKey(t.ctx.control, id, Date.now())).toBe(true);
        expectError(await t.ingest({ apiKey: revoked, envelopes }), 401, "unauthorized");
      });

      test("403 for a read-only (query-scoped) key", async () => {
        expectError(await t.ingest({ apiKey: t.key("acme", "read"), envelopes: [makeEnvelope()] }), 403, "forbidden");
      });

      test("413 for a body over the limit and for a batch over the envelope limit", async () => {
        const big = JSON.stringify({ apiKey: key, envelopes: [makeEnvelope()], padding: "x".repeat(70_000) });
        expectError(await t.ingest(big), 413, "payload_too_large");
        const many = Array.from({ length: 51 }, () => makeEnvelope());
        expectError(await t.ingest({ apiKey: key, envelopes: many }), 413, "payload_too_large", "50");
      });

      test("413 when a chunked body without Content-Length runs over", async () => {
        const chunk = new TextEncoder().encode(
          `${JSON.stringify({ apiKey: key, envelopes: [] }).slice(0, -1)},"pad":"${"x".repeat(70_000)}"}`,
        );
        const stream = new ReadableStream({
          start(controller) {
            for (let i = 0; i < chunk.length; i += 8192) controller.enqueue(chunk.subarray(i, i + 8192));
            controller.close();
          },
        });
        const response = await fetch(`${t.url}/v1/ingest`, {
          method: "POST",
          body: stream,
          headers: { "content-type": "application/json" },
        });
        expect(response.status).toBe(413);
        expect(((await response.json()) as any).error.code).toBe("payload_too_large");
      });

      test("429 with Retry-After and RateLimit headers once the key's bucket is empty", async () => {
        const rateKey = t.key("bursty");
        const batch = () => Array.from({ length: 50 }, () => makeEnvelope());
        let response: Awaited<ReturnType<typeof t.ingest>> | undefined;
        for (let i = 0; i < 9; i++) {
          response = await t.ingest({ apiKey: rateKey, envelopes: batch() });
          if (response.status === 429) break;
        }
        expectError(response!, 429, "rate_limited");
        expect(Number(response!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(response!.headers.get("ratelimit-remaining")).not.toBeNull();
        expect(response!.headers.get("ratelimit-reset")).not.toBeNull();
      });
    });

    test("the lake holds exactly the accepted envelopes, with their values, and no rejected ones", async () => {
      await t.server.stop(); // seals the spool
      await flushSpool(t.ctx);
      const rows = await lakeRows(t.ctx, "sig, program, kind, sent_at, rpc_hash, account_id, day");
      const sigs = new Set(rows.map((r) => r.sig));
      for (const sig of acceptedSigs) expect(sigs.has(sig)).toBe(true);
      expect(rows.length).toBe(acceptedTotal);
      expect(acceptedTotal).toBe(3 + 1 + 1 + 1 + 8 * 50); // the rate-limit test got 8 batches in before its 429
      const acme = await lakeRows(
        t.ctx,
        "count(*) AS n, count(sig) AS with_sig",
        "sent_at = 1763700000000 AND rpc_hash = 'a1b2c3d4e5f60718'",
      );
      expect(acme[0].n).toBe(rows.length);
      const stored = await lakeRows(t.ctx, "*", `sig = '${acceptedSigs[0]}'`);
      expect(stored[0]).toMatchObject({
        program: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
        kind: "send",
        rpc_label: "helius",
        wallet_adapter: "Phantom",
        last_valid_block_height: 289_000_150,
        preflight_error: null,
        simulation_logs: [],
      });
      expect(Object.keys(stored[0])).not.toContain("futureField");
    });
  });
