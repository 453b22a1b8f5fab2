// Deploy detection: for each tracked program, read its account and its ProgramData header over
// JSON-RPC (getMultipleAccounts, base64, batched by 100) and record every ProgramData slot not seen
// before, with the block time of that slot (getBlockTime; null when the node has none). Only the
// latest deploy is visible at each poll, so two redeploys between polls record the second.

import type { Duck } from "../../lake/duckdb";
import type { DataPaths } from "../../lake/paths";
import type { Logger } from "../../shared/logger";
import type { RpcClient } from "../rpc";
import { type DeployRecord, latestRecordedSlot, recordDeploy } from "./deploy-records";
import {
  decodeProgramData,
  PROGRAM_DATA_HEADER_BYTES,
  programDataAddressOf,
  UPGRADEABLE_LOADER_ID,
} from "./loader-state";

export type DetectDeps = { paths: DataPaths; duck: Duck; logger: Logger; clock: () => number };
export type DetectResult = {
  programs: number;
  upgradeable: number;
  recorded: DeployRecord[];
  skipped: { program: string; reason: string }[];
};

type AccountInfo = { owner: string; data: [string, string] | string; executable?: boolean } | null;
const BATCH = 100;

export async function detectDeploys(deps: DetectDeps, rpc: RpcClient, programs: string[]): Promise<DetectResult> {
  const result: DetectResult = { programs: programs.length, upgradeable: 0, recorded: [], skipped: [] };
  const programAccounts = await multipleAccounts(rpc, programs);
  const programData = new Map<string, string>();
  for (const [i, program] of programs.entries()) {
    const account = programAccounts[i];
    if (!account) {
      result.skipped.push({ program, reason: "no such account" });
      continue;
    }
    if (account.owner !== UPGRADEABLE_LOADER_ID) {
      result.skipped.push({ program, reason: `owner ${account.owner} is not the upgradeable loader` });
      continue;
    }
    const address = programDataAddressOf(accountBytes(account));
    if (!address) {
      result.skipped.push({ program, reason: "not an upgradeable program account" });
      continue;
    }
    programData.set(program, address);
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
      continue;
    }
    result.upgradeable++;
    if (latestRecordedSlot(deps.paths, program) === header.slot) continue;
    const deploy: DeployRecord = {
      program,
      slot: header.slot,
      deployedAt: await blockTimeMs(rpc, header.slot, deps.logger),
      detectedAt: deps.clock(),
      authority: header.authority,
    };
    await recordDeploy(deps.paths, deps.duck, deploy);
    result.recorded.push(deploy);
    deps.logger.info("deploy detected", { program, slot: header.slot });
  }
  return result;
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

/** Block time of a slot in Unix ms, or null when the node cannot tell (skipped or pruned slot). */
async function blockTimeMs(rpc: RpcClient, slot: number, logger: Logger): Promise<number | null> {
  try {
    const seconds = await rpc.call<number | null>("getBlockTime", [slot]);
    return typeof seconds === "number" ? seconds * 1000 : null;
  } catch (error) {
    logger.debug("no block time for deploy slot", {
      slot,
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}
