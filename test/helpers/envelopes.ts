// Valid envelopes for tests and benchmarks: random but well-formed signatures and addresses.
import { randomBytes } from "node:crypto";
import { encodeBase58 } from "../../src/shared/base58";
import type { Envelope } from "../../src/shared/envelope";

export const randomAddress = () => encodeBase58(randomBytes(32));
export const randomSignature = () => encodeBase58(randomBytes(64));

export const PROGRAMS = {
  token: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
  jupiter: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
  system: "11111111111111111111111111111111",
};

export function makeEnvelope(overrides: Partial<Envelope> = {}): Envelope {
  return {
    sig: randomSignature(),
    program: PROGRAMS.jupiter,
    blockhash: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
    lastValidBlockHeight: 289_000_150,
    sentAt: 1_763_700_000_000,
    rpcHash: "a1b2c3d4e5f60718",
    rpcLabel: "helius",
    walletAdapter: "Phantom",
    kind: "send",
    preflightError: null,
    simulationLogs: [],
    payer: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
    sdkVersion: "0.1.0",
    ...overrides,
  };
}

export function makePreflightEnvelope(overrides: Partial<Envelope> = {}): Envelope {
  return makeEnvelope({
    kind: "preflight",
    sig: null,
    preflightError: "Transaction simulation failed: Blockhash not found",
    simulationLogs: [],
    ...overrides,
  });
}
