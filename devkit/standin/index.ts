// An in-memory stand-in for a mainnet JSON-RPC provider, for load tools (`bun run soak`, `bun run
// bench resolve`): block height and slots advancing like mainnet (one every 400 ms), a fate per
// signature decided by a hash of it (landed, failed on chain, never landed: shares configurable),
// and recorded real mainnet transactions (test/fixtures/mainnet) answered for the attempts that
// landed. It counts what it answers: HTTP requests, and method calls (each element of a JSON-RPC
// batch is one call, as providers bill them). Run it in its own process (devkit/bin/standin.ts) when
// the process being measured must not pay for serving it.

import { randomBytes, randomFillSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { encodeBase58 } from "../../src/shared/base58";

export type Fates = { landed: number; failed: number; dropped: number };
export type StandInOptions = { port?: number; hostname?: string; fates?: Fates };
export type StandIn = {
  url: string;
  port: number;
  counts(): { requests: number; calls: Record<string, number> };
  height(): number;
  stop(): void;
};

const FIXTURES = join(import.meta.dir, "..", "..", "test", "fixtures", "mainnet");
const fixture = (name: string) => {
  const json = JSON.parse(readFileSync(join(FIXTURES, name), "utf8"));
  return json.result ?? json;
};
const LANDED_TX = fixture("17_agavesim_getTransaction_okx_dex_pumpswap_cpi_depth3_success.json");
const FAILED_TX = fixture(
  "18_metamask-snap_getTransaction_failed_lifi_system_transfer_insufficient_lamports_custom1.json",
);

/**
 * A recorded transaction's JSON is serialised once, around a gap for its signature: the stand-in
 * stands for a provider outside the machine, and serialising 17 KB per transaction took CPU from the
 * process being measured.
 */
class RawJson {
  constructor(readonly json: string) {}
}
const SIGNATURE_GAP = "\u0000signature\u0000";
const aroundSignature = (template: any): [string, string] => {
  const [before, after] = JSON.stringify({
    ...template,
    transaction: { ...template.transaction, signatures: [SIGNATURE_GAP] },
  }).split(JSON.stringify(SIGNATURE_GAP));
  return [before, after];
};
const LANDED_JSON = aroundSignature(LANDED_TX);
const FAILED_JSON = aroundSignature(FAILED_TX);

/** The soak's mix: 60% landed, 10% failed on chain, 30% never landed. */
export const SOAK_FATES: Fates = { landed: 60, failed: 10, dropped: 30 };

const SOAK_PROVIDERS = [
  ["helius", "a1b2c3d4e5f60718"],
  ["triton", "0f1e2d3c4b5a6978"],
  ["public", "9a8b7c6d5e4f3021"],
] as const;

/**
 * The n-th envelope of the soak's traffic (`bun run soak`, and `bench resolve` with BENCH_MIX=soak):
 * 10% preflight failures (half of them without a signature), three providers and programs in turn,
 * payers in turn, a keypair adapter every 7th. `lastValidBlockHeight` is the caller's: the soak's
 * envelopes mostly have a live blockhash, the bench's an expired one.
 */
export function soakEnvelope(
  n: number,
  o: {
    signature: (n: number) => string;
    programs: readonly string[];
    payers: readonly string[];
    blockhash: string;
    sentAt: number;
    lastValidBlockHeight: number;
  },
) {
  const preflight = n % 10 === 0;
  const [rpcLabel, rpcHash] = SOAK_PROVIDERS[n % 3];
  return {
    sig: preflight && n % 20 === 0 ? null : o.signature(n),
    program: o.programs[n % 3],
    blockhash: o.blockhash,
    lastValidBlockHeight: o.lastValidBlockHeight,
    sentAt: o.sentAt,
    rpcHash,
    rpcLabel,
    walletAdapter: n % 7 === 0 ? "keypair" : "Phantom",
    kind: preflight ? "preflight" : "send",
    preflightError: preflight
      ? "Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1771"
      : null,
    simulationLogs: preflight ? ["Program log: Instruction: Route", "Program log: slippage exceeded"] : [],
    payer: o.payers[n % o.payers.length],
    sdkVersion: "0.1.0",
    cuLimit: 200_000,
    cuPriceMicroLamports: 1000 + (n % 5000),
  };
}
const GENESIS_HEIGHT = 300_000_000;
const SLOT_MS = 400;

export function startStandInChain(options: StandInOptions = {}): StandIn {
  const fates = options.fates ?? SOAK_FATES;
  const total = fates.landed + fates.failed + fates.dropped;
  const landedBelow = (fates.landed / total) * 65_536;
  const failedBelow = ((fates.landed + fates.failed) / total) * 65_536;
  // Per signature, deterministic: 16 bits of its hash against the shares. xxHash32 rather than
  // SHA-256 (~0.06 against ~0.7 µs a signature): in a 20,000/s soak the stand-in answers ~25,000
  // status look-ups a second on the machine being measured.
  const fate = (sig: string) => {
    const point = Bun.hash.xxHash32(sig, 0x5eed) & 0xffff;
    return point < landedBelow ? "landed" : point < failedBelow ? "failed" : "dropped";
  };
  const started = Date.now();
  const height = () => GENESIS_HEIGHT + Math.floor((Date.now() - started) / SLOT_MS);
  const slotTime = (slot: number) => Math.floor((started + (slot - GENESIS_HEIGHT) * SLOT_MS) / 1000);
  let requests = 0;
  const calls: Record<string, number> = {};
  const answer = (call: any) => {
    const params = call.params ?? [];
    calls[call.method] = (calls[call.method] ?? 0) + 1;
    switch (call.method) {
      case "getBlockHeight":
      case "getSlot":
        return { jsonrpc: "2.0", id: call.id, result: height() };
      case "getSignatureStatuses":
        return {
          jsonrpc: "2.0",
          id: call.id,
          result: {
            context: { slot: height() },
            value: (params[0] ?? []).map((sig: string) => {
              const f = fate(sig);
              if (f === "dropped") return null;
              return {
                slot: height() - 5,
                confirmations: null,
                err: f === "failed" ? FAILED_TX.meta.err : null,
                confirmationStatus: "finalized",
              };
            }),
          },
        };
      case "getBlockTime":
        return { jsonrpc: "2.0", id: call.id, result: slotTime(Number(params[0])) };
      case "getTransaction": {
        const f = fate(params[0]);
        if (f === "dropped") return { jsonrpc: "2.0", id: call.id, result: null };
        const [before, after] = f === "failed" ? FAILED_JSON : LANDED_JSON;
        return new RawJson(
          `{"jsonrpc":"2.0","id":${JSON.stringify(call.id)},"result":${before}${JSON.stringify(params[0])}${after}}`,
        );
      }
      case "getAccountInfo":
        return { jsonrpc: "2.0", id: call.id, result: { context: { slot: height() }, value: null } };
      case "getMultipleAccounts":
        return {
          jsonrpc: "2.0",
          id: call.id,
          result: { context: { slot: height() }, value: (params[0] ?? []).map(() => null) },
        };
      default:
        return { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "Method not found" } };
    }
  };
  const text = (reply: unknown) => (reply instanceof RawJson ? reply.json : JSON.stringify(reply));
  const server = Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    async fetch(request) {
      requests++;
      const body = (await request.json()) as any;
      return new Response(
        Array.isArray(body) ? `[${body.map((call) => text(answer(call))).join(",")}]` : text(answer(body)),
        {
          headers: { "content-type": "application/json" },
        },
      );
    },
  });
  return {
    url: `http://${server.hostname}:${server.port}`,
    port: server.port!,
    counts: () => ({ requests, calls: { ...calls } }),
    height,
    stop: () => server.stop(true),
  };
}

/**
 * Unique signatures for load generators, without a base58 encoding each (11 µs, a fifth of a core at
 * 20,000/s taken from the server being measured): `pool` random ones whose last 4 characters are
 * replaced by a counter (the same `n`, the same signature). Their first byte is kept within 2..254
 * so every variant still decodes to exactly 64 bytes. Signatures of one prefix differ only in their
 * last characters, which compression and the signature index's sort exploit as real signatures
 * never let them: a pool as large as the signatures wanted makes each its own (~11 µs each to
 * make), and randomSignatures makes them without one.
 */
export function uniqueSignatures(pool: number): (n: number) => string {
  const prefixes = Array.from({ length: pool }, () => {
    const bytes = randomBytes(64);
    bytes[0] = 2 + (bytes[0] % 253);
    return encodeBase58(bytes).slice(0, -4);
  });
  return (n) => {
    let rest = Math.floor(n / prefixes.length);
    let tail = "";
    for (let i = 0; i < 4; i++) {
      tail = BASE58_ALPHABET[rest % 58] + tail;
      rest = Math.floor(rest / 58);
    }
    return prefixes[n % prefixes.length] + tail;
  };
}

const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/**
 * Random signatures, as real ones are (64 random bytes: nothing shared for compression to take
 * away), for a load generator that needs no signature twice (`bun run soak`), without a base58
 * encoding each: 88 random base58 characters whose first is one of "2345" (a leading digit of 1–4)
 * always stand for a number from 58^87 (> 2^504) to below 5·58^87 (< 2^512), that is exactly 64
 * bytes. About a microsecond each.
 */
export function randomSignatures(): () => string {
  const codes = Buffer.from(BASE58_ALPHABET, "latin1");
  const random = Buffer.alloc(64 * 1024);
  let at = random.length;
  const out = Buffer.alloc(88);
  const nextByte = () => {
    if (at === random.length) {
      randomFillSync(random);
      at = 0;
    }
    return random[at++];
  };
  return () => {
    out[0] = codes[1 + (nextByte() & 3)];
    for (let i = 1; i < 88; ) {
      const byte = nextByte();
      if (byte < 232) out[i++] = codes[byte % 58]; // 232 = 4 × 58: every character as likely
    }
    return out.toString("latin1");
  };
}
