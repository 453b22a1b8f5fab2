// The words around figures in every text that leaves the server (src/shared/wording.ts): a count
// with its noun in the right number, a p-value that never reads as zero.
import { expect, test } from "bun:test";
import { countOf, formatPValue } from "../../src/shared/wording";

test("a count takes its noun in the right number", () => {
  expect(countOf(1, "wallet")).toBe("1 wallet");
  expect(countOf(0, "wallet")).toBe("0 wallets");
  expect(countOf(1204, "wallet")).toBe("1,204 wallets");
  expect(countOf(2, "match", "matches")).toBe("2 matches");
});

test("a p-value below what two digits show honestly is a bound, never 0.000", () => {
  expect(formatPValue(0)).toBe("p < 0.0001");
  expect(formatPValue(0.00004)).toBe("p < 0.0001");
  expect(formatPValue(0.0321)).toBe("p = 0.032");
  expect(formatPValue(0.5)).toBe("p = 0.50");
});
