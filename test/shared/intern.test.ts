// Strings kept in memory: one copy per distinct text (stringInterner), and copies that keep no larger
// string alive (detachedString: what the signature index keeps of a merge's lines until the merge
// ends).
import { expect, test } from "bun:test";
import { detachedString, stringInterner } from "../../src/shared/intern";

test("an interner returns the first copy of each text, and starts over at its limit", () => {
  const shared = stringInterner(2);
  const a = shared(["pro", "gram"].join(""));
  expect(shared("program")).toBe(a);
  shared("b");
  shared("c"); // the limit: forgets and starts over
  expect(shared("program")).toBe("program");
});

test("a detached copy holds the same text, whatever its characters", () => {
  const block = `${"x".repeat(32_000)}\n5Kd3NBUAdUnhyzenEwVLy9pBKxSwXvE9FMPyR4UKZvpe\tattempt-1\t{}\n`;
  const sig = block.slice(32_001, 32_045);
  expect(detachedString(sig)).toBe("5Kd3NBUAdUnhyzenEwVLy9pBKxSwXvE9FMPyR4UKZvpe");
  expect(detachedString("")).toBe("");
  expect(detachedString("ünïcode ✓")).toBe("ünïcode ✓");
});
