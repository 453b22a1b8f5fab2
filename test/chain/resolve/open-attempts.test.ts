// The resolver's open attempts come out earliest due first, first come first at equal times; a
// rescheduled or removed attempt's old heap entry never comes out.
import { expect, test } from "bun:test";
import { OpenAttempts, openAttempt } from "../../../src/chain/resolve/open-attempts";
import type { Attempt } from "../../../src/chain/resolve/types";

const attempt = (attemptId: string): Attempt => ({
  attemptId,
  accountId: "acc",
  program: "P1",
  sig: `sig-${attemptId}`,
  kind: "send",
  lastValidBlockHeight: 100,
  sentAt: 1,
  receivedAt: 1,
  rpcHash: "rpc",
  rpcLabel: "rpc",
  payer: "payer",
  cuLimit: null,
  cuPriceMicroLamports: null,
  ixPrefix: null,
  nonce: false,
  preflightError: null,
  simulationLogs: null,
});

test("earliest due first; at equal times in the order they came; only what is due, up to the limit", () => {
  const open = new OpenAttempts();
  // Ids in reverse order of arrival: the order at equal times is arrival, not id.
  for (const id of ["z", "y", "x", "w"]) open.add(openAttempt(attempt(id), 100));
  open.add(openAttempt(attempt("early"), 50));
  open.add(openAttempt(attempt("late"), 500));
  expect(open.add(openAttempt(attempt("y"), 10))).toBe(false); // already open
  expect(open.takeDue(100, 3).map((a) => a.attemptId)).toEqual(["early", "z", "y"]);
  expect(open.takeDue(100, 10).map((a) => a.attemptId)).toEqual(["x", "w"]);
  expect(open.takeDue(100, 10)).toEqual([]); // "late" is not due
  expect(open.nextDueAt()).toBe(500);
});

test("a rescheduled attempt comes out once, at its new time; a removed one never", () => {
  const open = new OpenAttempts();
  for (const id of ["a", "b", "c"]) open.add(openAttempt(attempt(id), 100));
  const [a, b] = open.takeDue(100, 2);
  open.reschedule(a, 300);
  open.reschedule(b, 200);
  open.remove("c");
  expect(open.nextDueAt()).toBe(200);
  expect(open.takeDue(1_000, 10).map((x) => x.attemptId)).toEqual(["b", "a"]);
  expect(open.size).toBe(2);
  open.reschedule(a, 400);
  open.reschedule(a, 350); // twice: only the last entry is live
  expect(open.takeDue(1_000, 10).map((x) => x.attemptId)).toEqual(["a"]);
  expect(open.nextDueAt()).toBe(Infinity);
});
