// Number, time and address formatting shared by the pages.

import type { CallFrame } from "./types";

export const pct = (value: number | null | undefined, digits = 1) =>
  value === null || value === undefined || !Number.isFinite(value) ? "–" : `${(value * 100).toFixed(digits)}%`;
export const num = (value: number | null | undefined) =>
  value === null || value === undefined ? "–" : value.toLocaleString("en-US");
/** As the server's texts write it (src/shared/wording.ts): never "p = 0.00". */
export const pValue = (p: number) => (p < 0.0001 ? "p < 0.0001" : `p = ${p.toPrecision(2)}`);
export const interval = (ci: [number, number] | null | undefined) => (ci ? `${pct(ci[0])} – ${pct(ci[1])}` : "–");
export const short = (text: string | null | undefined, keep = 4) =>
  !text ? "–" : text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep)}`;

export function when(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  return `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC`;
}

export function ago(ms: number | null | undefined, now = Date.now()): string {
  if (ms === null || ms === undefined) return "–";
  const seconds = Math.round((now - ms) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}

/**
 * Display names of well-known programs: the web app's copy of the server's table (the app imports
 * nothing of the server; test/web/names.test.ts checks the two agree). Call stacks carry the
 * server's names in their frames.
 */
const NAMES: Record<string, string> = {
  "11111111111111111111111111111111": "System Program",
  ComputeBudget111111111111111111111111111111: "Compute Budget",
  TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: "SPL Token",
  TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb: "Token-2022",
  ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL: "Associated Token",
  Vote111111111111111111111111111111111111111: "Vote Program",
  Stake11111111111111111111111111111111111111: "Stake Program",
  JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4: "Jupiter v6",
  "675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8": "Raydium AMM v4",
  CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK: "Raydium CLMM",
  whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc: "Orca Whirlpool",
  LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo: "Meteora DLMM",
  "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P": "pump.fun",
};
export const programName = (program: string | null | undefined) => (program ? (NAMES[program] ?? null) : null);

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
/** What a search string looks like: a signature (64 bytes), an address (32 bytes) or neither. */
export function classify(text: string): "signature" | "address" | null {
  const value = text.trim();
  if (!BASE58.test(value)) return null;
  if (value.length >= 86 && value.length <= 88) return "signature";
  if (value.length >= 32 && value.length <= 44) return "address";
  return null;
}

export const OUTCOME_LABEL: Record<string, string> = {
  landed: "Landed",
  failed_onchain: "Failed on chain",
  dropped: "Dropped",
  preflight: "Preflight failure",
};
export const outcomeLabel = (outcome: string | null | undefined) =>
  outcome ? (OUTCOME_LABEL[outcome] ?? outcome) : "Pending";
export const dropLabel = (dropClass: string | null | undefined) => (dropClass ? dropClass.replaceAll("_", " ") : "–");

/** A frame's program as a person reads it: the server's name for it, the app's, else a short id. */
export const frameName = (frame: CallFrame) =>
  frame.programName ?? programName(frame.program) ?? short(frame.program, 4);

/**
 * Where an instruction is, in words: "instruction", then Solana Explorer's number the server gives
 * (`ixNumber`, a frame's `number`: docs/api.md), or "a call inside instruction", then the top-level
 * number, when the call stack cannot say which of its calls it is; null without a path. `ixPath`
 * counts from 0 per level: a machine field, never shown as it is.
 */
export function instructionPlace(ixPath: string | null, ixNumber: string | null | undefined): string | null {
  if (ixPath === null) return null;
  return ixNumber ? `instruction ${ixNumber}` : `a call inside instruction #${Number(ixPath.split(".")[0]) + 1}`;
}

/**
 * Where a failure happened, in plain words (docs/api.md#the-call-stack): the instruction as Solana
 * Explorer numbers it and, for a failure inside a CPI, the chain of programs that called down to
 * it: "instruction <3.2>, inside a call from Jupiter v6 to Raydium CLMM" (the number as above).
 */
export function failurePlace(
  ixPath: string | null,
  ixNumber: string | null | undefined,
  stack: CallFrame[] | null | undefined,
): string | null {
  const place = instructionPlace(ixPath, ixNumber);
  if (place === null) return null;
  const failing = stack?.find((frame) => frame.failing);
  if (!stack || !failing) return place;
  const chain: CallFrame[] = [];
  for (
    let frame: CallFrame | undefined = failing;
    frame;
    frame = frame.parent === null ? undefined : stack[frame.parent]
  )
    chain.unshift(frame);
  if (chain.length === 1) return `${place}, in ${frameName(failing)} itself`;
  return `${place}, inside a call from ${chain.map(frameName).join(" to ")}`;
}
