// Fault controls over JSON-RPC: `txray_*` methods that drive the same operations tests call in
// process (advance blocks so blockhashes expire, change a provider's drop rate, add/remove
// providers, deploy/redeploy programs, change block timing). Parameters may be by name
// (`{"count": 3}`), a single object in an array (`[{"count": 3}]`) or positional (`[3]`).

import { z } from "zod";
import type { DeployResult, ProgramTemplate } from "./chain.ts";
import { parseParams, RpcError } from "./jsonrpc.ts";
import type { Handler } from "./methods.ts";
import type { ProviderInfo } from "./provider.ts";

export interface AddProviderOptions {
  /** Probability in [0, 1] that an accepted send is never executed. */
  dropRate?: number;
  /** Port to bind (0 or omitted: a free port). */
  port?: number;
  /** Name reported by providers()/txray_listProviders (default "provider-<n>"). */
  label?: string;
  /** Seed of the drop generator (default: derived from the chain seed and the label). */
  seed?: number;
}

/** What the admin methods can do to a running localnet (implemented by localnet.ts). */
export interface AdminControl {
  advanceBlocks(count: number): { slot: number; blockHeight: number; blockhash: string };
  setDropRate(dropRate: number, provider?: string, seed?: number): ProviderInfo;
  addProvider(options: AddProviderOptions): ProviderInfo;
  removeProvider(provider: string): Promise<boolean>;
  providers(): ProviderInfo[];
  deployProgram(
    programId?: string,
    options?: { elf?: Uint8Array; template?: ProgramTemplate; authority?: string | null },
  ): DeployResult;
  setBlockTime(ms: number): void;
  info(): Record<string, unknown>;
}

export const MAX_ADVANCE_BLOCKS = 1_000_000;

/** Turns by-name, wrapped or positional params into one object keyed by `names`. */
function named(params: unknown, names: string[]): Record<string, unknown> {
  if (params === undefined || params === null) return {};
  if (!Array.isArray(params)) return params as Record<string, unknown>;
  if (params.length === 1 && typeof params[0] === "object" && params[0] !== null && !Array.isArray(params[0])) {
    return params[0] as Record<string, unknown>;
  }
  return Object.fromEntries(params.map((value, i) => [names[i] ?? `_${i}`, value]));
}

const rate = z.number().min(0).max(1);
const templates = z.enum(["memo", "spl-token", "spl-token-2022", "associated-token"]);

/** Admin handlers for one endpoint; `self` is that endpoint's provider label (default target). */
export function createAdminMethods(control: AdminControl, self: string): Record<string, Handler> {
  return {
    txray_advanceBlocks: (params) => {
      const { count } = parseParams(
        z.object({ count: z.number().int().min(1).max(MAX_ADVANCE_BLOCKS).default(1) }),
        named(params, ["count"]),
      );
      return control.advanceBlocks(count);
    },
    txray_setDropRate: (params) => {
      const { dropRate, provider, seed } = parseParams(
        z.object({ dropRate: rate, provider: z.string().optional(), seed: z.number().int().optional() }),
        named(params, ["dropRate", "provider", "seed"]),
      );
      return control.setDropRate(dropRate, provider ?? self, seed);
    },
    txray_addProvider: (params) => {
      const options = parseParams(
        z.object({
          dropRate: rate.optional(),
          port: z.number().int().min(0).max(65535).optional(),
          label: z.string().min(1).max(64).optional(),
          seed: z.number().int().optional(),
        }),
        named(params, ["dropRate", "port", "label", "seed"]),
      );
      return control.addProvider(options);
    },
    txray_removeProvider: async (params) => {
      const { provider } = parseParams(z.object({ provider: z.string() }), named(params, ["provider"]));
      if (!(await control.removeProvider(provider)))
        throw new RpcError(-32602, `Invalid params: unknown provider ${provider}`);
      return true;
    },
    txray_listProviders: () => control.providers(),
    txray_deployProgram: (params) => {
      const { programId, template, elf, authority } = parseParams(
        z.object({
          programId: z.string().optional(),
          template: templates.optional(),
          elf: z.string().optional(),
          authority: z.string().nullable().optional(),
        }),
        named(params, ["programId", "template"]),
      );
      return control.deployProgram(programId, {
        template,
        authority,
        elf: elf === undefined ? undefined : new Uint8Array(Buffer.from(elf, "base64")),
      });
    },
    txray_setBlockTime: (params) => {
      const { ms } = parseParams(z.object({ ms: z.number().int().min(0) }), named(params, ["ms"]));
      control.setBlockTime(ms);
      return { blockTimeMs: ms };
    },
    txray_info: () => control.info(),
  };
}
