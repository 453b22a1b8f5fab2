// A worker thread of the ingest pool (src/ingest/workers.ts): runs prepareBatch for the main thread.
// It authenticates with its own read-only connection to the control database (its own PostgreSQL
// connection when TXRAY_CONTROL_URL is set) and its own short-lived principal cache, so a revoked key
// stops working here within the same 2 s as on the main thread.

import { openControlDbReadOnly, PrincipalCache } from "../control";
import { loadNativeEncoder } from "./native";
import { type PrepareRequest, prepareBatch } from "./prepare";

declare const self: Worker;

export type WorkerSetup = { controlDbPath: string; controlUrl?: string; maxBatch: number; native: boolean };
export type WorkerJob = { id: number } & PrepareRequest;

let deps: Parameters<typeof prepareBatch>[1] | null = null;

self.onmessage = (event: MessageEvent<{ setup: WorkerSetup } | WorkerJob>) => {
  const message = event.data;
  if ("setup" in message) {
    const { controlDbPath, controlUrl } = message.setup;
    const principals = new PrincipalCache(openControlDbReadOnly(controlDbPath, controlUrl));
    deps = {
      principal: (key) => principals.get(key),
      maxBatch: message.setup.maxBatch,
      native: message.setup.native ? loadNativeEncoder() : null,
    };
    return;
  }
  let result: ReturnType<typeof prepareBatch>;
  try {
    result = prepareBatch(message, deps!);
  } catch (error) {
    result = { ok: false as const, code: "internal" as const, message: "could not prepare the batch" };
    console.error(JSON.stringify({ level: "error", message: "ingest worker failed", error: String(error) }));
  }
  // The spool bytes move to the main thread without a copy.
  self.postMessage({ id: message.id, result }, result.ok ? [result.lines.buffer as ArrayBuffer] : []);
};
