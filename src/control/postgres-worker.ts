// The thread behind PostgresControlDb (src/control/postgres.ts): owns one PostgreSQL connection
// (Bun's built-in client, asynchronous) and answers one statement at a time. The caller's thread
// is blocked in Atomics.wait meanwhile, so the answer goes back through a MessagePort it reads with
// receiveMessageOnPort, and the shared flag (set to the id of the request answered) wakes it.

import { SQL } from "bun";

declare const self: Worker;

export type BridgeSetup = { setup: { url: string; flag: SharedArrayBuffer; port: MessagePort } };
/** `id` ties a reply to its request; the flag is set to the id of each request answered. */
export type BridgeRequest = { id: number; text: string; params: unknown[] };
export type BridgeReply = { id: number } & (
  | { ok: true; rows: Record<string, unknown>[]; changes: number }
  | { ok: false; message: string; code: string | null }
);

/** PostgreSQL type ids that come back as text or BigInt but are numbers to the control plane. */
const NUMERIC_TYPES = new Set([20, 1700]); // int8, numeric (sum of int8)

let sql: SQL;
let port: MessagePort;
let flag: Int32Array;

self.onmessage = async (event: MessageEvent<BridgeSetup | BridgeRequest>) => {
  const message = event.data;
  if ("setup" in message) {
    sql = new SQL({ url: message.setup.url, max: 1, bigint: true, idleTimeout: 0, onclose: () => {} });
    port = message.setup.port;
    flag = new Int32Array(message.setup.flag);
    return;
  }
  let reply: BridgeReply;
  try {
    // Without parameters the simple protocol runs several statements at once (migrations).
    const result =
      message.params.length > 0
        ? await sql.unsafe(message.text, message.params as unknown[])
        : await sql.unsafe(message.text);
    const columns: { name: string; type: number }[] =
      (result as { columns?: { name: string; type: number }[] }).columns ?? [];
    const numeric = columns.filter((column) => NUMERIC_TYPES.has(column.type)).map((column) => column.name);
    const rows: Record<string, unknown>[] = [];
    for (const row of result as Record<string, unknown>[]) {
      const plain: Record<string, unknown> = { ...row };
      for (const name of numeric)
        if (plain[name] !== null && plain[name] !== undefined) plain[name] = Number(plain[name]);
      for (const name in plain) if (typeof plain[name] === "bigint") plain[name] = Number(plain[name]);
      rows.push(plain);
    }
    reply = { id: message.id, ok: true, rows, changes: Number((result as { count?: number | bigint }).count ?? 0) };
  } catch (error) {
    const code = (error as { errno?: string }).errno ?? null;
    reply = {
      id: message.id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      code: typeof code === "string" ? code : null,
    };
  }
  port.postMessage(reply);
  Atomics.store(flag, 0, message.id);
  Atomics.notify(flag, 0);
};
