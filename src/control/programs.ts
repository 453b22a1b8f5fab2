// Programs seen per account, maintained by flush from each committed segment (so counts include
// exactly the envelopes that reached the lake). Answers GET /v1/programs and tells the deploy job
// which programs are tracked.

import type { ControlDb } from "./types";

export type ProgramCount = { accountId: string; program: string; attempts: number; lastSeen: number };

export function addProgramCounts(db: ControlDb, counts: ProgramCount[]): void {
  const upsert = db.query(
    `INSERT INTO account_programs (account_id, program, attempts, last_seen) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, program) DO UPDATE SET attempts = account_programs.attempts + excluded.attempts, last_seen = max(account_programs.last_seen, excluded.last_seen)`,
  );
  for (const c of counts) upsert.run(c.accountId, c.program, c.attempts, c.lastSeen);
}

/** The account's programs ordered by program id, after `afterProgram` (keyset pagination). */
export function listAccountPrograms(db: ControlDb, accountId: string, afterProgram: string | null, limit: number) {
  return db
    .query<{ program: string; attempts: number; last_seen: number }, [string, string, number]>(
      "SELECT program, attempts, last_seen FROM account_programs WHERE account_id = ? AND program > ? ORDER BY program LIMIT ?",
    )
    .all(accountId, afterProgram ?? "", limit)
    .map((row) => ({ program: row.program, attempts: row.attempts, lastSeen: row.last_seen }));
}

export function trackedPrograms(db: ControlDb): string[] {
  return db
    .query<{ program: string }, []>("SELECT DISTINCT program FROM account_programs ORDER BY program")
    .all()
    .map((r) => r.program);
}

export function accountHasProgram(db: ControlDb, accountId: string, program: string): boolean {
  return (
    db.query("SELECT 1 FROM account_programs WHERE account_id = ? AND program = ?").get(accountId, program) !== null
  );
}
