// Which Parquet parts hold a column with a value in every row. A lake version can add a column
// (resolutions.payer_bucket in version 4): files written before have none, and a compacted part
// that merged old and new files has it null in the old rows. A reader that filters on the column
// (a wallet page) filters only the parts where it is complete and reads the others as before.
// Read from the parts' footers (row groups' null counts); a part is never rewritten under its name,
// so what a name answered once is kept for the process's life (bounded).

import { sqlString, type Duck } from "./duckdb";

const MAX_REMEMBERED = 200_000;
const remembered = new Map<string, boolean>();

/** The files of `files` whose `column` exists and has no null in any row group. */
export async function filesWithCompleteColumn(duck: Pick<Duck, "all">, files: string[], column: string): Promise<Set<string>> {
  const key = (file: string) => `${column}\u0000${file}`;
  const unknown = files.filter((file) => !remembered.has(key(file)));
  if (unknown.length > 0) {
    const rows = await duck.all<{ file_name: string; complete: boolean }>(
      `SELECT file_name, bool_and(coalesce(stats_null_count, 1) = 0) AS complete
       FROM parquet_metadata([${unknown.map(sqlString).join(", ")}])
       WHERE path_in_schema = ${sqlString(column)}
       GROUP BY file_name`,
    );
    if (remembered.size + unknown.length > MAX_REMEMBERED) remembered.clear();
    const complete = new Set(rows.filter((row) => row.complete).map((row) => row.file_name));
    for (const file of unknown) remembered.set(key(file), complete.has(file));
  }
  return new Set(files.filter((file) => remembered.get(key(file))));
}

/** Whether any of `files` has `column` at all (a merge of files that all lack it must not name it). */
export async function anyFileHasColumn(duck: Pick<Duck, "all">, files: string[], column: string): Promise<boolean> {
  if (files.length === 0) return false;
  const rows = await duck.all<{ n: number }>(
    `SELECT count(*) AS n FROM parquet_schema([${files.map(sqlString).join(", ")}]) WHERE name = ${sqlString(column)}`,
  );
  return Number(rows[0]?.n ?? 0) > 0;
}
