// A real txray server on a free loopback port over a temp data dir, plus helpers to call it.

import { createAccountKey, type KeyScope } from "../../src/control";
import { readLakeSql } from "../../src/lake/schema";
import { type RunningServer, startServer } from "../../src/server";
import { testContext } from "./context";

export async function testServer(env: Record<string, string> = {}, effects: Parameters<typeof testContext>[1] = {}) {
  const ctx = await testContext(env, effects);
  const server: RunningServer = await startServer(ctx, { port: 0, hostname: "127.0.0.1", scheduler: false });
  const key = (account: string, scope: KeyScope = "live") =>
    createAccountKey(ctx.control, account, scope, Date.now()).key;
  return {
    ctx,
    server,
    url: server.url,
    key,
    async ingest(body: unknown, headers: Record<string, string> = {}) {
      const response = await fetch(`${server.url}/v1/ingest`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      return { status: response.status, headers: response.headers, body: (await response.json()) as any };
    },
    async get(path: string, headers: Record<string, string> = {}) {
      const response = await fetch(`${server.url}${path}`, { headers });
      return { status: response.status, headers: response.headers, body: (await response.json()) as any };
    },
    async stop() {
      await server.stop();
      ctx.dispose();
    },
  };
}

export type TestServer = Awaited<ReturnType<typeof testServer>>;

/** Rows in the envelopes dataset, read with DuckDB exactly as a data team would. */
export async function lakeRows(ctx: TestServer["ctx"], columns = "*", where = "true") {
  return ctx.duck.all(
    `SELECT ${columns} FROM ${readLakeSql("envelopes", `'${ctx.paths.datasetGlob("envelopes")}'`, "hive_partitioning = true")} WHERE ${where}`,
  );
}
