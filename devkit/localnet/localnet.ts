// startLocalnet: puts one LocalChain behind one or more HTTP endpoints ("providers"), runs the
// block timer, and exposes the fault controls both in process and as txray_* admin methods. The
// main endpoint is itself a provider (label "main", drop rate 0 unless configured); addProvider
// opens another port on the SAME chain with its own drop rate, as a second RPC vendor would be.

import { isBase58Address } from "../../src/shared/base58.ts";
import { type AddProviderOptions, type AdminControl, createAdminMethods, MAX_ADVANCE_BLOCKS } from "./admin.ts";
import { type ChainOptions, type DeployOptions, type DeployResult, LocalChain } from "./chain.ts";
import { type Dispatch, METHOD_NOT_FOUND, RpcError } from "./jsonrpc.ts";
import { createMethods, type Handler } from "./methods.ts";
import { seedFromText } from "./prng.ts";
import { Provider, type ProviderInfo, type ProviderStats } from "./provider.ts";
import { PubSub } from "./pubsub.ts";
import { type Endpoint, serveEndpoint } from "./server.ts";

export interface LocalnetOptions extends ChainOptions {
  /** Port of the main endpoint (default 0: a free port). */
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  hostname?: string;
  /** One block per this many ms (default 400); 0 = blocks only advance by hand (advanceBlocks). */
  blockTimeMs?: number;
  /** Drop rate of the main endpoint (default 0). */
  dropRate?: number;
  /** Label of the main endpoint's provider (default "main"). */
  label?: string;
  /** Also serve PubSub on port + 1 of every endpoint when free (default true). */
  wsCompanion?: boolean;
}

export interface ProviderHandle {
  label: string;
  url: string;
  wsUrl: string;
  port: number;
  readonly dropRate: number;
  readonly stats: ProviderStats;
  setDropRate(rate: number, seed?: number): void;
  stop(): Promise<void>;
}

export interface Localnet {
  url: string;
  wsUrl: string;
  port: number;
  hostname: string;
  chain: LocalChain;
  /** Serves the same chain on another port with its own drop behaviour. */
  addProvider(options?: AddProviderOptions): ProviderHandle;
  provider(label: string): ProviderHandle | undefined;
  providers(): ProviderInfo[];
  /** Changes a provider's drop rate (default: the main endpoint). */
  setDropRate(rate: number, provider?: string, seed?: number): ProviderInfo;
  advanceBlocks(count?: number): { slot: number; blockHeight: number; blockhash: string };
  deployProgram(programId?: string, options?: DeployOptions): DeployResult;
  /** Faucet transfer; returns the landed transaction's signature. */
  airdrop(address: string, lamports: bigint | number): string;
  /** Changes block timing at run time (0 = manual). */
  setBlockTime(ms: number): void;
  stop(): Promise<void>;
}

interface Running {
  provider: Provider;
  endpoint: Endpoint;
}

export async function startLocalnet(options: LocalnetOptions = {}): Promise<Localnet> {
  const hostname = options.hostname ?? "127.0.0.1";
  const chain = new LocalChain(options);
  const chainSeed = options.seed ?? 1;
  const pubsub = new PubSub(chain);
  const running = new Map<string, Running>();
  let blockTimeMs = 0;
  let timer: ReturnType<typeof setInterval> | null = null;
  let providerCount = 0;

  const info = (label: string): ProviderInfo => {
    const entry = running.get(label)!;
    return { label, url: entry.endpoint.url, dropRate: entry.provider.dropRate, stats: { ...entry.provider.stats } };
  };

  const find = (label: string): Running => {
    const entry = running.get(label);
    if (!entry) throw new RpcError(-32602, `Invalid params: unknown provider ${label}`);
    return entry;
  };

  const open = (label: string, dropRate: number, port: number, seed: number | undefined): Running => {
    if (running.has(label)) throw new RpcError(-32602, `Invalid params: provider ${label} already exists`);
    const provider = new Provider(label, chain, dropRate, seed ?? seedFromText(`${chainSeed}/${label}`));
    const standard = createMethods({ chain, provider });
    const admin = createAdminMethods(control, label);
    const dispatch: Dispatch = async (method, params) => {
      const handler: Handler | undefined = Object.hasOwn(standard, method)
        ? standard[method]
        : Object.hasOwn(admin, method)
          ? admin[method]
          : undefined;
      if (!handler) throw new RpcError(METHOD_NOT_FOUND, "Method not found");
      return handler(params);
    };
    const endpoint = serveEndpoint({ hostname, port, dispatch, pubsub, wsCompanion: options.wsCompanion });
    const entry = { provider, endpoint };
    running.set(label, entry);
    return entry;
  };

  const handle = (label: string): ProviderHandle => {
    const { provider, endpoint } = find(label);
    return {
      label,
      url: endpoint.url,
      wsUrl: endpoint.wsUrl,
      port: endpoint.port,
      get dropRate() {
        return provider.dropRate;
      },
      get stats() {
        return { ...provider.stats };
      },
      setDropRate: (rate, seed) => provider.setDropRate(rate, seed),
      stop: async () => {
        await control.removeProvider(label);
      },
    };
  };

  const control: AdminControl = {
    advanceBlocks(count) {
      if (!Number.isInteger(count) || count < 1 || count > MAX_ADVANCE_BLOCKS) {
        throw new RangeError(`count must be an integer within [1, ${MAX_ADVANCE_BLOCKS}]`);
      }
      const block = chain.advanceBlocks(count);
      return { slot: block.slot, blockHeight: block.height, blockhash: block.blockhash };
    },
    setDropRate(rate, provider = mainLabel, seed) {
      find(provider).provider.setDropRate(rate, seed);
      return info(provider);
    },
    addProvider(opts) {
      const label = opts.label ?? `provider-${++providerCount}`;
      open(label, opts.dropRate ?? 0, opts.port ?? 0, opts.seed);
      return info(label);
    },
    async removeProvider(label) {
      if (label === mainLabel) throw new RpcError(-32602, "Invalid params: the main endpoint cannot be removed");
      const entry = running.get(label);
      if (!entry) return false;
      running.delete(label);
      await entry.endpoint.stop();
      return true;
    },
    providers: () => [...running.keys()].map(info),
    deployProgram(programId, deployOptions) {
      if (programId !== undefined && !isBase58Address(programId)) throw new RpcError(-32602, "Invalid param: Invalid");
      return chain.deployProgram(programId, deployOptions);
    },
    setBlockTime(ms) {
      if (!Number.isInteger(ms) || ms < 0) throw new RangeError("blockTimeMs must be a non-negative integer");
      if (timer) clearInterval(timer);
      timer = null;
      blockTimeMs = ms;
      if (ms > 0) timer = setInterval(() => chain.advanceBlocks(1), ms);
    },
    info: () => ({
      slot: chain.slot,
      blockHeight: chain.blockHeight,
      ...chain.latestBlockhash(),
      genesisHash: chain.genesisHash,
      blockTimeMs,
      transactionCount: chain.ledger.count,
      faucet: chain.faucet.publicKey.toBase58(),
      providers: control.providers(),
    }),
  };

  const mainLabel = options.label ?? "main";
  const main = open(mainLabel, options.dropRate ?? 0, options.port ?? 0, undefined);
  control.setBlockTime(options.blockTimeMs ?? 400);

  return {
    url: main.endpoint.url,
    wsUrl: main.endpoint.wsUrl,
    port: main.endpoint.port,
    hostname,
    chain,
    addProvider: (opts = {}) => handle(control.addProvider(opts).label),
    provider: (label) => (running.has(label) ? handle(label) : undefined),
    providers: control.providers,
    setDropRate: (rate, provider, seed) => control.setDropRate(rate, provider, seed),
    advanceBlocks: (count = 1) => control.advanceBlocks(count),
    deployProgram: (programId, deployOptions) => control.deployProgram(programId, deployOptions),
    airdrop: (address, lamports) => {
      const result = chain.airdrop(address, BigInt(lamports));
      if (!result.landed || result.err) throw new Error(`airdrop to ${address} failed`);
      return result.signature;
    },
    setBlockTime: (ms) => control.setBlockTime(ms),
    async stop() {
      control.setBlockTime(0);
      const entries = [...running.values()];
      running.clear();
      await Promise.all(entries.map((entry) => entry.endpoint.stop()));
      pubsub.dispose();
    },
  };
}
