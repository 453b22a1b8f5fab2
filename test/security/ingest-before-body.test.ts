// What an ingest request costs before its key is known: a key in `x-api-key` is checked before the
// body is read, and an address sending requests without a key that authenticates (a bad one, none,
// or a body that never authenticates) has a budget of them (INGEST_UNAUTHENTICATED_PER_MINUTE), after
// which its requests are refused before a byte of their body is read. A batch refused by the
// account's program quota costs its key no rate tokens.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createAccountKey } from "../../src/control";
import { makeEnvelope, randomAddress } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

const BUDGET = 3;
let t: TestServer;
let ingestKey: string;

beforeAll(async () => {
  t = await testServer({
    INGEST_UNAUTHENTICATED_PER_MINUTE: String(BUDGET),
    TRUSTED_PROXY_HOPS: "1",
    INGEST_BURST: "10",
    INGEST_RATE_PER_SECOND: "1",
    ACCOUNT_PROGRAMS_PER_DAY: "2",
  });
  ingestKey = createAccountKey(t.ctx.control, "browser", "ingest", Date.now()).key;
});
afterAll(() => t.stop());

const from = (ip: string, headers: Record<string, string> = {}) => ({ "x-forwarded-for": ip, ...headers });
const NOT_JSON = "{ this is not json";

test("a bad header key is refused before the body is parsed: 401, then 429 once the address's budget is spent", async () => {
  const answers = [];
  for (let i = 0; i < BUDGET + 2; i++)
    answers.push(await t.ingest(NOT_JSON, from("203.0.113.10", { "x-api-key": "txr_ingest_forged" })));
  expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 429, 429]);
  expect(answers[0].body).toEqual({ error: { code: "unauthorized", message: "invalid or revoked API key" } });
  expect(answers[BUDGET].body.error.code).toBe("rate_limited");
  expect(answers[BUDGET].body.error.message).toContain("INGEST_UNAUTHENTICATED_PER_MINUTE");
  expect(Number(answers[BUDGET].headers.get("retry-after"))).toBeGreaterThan(0);

  // Keyless bodies from the spent address are not read either: no 400 for the JSON it never parsed.
  expect((await t.ingest(NOT_JSON, from("203.0.113.10"))).status).toBe(429);
  // A key that authenticates in the header is not this budget's business; another address has its own.
  const envelopes = [makeEnvelope()];
  expect((await t.ingest({ envelopes }, from("203.0.113.10", { "x-api-key": ingestKey }))).status).toBe(202);
  expect((await t.ingest(NOT_JSON, from("203.0.113.11", { "x-api-key": "txr_ingest_forged" }))).status).toBe(401);
  // A read key in the header is refused before the body too.
  const readKey = createAccountKey(t.ctx.control, "browser", "read", Date.now()).key;
  expect((await t.ingest(NOT_JSON, from("203.0.113.12", { "x-api-key": readKey }))).body.error.code).toBe("forbidden");
});

test("unparseable keyless bodies spend the budget; a body key that authenticates gives its request back", async () => {
  const keyless = [];
  for (let i = 0; i < BUDGET + 1; i++) keyless.push((await t.ingest(NOT_JSON, from("198.51.100.20"))).status);
  expect(keyless).toEqual([400, 400, 400, 429]);

  // sendBeacon cannot set headers: its key is in the body, and an honest browser never runs out.
  const beacons = [];
  for (let i = 0; i < BUDGET + 3; i++)
    beacons.push((await t.ingest({ apiKey: ingestKey, envelopes: [] }, from("198.51.100.21"))).status);
  expect(beacons).toEqual(Array(BUDGET + 3).fill(202));
});

test("a batch the program quota refuses costs its key no rate tokens", async () => {
  const key = createAccountKey(t.ctx.control, "quota", "ingest", Date.now()).key;
  const headers = from("192.0.2.30", { "x-api-key": key });
  // Three programs against a quota of two: refused whole, with 9 of the key's 10 tokens asked for.
  const three = [randomAddress(), randomAddress(), randomAddress()];
  const refused = await t.ingest(
    { envelopes: Array.from({ length: 9 }, (_, i) => makeEnvelope({ program: three[i % 3] })) },
    headers,
  );
  expect(refused.status).toBe(429);
  expect(refused.body.error.message).toContain("ACCOUNT_PROGRAMS_PER_DAY");
  // The key's whole burst is still there for a batch the quota admits.
  const admitted = await t.ingest(
    { envelopes: Array.from({ length: 10 }, () => makeEnvelope({ program: three[0] })) },
    headers,
  );
  expect(admitted).toMatchObject({ status: 202, body: { accepted: 10 } });
});
