// The synchronous bridge to PostgreSQL (src/control/postgres.ts) must pair every answer with its own
// statement. A statement that times out still gets its answer later; that late answer once became
// the answer to the next statement, and to every one after it (a job runner in the scale-out test
// then failed every run with "JSON Parse error" until restarted). Runs in a throwaway cluster;
// skipped, saying why, without PostgreSQL's binaries.

import { afterAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { PostgresControlDb } from "../../src/control/postgres";
import { POSTGRES_MISSING, type PostgresCluster, postgresBinaries, startPostgres } from "../helpers/postgres";

const bin = postgresBinaries();
if (!bin) console.warn(`postgres-bridge.test skipped: ${POSTGRES_MISSING}`);

let cluster: PostgresCluster | null = null;
let db: PostgresControlDb | null = null;
afterAll(async () => {
  db?.close();
  await cluster?.stop();
});

test.skipIf(!bin)(
  "a statement's late answer is dropped, never taken for the next statement's",
  async () => {
    cluster = await startPostgres(bin!);
    const url = await cluster.createDatabase("bridge");
    db = new PostgresControlDb(url, 300);
    expect(() => db!.call("SELECT pg_sleep(1) AS slept, 'late' AS answer", [])).toThrow("did not answer within 0.3 s");
    // The connection is still busy with the first sleep, so this one times out too.
    expect(() => db!.call("SELECT pg_sleep(0.5) AS slept, 'also late' AS answer", [])).toThrow("did not answer");
    // Both late answers are on the port once the connection has finished the second sleep, its last
    // statement (pg_stat_activity shows an idle backend's last query; asked on a connection of its own).
    const observer = new SQL({ url, max: 1 });
    try {
      const finishedSecond = async () =>
        (
          await observer`SELECT count(*)::int AS n FROM pg_stat_activity
                         WHERE state = 'idle' AND query LIKE 'SELECT pg_sleep(0.5)%'`
        )[0].n === 1;
      while (!(await finishedSecond())) await Bun.sleep(20);
    } finally {
      await observer.close();
    }
    expect(db.call("SELECT $1::int AS answer", [42]).rows).toEqual([{ answer: 42 }]);
    for (let i = 0; i < 200; i++) expect(db.call("SELECT $1::int AS answer", [i]).rows[0]).toEqual({ answer: i });
    expect(() => db!.call("SELECT * FROM no_such_table", [])).toThrow("no_such_table");
    expect(db.call("SELECT 'after an error' AS answer", []).rows).toEqual([{ answer: "after an error" }]);
  },
  60_000,
);
