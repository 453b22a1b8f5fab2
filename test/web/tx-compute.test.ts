// The transaction page's compute line (src/web/pages/tx.ts): the requested limit when the telemetry
// has one; otherwise what the logs say the first metered instruction could use, named as such.
import { expect, test } from "bun:test";
import { computeText } from "../../src/web/pages/tx";
import type { Why } from "../../src/web/types";

const frame = (depth: number, computeLimit: number | null) =>
  ({ depth, computeLimit }) as NonNullable<Why["callStack"]>[number];
const why = (fields: Partial<Why>) => ({ cuUsed: 193, cuRequested: null, callStack: null, ...fields }) as Why;

test("a requested limit is shown as requested", () => {
  expect(computeText(why({ cuRequested: 203_000 }))).toBe("193 used of 203,000 requested");
});

test("a preflight without a limit reads the first metered frame's budget, never a dash", () => {
  const stack = [frame(1, null), frame(1, 202_850), frame(2, 150_000)];
  expect(computeText(why({ callStack: stack }))).toBe("193 used of 202,850 available to its first metered instruction");
  expect(computeText(why({}))).toBe("193 used (requested limit unknown)");
});
