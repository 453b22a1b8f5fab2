import { expect, test } from "bun:test";
import { LruMap } from "../../src/shared/lru-map";

test("keeps at most its capacity, dropping the least recently used", () => {
  const map = new LruMap<string, number>(2);
  map.set("a", 1).set("b", 2);
  expect(map.get("a")).toBe(1); // a is now newer than b
  map.set("c", 3);
  expect([map.has("a"), map.has("b"), map.has("c"), map.size]).toEqual([true, false, true, 2]);
  map.set("a", 10); // setting again refreshes too
  map.set("d", 4);
  expect([map.get("a"), map.has("c"), map.get("d"), map.size]).toEqual([10, false, 4, 2]);
});

test("has() does not refresh, undefined values are kept, delete removes", () => {
  const map = new LruMap<string, number | undefined>(2);
  map.set("a", undefined).set("b", 2);
  expect(map.has("a")).toBe(true);
  expect(map.get("a")).toBeUndefined();
  map.set("c", 3); // a was read last of a and b: b goes
  expect([map.has("a"), map.has("b")]).toEqual([true, false]);
  expect(map.delete("a")).toBe(true);
  expect([map.size, map.delete("a")]).toEqual([1, false]);
});

test("a capacity below one is refused", () => {
  expect(() => new LruMap(0)).toThrow(RangeError);
  expect(() => new LruMap(Number.NaN)).toThrow(RangeError);
});
