// A JSON-RPC endpoint on loopback that serves recorded real mainnet transactions (test/fixtures/
// mainnet): what txray sees when SOLANA_RPC_URL points at mainnet, without the network. Counts the
// HTTP requests it answers.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "mainnet");

export function recordedTransaction(prefix: string): { sig: string; result: any } {
  const name = require("node:fs")
    .readdirSync(FIXTURES)
    .find((n: string) => n.startsWith(prefix));
  const json = JSON.parse(readFileSync(join(FIXTURES, name), "utf8"));
  const result = json.result ?? json;
  return { sig: result.transaction.signatures[0], result };
}

export function startRecordedRpc(
  transactions: { sig: string; result: any }[],
  options: { blockHeight?: number; accounts?: Record<string, Uint8Array> } = {},
) {
  const bySig = new Map(transactions.map((t) => [t.sig, t.result]));
  let requests = 0;
  /** A System-owned account of `options.accounts` (read at each call: a test may change it), base64. */
  const account = (address: string) => {
    const data = options.accounts?.[address];
    return data
      ? {
          data: [Buffer.from(data).toString("base64"), "base64"],
          executable: false,
          lamports: 1,
          owner: "11111111111111111111111111111111",
          rentEpoch: 0,
          space: data.length,
        }
      : null;
  };
  const answer = (call: { id: unknown; method: string; params?: any[] }) => {
    const params = call.params ?? [];
    switch (call.method) {
      case "getTransaction":
        return { jsonrpc: "2.0", id: call.id, result: bySig.get(params[0]) ?? null };
      case "getSignatureStatuses":
        return {
          jsonrpc: "2.0",
          id: call.id,
          result: {
            context: { slot: 1 },
            value: (params[0] as string[]).map((sig) => {
              const tx = bySig.get(sig);
              return tx
                ? { slot: tx.slot, confirmations: null, err: tx.meta?.err ?? null, confirmationStatus: "finalized" }
                : null;
            }),
          },
        };
      case "getAccountInfo":
        return { jsonrpc: "2.0", id: call.id, result: { context: { slot: 1 }, value: account(params[0]) } };
      case "getMultipleAccounts":
        return {
          jsonrpc: "2.0",
          id: call.id,
          result: { context: { slot: 1 }, value: (params[0] as string[]).map(account) },
        };
      case "getBlockTime": {
        const tx = [...bySig.values()].find((t) => t.slot === params[0]);
        return tx
          ? { jsonrpc: "2.0", id: call.id, result: tx.blockTime ?? null }
          : { jsonrpc: "2.0", id: call.id, error: { code: -32004, message: "Block not available for slot" } };
      }
      case "getBlockHeight":
        return { jsonrpc: "2.0", id: call.id, result: options.blockHeight ?? 300_000_000 };
      default:
        return { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "Method not found" } };
    }
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      requests++;
      const body = (await request.json()) as any;
      return Response.json(Array.isArray(body) ? body.map(answer) : answer(body));
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests: () => requests,
    /** A transaction that lands now: found by the look-ups from here on. */
    add: (transaction: { sig: string; result: any }) => bySig.set(transaction.sig, transaction.result),
    stop: () => server.stop(true),
  };
}
