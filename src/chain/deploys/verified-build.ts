// The source of a deploy, from its verified-build record: the OtterSec verify program
// (verifycLy8mB96wd9wqq3WDXQwM4oU6r42Th37Db9fC), written by `solana-verify` after a deploy, keeps one
// PDA per (signer, program) at seeds ["otter_verify", signer, program] holding the repository URL and
// commit the deployed executable was built from. Account layout (the program's Anchor account
// `BuildParams`, Borsh: github.com/otter-sec/otter-verify, programs/otter-verify/src/lib.rs; as read by
// github.com/otter-sec/solana-verified-programs-api and written by
// github.com/Ellipsis-Labs/solana-verifiable-build, src/solana_program.rs):
//   [0..8) discriminator, address: Pubkey (the program), signer: Pubkey, version: String,
//   git_url: String, commit: String, args: Vec<String>, deploy_slot: u64, bump: u8
// (String = u32 LE length + UTF-8 bytes; Vec = u32 LE count + items). Records written before the
// program gained `deploy_slot` end at `bump`: too short here, so they name no deploy.
//
// Anyone may write a record for any program under their own signer, so only two signers are
// believed: the program's upgrade authority (who can deploy it) and the OtterSec API's signers,
// which write a record only after rebuilding the program and matching its executable. A record
// names a deploy only when its `deployed_slot` is that deploy's ProgramData slot: a record left
// from an earlier release says nothing about the new one. One getMultipleAccounts per deploy reads
// the candidate PDAs; the answer (or its absence) is cached per deploy under
// `<dataDir>/verified-builds/<program>/<slot>.json`, and a deploy without a record is asked again
// at most hourly for its first week (records are often uploaded some time after the deploy).

import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PublicKey } from "@solana/web3.js";
import type { DataPaths } from "../../lake/paths";
import { decodeBase58, encodeBase58, isBase58Address } from "../../shared/base58";
import type { RpcClient } from "../rpc";
import { latestRecordedSlot } from "./deploy-records";

export const OTTER_VERIFY_PROGRAM_ID = "verifycLy8mB96wd9wqq3WDXQwM4oU6r42Th37Db9fC";
const PDA_SEED = "otter_verify";
/** The OtterSec verification API's signers (solana-verified-programs-api, SIGNER_KEYS). */
export const OTTERSEC_SIGNERS = [
  "9VWiUUhgNoRwTH5NVehYJEDwcotwYX3VgW4MChiHPAqU",
  "CyJj5ejJAUveDXnLduJbkvwjxcmWJNqCuB9DR7AExrHn",
  "5vJwnLeyjV8uNJSp1zn7VLW8GwiQbcsQbGaVSwRmkE4r",
];
export const VERIFIED_BUILDS_DIR_NAME = "verified-builds";
/** Longest string field read from a record: git URLs and commits are short; anything longer is not a record. */
const MAX_FIELD_BYTES = 2048;
const MAX_ARGS = 256;
const RECHECK_MS = 60 * 60 * 1000;
const RECHECK_FOR_MS = 7 * 24 * 60 * 60 * 1000;

export type DeploySource = { repository: string; commit: string };

export interface VerificationRecord {
  program: string;
  signer: string;
  version: string;
  repository: string;
  commit: string;
  args: string[];
  deployedSlot: number;
}

class Reader {
  private offset = 8;
  constructor(private readonly data: Uint8Array) {}
  pubkey(): string {
    return encodeBase58(this.bytes(32));
  }
  u32(): number {
    this.need(4);
    const value = new DataView(this.data.buffer, this.data.byteOffset + this.offset, 4).getUint32(0, true);
    this.offset += 4;
    return value;
  }
  u64(): number {
    this.need(8);
    const value = new DataView(this.data.buffer, this.data.byteOffset + this.offset, 8).getBigUint64(0, true);
    this.offset += 8;
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError("slot out of range");
    return Number(value);
  }
  string(): string {
    const length = this.u32();
    if (length > MAX_FIELD_BYTES) throw new RangeError("string too long");
    return new TextDecoder("utf-8", { fatal: true }).decode(this.bytes(length));
  }
  private bytes(length: number): Uint8Array {
    this.need(length);
    const out = this.data.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
  private need(length: number): void {
    if (this.offset + length > this.data.length) throw new RangeError("record too short");
  }
}

/** Decodes a verify-program record; null when the data is not one (too short, bad lengths, bad UTF-8). */
export function decodeVerificationRecord(data: Uint8Array): VerificationRecord | null {
  try {
    const reader = new Reader(data);
    const program = reader.pubkey();
    const signer = reader.pubkey();
    const version = reader.string();
    const repository = reader.string();
    const commit = reader.string();
    const count = reader.u32();
    if (count > MAX_ARGS) return null;
    const args: string[] = [];
    for (let i = 0; i < count; i++) args.push(reader.string());
    const deployedSlot = reader.u64();
    return { program, signer, version, repository, commit, args, deployedSlot };
  } catch {
    return null;
  }
}

/** The record PDA of (signer, program): seeds ["otter_verify", signer, program] under the verify program. */
export function verificationRecordAddress(signer: string, program: string): string {
  const [address] = PublicKey.findProgramAddressSync(
    [Buffer.from(PDA_SEED), decodeBase58(signer) as Uint8Array, decodeBase58(program) as Uint8Array],
    new PublicKey(OTTER_VERIFY_PROGRAM_ID),
  );
  return address.toBase58();
}

/** A repository URL worth showing: printable ASCII, http(s) only, no credentials. */
function cleanRepository(url: string): string | null {
  if (!/^[!-~]{1,2048}$/.test(url)) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
    if (parsed.username || parsed.password) return null;
    return url;
  } catch {
    return null;
  }
}

/** A commit as a git ref may spell it: a hash, or a tag/branch name without odd characters. */
const COMMIT = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/;

/**
 * The source of the deploy of `program` at `slot`: the record of its upgrade authority, else of an
 * OtterSec signer, whose `deployed_slot` is `slot`. Null when none says so.
 */
export async function fetchDeploySource(
  rpc: RpcClient,
  program: string,
  slot: number,
  authority: string | null,
): Promise<DeploySource | null> {
  const signers = [...new Set([...(authority && isBase58Address(authority) ? [authority] : []), ...OTTERSEC_SIGNERS])];
  const reply = await rpc.call<{ value: ({ data: [string, string] } | null)[] }>("getMultipleAccounts", [
    signers.map((signer) => verificationRecordAddress(signer, program)),
    { encoding: "base64", commitment: "confirmed" },
  ]);
  for (const [i, account] of (reply.value ?? []).entries()) {
    if (!account) continue;
    const record = decodeVerificationRecord(new Uint8Array(Buffer.from(account.data[0], "base64")));
    if (!record || record.program !== program || record.signer !== signers[i] || record.deployedSlot !== slot) continue;
    const repository = cleanRepository(record.repository);
    const commit = record.commit.trim();
    if (repository && COMMIT.test(commit)) return { repository, commit };
  }
  return null;
}

/** Link to the commits between two deploys' sources: GitHub's compare view; null elsewhere or across repositories. */
export function compareUrl(older: DeploySource | null, newer: DeploySource | null): string | null {
  if (!older || !newer || older.commit === newer.commit) return null;
  const base = githubRepository(older.repository);
  if (!base || base !== githubRepository(newer.repository)) return null;
  return `${base}/compare/${encodeURIComponent(older.commit)}...${encodeURIComponent(newer.commit)}`;
}

function githubRepository(url: string): string | null {
  const match = /^https?:\/\/(?:www\.)?github\.com\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(url);
  return match ? `https://github.com/${match[1]}/${match[2]}` : null;
}

/** A deploy's cached answer: `firstAt` is when it was first asked about, `checkedAt` the latest. */
type CachedSource = { source: DeploySource | null; checkedAt: number; firstAt: number; authority: string | null };

function cachePath(dataDir: string, program: string, slot: number): string | null {
  if (!isBase58Address(program) || !Number.isSafeInteger(slot) || slot < 0) return null;
  return join(dataDir, VERIFIED_BUILDS_DIR_NAME, program, `${slot}.json`);
}

function readCached(dataDir: string, program: string, slot: number): CachedSource | null {
  const path = cachePath(dataDir, program, slot);
  if (!path) return null;
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as CachedSource;
    return typeof value?.checkedAt === "number" ? value : null;
  } catch {
    return null;
  }
}

function writeCached(dataDir: string, program: string, slot: number, value: CachedSource): void {
  const path = cachePath(dataDir, program, slot);
  if (!path) return;
  mkdirSync(join(path, ".."), { recursive: true });
  const temp = `${path}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  writeFileSync(temp, JSON.stringify(value));
  renameSync(temp, path);
}

/** The cached source of the deploy of `program` at `slot`; null when unknown. */
export function deploySource(dataDir: string, program: string, slot: number): DeploySource | null {
  return readCached(dataDir, program, slot)?.source ?? null;
}

export type DeployToSource = { program: string; slot: number; authority: string | null };

/**
 * Fetches and caches the source of each deploy not yet known: new deploys at once, a deploy without
 * a record again after an hour, for a week after it was first asked about. RPC errors leave the
 * cache as it was, so the next run asks again.
 */
export async function refreshDeploySources(
  dataDir: string,
  rpc: RpcClient,
  deploys: DeployToSource[],
  now: number,
): Promise<{ found: number; checked: number; failed: number }> {
  const result = { found: 0, checked: 0, failed: 0 };
  for (const deploy of deploys) {
    const cached = readCached(dataDir, deploy.program, deploy.slot);
    if (cached?.source) continue;
    const firstAsked = cached?.firstAt ?? now;
    if (cached && (now - cached.checkedAt < RECHECK_MS || now - firstAsked > RECHECK_FOR_MS)) continue;
    const authority = deploy.authority ?? cached?.authority ?? null;
    try {
      const source = await fetchDeploySource(rpc, deploy.program, deploy.slot, authority);
      writeCached(dataDir, deploy.program, deploy.slot, { source, checkedAt: now, firstAt: firstAsked, authority });
      result.checked++;
      if (source) result.found++;
    } catch {
      result.failed++;
    }
  }
  return result;
}

/**
 * The deploys whose source to look for: those just recorded (with their upgrade authority) and the
 * latest recorded deploy of every other program (its authority as cached, else only OtterSec's
 * signers are asked).
 */
export function deploysToSource(paths: DataPaths, programs: string[], recorded: DeployToSource[]): DeployToSource[] {
  const out = new Map<string, DeployToSource>();
  for (const program of programs) {
    const slot = latestRecordedSlot(paths, program);
    if (slot !== null) out.set(program, { program, slot, authority: null });
  }
  for (const deploy of recorded)
    out.set(deploy.program, { program: deploy.program, slot: deploy.slot, authority: deploy.authority });
  return [...out.values()];
}
