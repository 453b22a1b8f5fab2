// The resolver's backlog as /v1/status and the MCP status tool report it: whole milliseconds, as
// the status contract's `count` requires (the MCP tool validates its answer against it).

import { expect, test } from "bun:test";
import { StatusSchema } from "../../src/analytics/queries/schemas";
import { openControlDb, recordResolverProgress, resolverBacklog } from "../../src/control";

test("lagMs is whole milliseconds when the earliest open attempt is due at a fractional time", () => {
  const db = openControlDb(":memory:");
  // A look-up planned from an estimated block time (msPerBlock) is due at a fractional millisecond.
  recordResolverProgress(db, { version: "v", at: 1_000, openAttempts: 3, nextDueAt: 1_234.5678 });
  const backlog = resolverBacklog(db, 5_000);
  expect(backlog.lagMs).toBe(3_765);
  expect(StatusSchema.shape.resolver.safeParse(backlog).success).toBe(true);
  db.close();
});
