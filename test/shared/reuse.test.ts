// reusedFor: what /v1/status's disk use and resolver backlog rely on to stay cheap on a public route.
import { expect, test } from "bun:test";
import { reusedFor } from "../../src/shared/reuse";

test("an answer is reused for its key until it is older than the limit, its tag changes or the clock goes back", () => {
  let computed = 0;
  const reuse = reusedFor<number>(1_000);
  const ask = (key: string, now: number, tag?: unknown) => reuse(key, now, () => ++computed, tag);
  expect(ask("a", 10_000)).toBe(1);
  expect(ask("a", 10_999)).toBe(1); // within the limit
  expect(ask("b", 10_999)).toBe(2); // another key (another data directory) has its own
  expect(ask("a", 11_000)).toBe(3); // as old as the limit: computed again
  expect(ask("a", 11_001, 7)).toBe(4); // another tag (e.g. the lake's envelope count)
  expect(ask("a", 11_002, 7)).toBe(4);
  expect(ask("a", 10_500, 7)).toBe(5); // the clock went back
  expect(computed).toBe(5);
});
