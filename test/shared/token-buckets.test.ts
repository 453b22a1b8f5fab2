// Token buckets keep bounded memory without forgetting a client that is being limited: a flood of
// fresh ids never resets the others, and beyond the table's size the fresh ids share one bucket.
import { expect, test } from "bun:test";
import { DEFAULT_MAX_BUCKETS, TokenBuckets } from "../../src/shared/token-buckets";

test("100,001 fresh ids leave the limited client limited, in a bounded table", () => {
  let now = 1_000_000;
  const buckets = new TokenBuckets(10, 10 / 60, () => now);
  for (let i = 0; i < 10; i++) expect(buckets.take("203.0.113.7").allowed).toBe(true);
  expect(buckets.take("203.0.113.7").allowed).toBe(false);

  for (let i = 0; i <= 100_000; i++) buckets.take(`fresh-${i}`);
  expect(buckets.size).toBeLessThanOrEqual(DEFAULT_MAX_BUCKETS);
  expect(buckets.take("203.0.113.7").allowed).toBe(false);
  // Ids that find the table full share the overflow bucket: limited as one client.
  let allowedFresh = 0;
  for (let i = 0; i < 20; i++) if (buckets.take(`more-${i}`).allowed) allowedFresh++;
  expect(allowedFresh).toBeLessThan(10);
  expect(buckets.size).toBeLessThanOrEqual(DEFAULT_MAX_BUCKETS);

  // Once refilled, the oldest entries make room again: new ids get buckets of their own.
  now += 61_000;
  expect(buckets.take("203.0.113.7").allowed).toBe(true);
  expect(buckets.take("after-refill").allowed).toBe(true);
  expect(buckets.size).toBeLessThanOrEqual(DEFAULT_MAX_BUCKETS);
});

test("a refilled entry is evicted before one still draining, whatever their age", () => {
  let now = 0;
  const buckets = new TokenBuckets(2, 1, () => now, 2);
  buckets.take("quiet"); // one token spent: refilled a second later
  buckets.take("busy");
  buckets.take("busy");
  buckets.take("busy"); // refused: drained
  now += 1_500;
  buckets.take("newcomer"); // takes quiet's place (refilled), not busy's
  expect(buckets.size).toBe(2);
  expect(buckets.take("busy").allowed).toBe(true);
  expect(buckets.take("busy").allowed).toBe(false); // still remembered as draining
});

test("a charge after the work puts the bucket in debt, down to minus its capacity", () => {
  let now = 0;
  const buckets = new TokenBuckets(10, 1, () => now);
  expect(buckets.take("client").allowed).toBe(true); // 9 left
  buckets.charge("client", 14); // -5
  const refused = buckets.take("client");
  expect(refused.allowed).toBe(false);
  expect(refused.headers["ratelimit-remaining"]).toBe("0");
  expect(refused.retryAfterSeconds).toBe(6); // back to one token at -5 + 6
  now += 6_000;
  expect(buckets.take("client").allowed).toBe(true);
  buckets.charge("client", 1_000); // floored at -10: a minute's refill is the most one charge costs
  now += 20_000;
  expect(buckets.take("client").allowed).toBe(true);
  buckets.charge("unknown", 5); // an id never seen has no bucket to charge: nothing happens
  expect(buckets.size).toBe(1);
});
