// Deploy detection: for each tracked program, read its account and its ProgramData header over
// JSON-RPC (getMultipleAccounts, base64, batched by 100) and record every ProgramData slot not seen
// before, with the block time of that slot (getBlockTime; null when the node has none). Only the
// latest deploy is visible at each poll, so two redeploys between polls record the second.
//
// A deploy is a change of the program's executable data that txray observed, or, at the first look
// at a program with no recorded deploy, the last-deploy slot its ProgramData records when the chain
// can date it (getBlockTime of that slot answers). A first look at an undatable slot (a program
// loaded from a dump at a slot the chain never produced, a pruned slot) is a baseline, not a deploy:
// nothing is written, so release-diff answers "no deploy observed yet" rather than diffing against a
// release nobody saw. The baseline is kept for the context's life (DEPLOY_BASELINES); a later change
// of slot is a deploy, dated or not. After a restart the first look is a first look again.
//
// A program's ProgramData address is fixed by its id, so a watch (`reuseProgramAccounts`) reads a
// program account once and then only the ProgramData headers: one getMultipleAccounts of 45-byte
// slices per 100 programs a run. A program whose ProgramData is gone or undecodable has its program
// account read again at the next run.

import type { Context, OwnedPart } from "../../context";
import type { Duck } from "../../lake/duckdb";
import type { DataPaths } from "../../lake/paths";
import type { Logger } from "../../shared/logger";
import { type RpcClient, RpcError } from "../rpc";
import { type DeployRecord, latestRecordedSlot, recordDeploy } from "./deploy-records";
import {
  decodeProgramData,
  PROGRAM_DATA_HEADER_BYTES,
  programDataAddressOf,
  UPGRADEABLE_LOADER_ID,
} from "./loader-state";

export type DetectDeps = {
  paths: DataPaths;
  duck: Duck;
  logger: Logger;
  clock: () => number;
  own: Context["own"];
};
export type DetectResult = {
  programs: number;
  upgradeable: number;
  recorded: DeployRecord[];
  /** Programs first seen at an undatable ProgramData slot: a baseline, no deploy recorded. */
  baselines: { program: string; slot: number }[];
  skipped: { program: string; reason: string }[];
};

/** The ProgramData slot of each program first seen without a datable deploy, by program. */
const DEPLOY_BASELINES: OwnedPart<Map<string, number>> = { name: "deploy baselines", make: () => new Map() };

/** What a program's account said at its last read: its ProgramData address, or why it has none. */
type ProgramAccountLook = { programData: string } | { skipped: string };
const PROGRAM_ACCOUNT_LOOKS: OwnedPart<Map<string, ProgramAccountLook>> = {
  name: "program account looks",
  make: () => new Map(),
};

export type DetectOptions = {
  /**
   * Read only the program accounts not read before in this context (the others' ProgramData address cannot change);
   * without it every program account is read again (a full look: a closed or re-created program is noticed).
   */
  reuseProgramAccounts?: boolean;
};

type AccountInfo = { owner: string; data: [string, string] | string; executable?: boolean } | null;
const BATCH = 100;

export async function detectDeploys(
  deps: DetectDeps,
  rpc: RpcClient,
  programs: string[],
  options: DetectOptions = {},
): Promise<DetectResult> {
  const result: DetectResult = { programs: programs.length, upgradeable: 0, recorded: [], baselines: [], skipped: [] };
  const baselines = deps.own(DEPLOY_BASELINES);
  const looks = deps.own(PROGRAM_ACCOUNT_LOOKS);
  const unread = options.reuseProgramAccounts ? programs.filter((program) => !looks.has(program)) : programs;
  const programAccounts = await multipleAccounts(rpc, unread);
  for (const [i, program] of unread.entries()) looks.set(program, programAccountLook(programAccounts[i]));
  const programData = new Map<string, string>();
  for (const program of programs) {
    const look = looks.get(program)!;
    if ("skipped" in look) result.skipped.push({ program, reason: look.skipped });
    else programData.set(program, look.programData);
  }
  const withData = [...programData.keys()];
  const dataAccounts = await multipleAccounts(
    rpc,
    withData.map((p) => programData.get(p)!),
    { offset: 0, length: PROGRAM_DATA_HEADER_BYTES },
  );
  for (let i = 0; i < withData.length; i++) {
    const program = withData[i];
    const account = dataAccounts[i];
    const header = account ? decodeProgramData(accountBytes(account)) : null;
    if (!header) {
      result.skipped.push({ program, reason: "ProgramData missing or undecodable (closed program?)" });
      looks.delete(program);
      continue;
    }
    result.upgradeable++;
    const recordedSlot = latestRecordedSlot(deps.paths, program);
    if (recordedSlot === header.slot) continue;
    const baseline = baselines.get(program);
    if (recordedSlot === null && baseline === header.slot) continue;
    const blockTime = await blockTimeMs(rpc, header.slot, deps.logger);
    const firstLook = recordedSlot === null && baseline === undefined;
    // The node could not be asked: a first look decides nothing and is made again at the next poll.
    if (firstLook && blockTime === "unasked") {
      result.skipped.push({ program, reason: "block time of its deploy slot could not be asked; retried next run" });
      continue;
    }
    const deployedAt = blockTime === "unasked" ? null : blockTime;
    if (firstLook && deployedAt === null) {
      baselines.set(program, header.slot);
      result.baselines.push({ program, slot: header.slot });
      deps.logger.info("program first seen at an undatable deploy slot: a baseline, no deploy", {
        program,
        slot: header.slot,
      });
      continue;
    }
    const deploy: DeployRecord = {
      program,
      slot: header.slot,
      deployedAt,
      detectedAt: deps.clock(),
      authority: header.authority,
    };
    await recordDeploy(deps.paths, deps.duck, deploy);
    baselines.delete(program);
    result.recorded.push(deploy);
    deps.logger.info("deploy detected", { program, slot: header.slot });
  }
  return result;
}

function programAccountLook(account: AccountInfo): ProgramAccountLook {
  if (!account) return { skipped: "no such account" };
  if (account.owner !== UPGRADEABLE_LOADER_ID)
    return { skipped: `owner ${account.owner} is not the upgradeable loader` };
  const address = programDataAddressOf(accountBytes(account));
  return address ? { programData: address } : { skipped: "not an upgradeable program account" };
}

async function multipleAccounts(
  rpc: RpcClient,
  addresses: string[],
  dataSlice?: { offset: number; length: number },
): Promise<AccountInfo[]> {
  const out: AccountInfo[] = [];
  for (let start = 0; start < addresses.length; start += BATCH) {
    const keys = addresses.slice(start, start + BATCH);
    const config: Record<string, unknown> = { encoding: "base64", commitment: "confirmed" };
    if (dataSlice) config.dataSlice = dataSlice;
    const reply = await rpc.call<{ value: AccountInfo[] }>("getMultipleAccounts", [keys, config]);
    out.push(...keys.map((_, i) => reply.value[i] ?? null));
  }
  return out;
}

function accountBytes(account: NonNullable<AccountInfo>): Uint8Array {
  const data = account.data;
  if (Array.isArray(data) && data[1] === "base64") return Buffer.from(data[0], "base64");
  return new Uint8Array(0);
}

/**
 * Block time of a slot in Unix ms; null when the node answers that it cannot tell (a skipped or
 * pruned slot: a JSON-RPC error or a null result); "unasked" when no answer came (a timeout, an
 * HTTP error), which says nothing about the slot.
 */
async function blockTimeMs(rpc: RpcClient, slot: number, logger: Logger): Promise<number | null | "unasked"> {
  try {
    const seconds = await rpc.call<number | null>("getBlockTime", [slot]);
    return typeof seconds === "number" ? seconds * 1000 : null;
  } catch (error) {
    const answered = error instanceof RpcError && error.code !== null;
    logger.debug(answered ? "no block time for deploy slot" : "block time of deploy slot not asked", {
      slot,
      error: error instanceof Error ? error.message : String(error),
    });
    return answered ? null : "unasked";
  }
}
