// The ingest quota on distinct programs per account and UTC day (ACCOUNT_PROGRAMS_PER_DAY,
// docs/security.md "Per-account quotas"). Every program is a partition of the lake and a set of rows
// in every table the resolver and the refresh keep, so an account naming thousands of made-up programs
// costs every other account; the quota bounds that before anything of the batch is acknowledged.
// The table account_program_days is the truth (exact across restarts and across the nodes sharing a
// PostgreSQL control plane); ProgramQuota keeps each account's programs of the day in memory, so a
// batch naming only programs already counted never queries the database.

import type { ControlDb } from "./types";

const DAY_MS = 86_400_000;

/** The UTC day (days since the epoch) a time in Unix milliseconds falls on. */
export const utcDayNumber = (at: number): number => Math.floor(at / DAY_MS);

/** Seconds from `at` to the next UTC midnight, when every account's count starts again. */
export const secondsToNextUtcDay = (at: number): number =>
  Math.max(1, Math.ceil(((utcDayNumber(at) + 1) * DAY_MS - at) / 1000));

/**
 * Records `programs` (distinct) as named by the account on `day`, unless that would bring the day's
 * distinct programs above `limit`: then records none. Either way returns the programs recorded for
 * the day after the call (the database's, as of this transaction). Deletes the account's earlier days.
 */
export function admitAccountPrograms(
  db: ControlDb,
  accountId: string,
  day: number,
  programs: readonly string[],
  limit: number,
): { admitted: boolean; recorded: Set<string> } {
  return db
    .transaction(() => {
      db.query("DELETE FROM account_program_days WHERE account_id = ? AND day < ?").run(accountId, day);
      const recorded = new Set(
        db
          .query<{ program: string }, [string, number]>(
            "SELECT program FROM account_program_days WHERE account_id = ? AND day = ?",
          )
          .all(accountId, day)
          .map((row) => row.program),
      );
      const fresh = programs.filter((program) => !recorded.has(program));
      if (recorded.size + fresh.length > limit) return { admitted: false, recorded };
      const insert = db.query("INSERT INTO account_program_days (account_id, day, program) VALUES (?, ?, ?)");
      for (const program of fresh) {
        insert.run(accountId, day, program);
        recorded.add(program);
      }
      return { admitted: true, recorded };
    })
    .immediate();
}

/** The distinct programs an account named on a UTC day, as counted against the quota. */
export function accountProgramsOnDay(db: ControlDb, accountId: string, day: number): number {
  return (
    db
      .query<{ n: number }, [string, number]>(
        "SELECT count(*) AS n FROM account_program_days WHERE account_id = ? AND day = ?",
      )
      .get(accountId, day)?.n ?? 0
  );
}

type AccountDay = { day: number; programs: Set<string>; full: boolean };

/**
 * The quota in front of the table: per account, the day's programs known to be counted. A batch whose
 * programs are all known is admitted from memory; any other asks the database (admitAccountPrograms),
 * except when the known set is a snapshot already at the limit: no node can add to a full day, so the
 * snapshot is the table's set and a program outside it is refused without a query.
 */
export class ProgramQuota {
  private readonly accounts = new Map<string, AccountDay>();

  /** `limit`: distinct programs per account and UTC day; 0 = no limit. */
  constructor(
    private readonly db: ControlDb,
    readonly limit: number,
  ) {}

  /** Whether the account may name `programs` (distinct) at `at`; when it may, they count from now on. */
  admit(accountId: string, programs: readonly string[], at: number): boolean {
    if (this.limit === 0 || programs.length === 0) return true;
    const day = utcDayNumber(at);
    const known = this.accounts.get(accountId);
    if (known !== undefined && known.day === day) {
      if (programs.every((program) => known.programs.has(program))) return true;
      if (known.full) return false;
    }
    const { admitted, recorded } = admitAccountPrograms(this.db, accountId, day, programs, this.limit);
    this.accounts.set(accountId, { day, programs: recorded, full: recorded.size >= this.limit });
    return admitted;
  }
}
