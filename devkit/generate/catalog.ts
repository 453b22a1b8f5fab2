// The synthetic world the volume generator draws from: programs, payers, RPC providers with their
// drop rates, instructions with CU profiles, program errors with Zipf-like frequencies, preflight
// errors, deploys (one of which introduces a regression). Small dimension tables only: the
// per-envelope rows are produced by DuckDB (generate/sql.ts), never as JS objects.

import { createHash } from "node:crypto";
import { encodeBase58 } from "../../src/shared/base58";

export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

/** A deterministic 32-byte base58 address for a name. */
export function syntheticAddress(seed: number, name: string): string {
  return encodeBase58(createHash("sha256").update(`txray-gen:${seed}:${name}`).digest());
}

export type Provider = {
  label: string;
  hash: string;
  dropRate: number;
  landMs: number;
  humanShare: number;
  botShare: number;
};

const providerHash = (origin: string) => createHash("sha256").update(origin).digest("hex").slice(0, 16);

export const PROVIDERS: Provider[] = [
  {
    label: "helius",
    hash: providerHash("https://mainnet.helius-rpc.com"),
    dropRate: 0.02,
    landMs: 900,
    humanShare: 0.3,
    botShare: 0.5,
  },
  {
    label: "triton",
    hash: providerHash("https://triton.rpcpool.com"),
    dropRate: 0.03,
    landMs: 800,
    humanShare: 0.15,
    botShare: 0.4,
  },
  {
    label: "quicknode",
    hash: providerHash("https://solana-mainnet.quiknode.pro"),
    dropRate: 0.05,
    landMs: 1200,
    humanShare: 0.15,
    botShare: 0.1,
  },
  {
    label: "alchemy",
    hash: providerHash("https://solana-mainnet.g.alchemy.com"),
    dropRate: 0.04,
    landMs: 1300,
    humanShare: 0.1,
    botShare: 0,
  },
  {
    label: "ankr",
    hash: providerHash("https://rpc.ankr.com"),
    dropRate: 0.12,
    landMs: 1800,
    humanShare: 0.1,
    botShare: 0,
  },
  {
    label: "public",
    hash: providerHash("https://api.mainnet-beta.solana.com"),
    dropRate: 0.25,
    landMs: 2500,
    humanShare: 0.2,
    botShare: 0,
  },
];

export type Instruction = { name: string; baseCu: number; share: number };

export const INSTRUCTIONS: Instruction[] = [
  { name: "swap", baseCu: 120_000, share: 0.5 },
  { name: "deposit", baseCu: 60_000, share: 0.15 },
  { name: "withdraw", baseCu: 55_000, share: 0.15 },
  { name: "claim", baseCu: 30_000, share: 0.15 },
  { name: "initialize", baseCu: 15_000, share: 0.05 },
];

/** Names of the custom error codes 6000 + i (Anchor-style). */
export const ERROR_NAMES = [
  "SlippageExceeded",
  "InsufficientLiquidity",
  "InvalidAmount",
  "PoolPaused",
  "Unauthorized",
  "InvalidOracle",
  "MathOverflow",
  "StalePrice",
  "InvalidAccount",
  "PositionNotFound",
  "AlreadyClaimed",
  "NothingToClaim",
  "DepositTooSmall",
  "WithdrawTooLarge",
  "InvalidTickRange",
  "ExceededMaxFee",
  "InvalidMint",
  "AccountFrozen",
  "InvalidAuthority",
  "DeadlineExceeded",
];

/** Added by the regressing deploy: swap starts failing with it. */
export const REGRESSION_ERROR = { code: 6099, name: "StaleOracle" };

/** Error rank r (1-based) of a failure has weight 1/r^1.3: a few issues dominate (Zipf-like). */
export const ERROR_RANKS = 8;
export function zipfThresholds(count: number, exponent: number): number[] {
  const weights = Array.from({ length: count }, (_, k) => 1 / (k + 1) ** exponent);
  const total = weights.reduce((a, b) => a + b, 0);
  let cumulative = 0;
  return weights.map((w) => (cumulative += w / total));
}

export type PreflightError = { text: string; key: string; share: number; custom: number | null };

export const PREFLIGHT_ERRORS: PreflightError[] = [
  { text: "Transaction simulation failed: Blockhash not found", key: "BlockhashNotFound", share: 0.3, custom: null },
  {
    text: "Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.",
    key: "AccountNotFound",
    share: 0.25,
    custom: null,
  },
  {
    text: "Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1770",
    key: "Custom:6000",
    share: 0.3,
    custom: 6000,
  },
  {
    text: "Transaction simulation failed: Transaction results in an account (1) with insufficient funds for rent",
    key: "InsufficientFundsForRent",
    share: 0.15,
    custom: null,
  },
];

export const HUMAN_ADAPTERS = [
  { name: "Phantom", share: 0.5 },
  { name: "Solflare", share: 0.25 },
  { name: "Backpack", share: 0.15 },
  { name: "unknown", share: 0.1 },
];
export const BOT_ADAPTERS = [
  { name: "keypair", share: 0.7 },
  { name: "unknown", share: 0.3 },
];

export const DROP_CLASSES = [
  { name: "expired_blockhash", share: 0.55 },
  { name: "stale_blockhash_at_send", share: 0.15 },
  { name: "superseded_by_retry", share: 0.1 },
  { name: "rpc_not_forwarding", share: 0.12 },
  { name: "unknown", share: 0.08 },
];

/** Slot numbering of the synthetic chain: 400 ms slots ending at `endMs`. */
export const SLOT_AT_END = 300_000_000;
export function slotAt(timeMs: number, endMs: number): number {
  return SLOT_AT_END - Math.floor((endMs - timeMs) / 400);
}

export type SyntheticDeploy = {
  program: string;
  slot: number;
  deployedAt: number;
  detectedAt: number;
  authority: string | null;
  regression: boolean;
};

/** Each program gets one quiet deploy; program 0 also gets a later deploy that regresses `swap`. */
export function syntheticDeploys(seed: number, programs: string[], endMs: number, days: number): SyntheticDeploy[] {
  const dayMs = 86_400_000;
  const deploys: SyntheticDeploy[] = [];
  programs.forEach((program, index) => {
    const quietAt = endMs - Math.round(Math.max(1, days * 0.6 - (index % 5)) * dayMs);
    const authority = syntheticAddress(seed, `authority:${index}`);
    deploys.push({
      program,
      slot: slotAt(quietAt, endMs),
      deployedAt: quietAt,
      detectedAt: quietAt + 60_000,
      authority,
      regression: false,
    });
    if (index === 0) {
      const regressAt = endMs - Math.round(Math.max(0.5, days / 6) * dayMs);
      deploys.push({
        program,
        slot: slotAt(regressAt, endMs),
        deployedAt: regressAt,
        detectedAt: regressAt + 60_000,
        authority,
        regression: true,
      });
    }
  });
  return deploys;
}
