// One tenant cannot hurt another through the lake's partitions: an account's envelopes may name at
// most ACCOUNT_PROGRAMS_PER_DAY distinct programs per UTC day. A batch naming one more is refused
// whole (429 in the error shape, nothing of it acknowledged), while the account's known programs and
// every other account's ingest go on; the control table keeps the count across restarts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  accountProgramsOnDay,
  createAccountKey,
  listAccountPrograms,
  ProgramQuota,
  utcDayNumber,
} from "../../src/control";
import { flushSpool } from "../../src/lake/flush-spool";
import { makeEnvelope, randomAddress } from "../helpers/envelopes";
import { type TestServer, testServer } from "../helpers/server";

const QUOTA = 100;
let t: TestServer;
let flood: { key: string; accountId: string };
let other: { key: string; accountId: string };

beforeAll(async () => {
  t = await testServer({ ACCOUNT_PROGRAMS_PER_DAY: String(QUOTA) });
  const made = (account: string) => {
    const { key, record } = createAccountKey(t.ctx.control, account, "ingest", Date.now());
    return { key, accountId: record.accountId };
  };
  flood = made("flood");
  other = made("other");
});
afterAll(() => t.stop());

const batchOf = (programs: string[]) => programs.map((program) => makeEnvelope({ program }));

test("3,000 random programs in three requests are refused whole; known programs and other accounts still get in", async () => {
  for (let request = 0; request < 3; request++) {
    const refused = await t.ingest(
      { envelopes: batchOf(Array.from({ length: 1000 }, randomAddress)) },
      {
        "x-api-key": flood.key,
      },
    );
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: { code: "rate_limited", message: expect.any(String) } });
    expect(refused.body.error.message).toContain(`${QUOTA} distinct programs`);
    expect(refused.body.error.message).toContain("ACCOUNT_PROGRAMS_PER_DAY");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(86_400);
  }

  // Up to the quota, new programs are accepted; one more is refused, even beside known ones.
  const allowed = Array.from({ length: QUOTA }, randomAddress);
  expect((await t.ingest({ envelopes: batchOf(allowed) }, { "x-api-key": flood.key })).status).toBe(202);
  const oneMore = await t.ingest({ envelopes: batchOf([allowed[0], randomAddress()]) }, { "x-api-key": flood.key });
  expect(oneMore.status).toBe(429);
  expect(oneMore.body.error.code).toBe("rate_limited");

  // The flooding account's known programs still get in, and so does another account's new program.
  const known = await t.ingest(
    { envelopes: batchOf([allowed[7], allowed[42], allowed[7]]) },
    {
      "x-api-key": flood.key,
    },
  );
  expect(known).toMatchObject({ status: 202, body: { accepted: 3 } });
  const elsewhere = randomAddress();
  expect(await t.ingest({ envelopes: batchOf([elsewhere]) }, { "x-api-key": other.key })).toMatchObject({
    status: 202,
    body: { accepted: 1 },
  });

  // Nothing of a refused batch reached the lake: the flooding account has exactly its accepted programs.
  await t.server.spool!.seal();
  await flushSpool(t.ctx);
  const inLake = listAccountPrograms(t.ctx.control, flood.accountId, null, 500);
  expect(inLake.map((p) => p.program).sort()).toEqual([...allowed].sort());
  expect(inLake.reduce((sum, p) => sum + p.attempts, 0)).toBe(QUOTA + 3);
  expect(listAccountPrograms(t.ctx.control, other.accountId, null, 500).map((p) => p.program)).toEqual([elsewhere]);

  // The table is the truth: a fresh cache (a restarted server) counts the same.
  const today = utcDayNumber(Date.now());
  expect(accountProgramsOnDay(t.ctx.control, flood.accountId, today)).toBe(QUOTA);
  const restarted = new ProgramQuota(t.ctx.control, QUOTA);
  expect(restarted.admit(flood.accountId, [randomAddress()], Date.now())).toBe(false);
  expect(restarted.admit(flood.accountId, [allowed[3]], Date.now())).toBe(true);
  // A new UTC day starts the count again (and the account's earlier days are deleted).
  const tomorrow = (today + 1) * 86_400_000;
  expect(restarted.admit(flood.accountId, [randomAddress()], tomorrow)).toBe(true);
  expect(accountProgramsOnDay(t.ctx.control, flood.accountId, today)).toBe(0);
  expect(accountProgramsOnDay(t.ctx.control, flood.accountId, today + 1)).toBe(1);
});

test("0 is no limit", () => {
  const unlimited = new ProgramQuota(t.ctx.control, 0);
  expect(unlimited.admit(other.accountId, Array.from({ length: 500 }, randomAddress), Date.now())).toBe(true);
});
