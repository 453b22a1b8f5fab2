// The short fixed set of `bun run chaos` (scripts/chaos.ts): real SIGKILLs of the server and of a
// job runner at named moments (mid-request, mid-group-commit, mid-flush, mid-resolve,
// mid-compaction, mid-tables-swap) over a local chain, then recovery and the invariants.
import { expect, test } from "bun:test";
import { runChaos, type Scenario } from "../../scripts/chaos";

const FIXED: Scenario[] = [
  { target: "server", point: null },
  { target: "server", point: "spool:after-write" },
  { target: "server", point: "flush:after-rename" },
  { target: "server", point: "resolve:after-rename" },
  { target: "server", point: "compact:after-swap" },
  { target: "server", point: "tables:after-build" },
  { target: "runner", job: "flush", point: "flush:after-commit" },
  { target: "runner", job: "resolve", point: "resolve:after-commit" },
];

test("SIGKILL at fixed moments: no acknowledged envelope lost or duplicated, no resolution lost or duplicated, no torn serving table", async () => {
  const lines: string[] = [];
  const result = await runChaos({
    kills: FIXED.length,
    seed: 7,
    realAttempts: 20,
    scenarios: FIXED,
    log: (line) => lines.push(line),
  });
  if (result.lost + result.duplicated + result.tornTables + result.duplicatedResolutions > 0)
    console.error(lines.join("\n"));
  expect(result.kills).toBe(FIXED.length);
  expect(result.acknowledged).toBeGreaterThan(500);
  expect(result).toMatchObject({
    lost: 0,
    duplicated: 0,
    tornTables: 0,
    lostResolutions: 0,
    duplicatedResolutions: 0,
    orphanResolutions: 0,
    intakeMismatches: 0,
    unexpectedExits: 0,
  });
  // Every named moment was reached and killed there (not a random kill instead).
  for (const scenario of FIXED.filter((s) => s.point !== null)) {
    const name = scenario.target === "server" ? `server ${scenario.point}` : `runner ${scenario.job} ${scenario.point}`;
    expect({ name, kills: result.moments[name] }).toEqual({ name, kills: 1 });
  }
}, 240_000);
