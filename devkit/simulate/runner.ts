// runTraffic: the simulator's driver. Against a local chain's main endpoint it opens the providers
// (txray_addProvider), builds the world, then runs N attempts one after another, each with a
// scenario, wallet, recipient and provider drawn from one seeded generator. Optionally it redeploys
// the app program with a broken release mid-run (release-diff material), and at the end advances
// the chain past every blockhash used so dropped attempts are resolvable as expired.

import { Connection } from "@solana/web3.js";
import { rpcHash } from "../../src/shared/rpc-identity.ts";
import { MAX_PROCESSING_AGE } from "../localnet/blocks.ts";
import type { DeployResult } from "../localnet/chain.ts";
import { mulberry32, type Random } from "../localnet/prng.ts";
import { ChainClient, ChainRpcError } from "./chain-client.ts";
import { BOT_ADAPTER, createWorld, type Wallet, type World } from "./fixtures.ts";
import { type ProviderEndpoint, runAttempt } from "./scenarios.ts";
import { type Summary, summarize } from "./summary.ts";
import { type Attempt, SCENARIOS, type ScenarioKind } from "./truth.ts";

export interface ProviderSpec {
  label: string;
  dropRate: number;
  /** Seed of the provider's drop generator (default: derived by the localnet). */
  seed?: number;
  /** Relative share of attempts routed through it (default 1). */
  weight?: number;
}

export const DEFAULT_PROVIDERS: ProviderSpec[] = [
  { label: "alpha", dropRate: 0 },
  { label: "bravo", dropRate: 0.05 },
  { label: "charlie", dropRate: 0.4 },
];

export const DEFAULT_MIX: Record<ScenarioKind, number> = {
  sol_transfer: 25,
  token_transfer: 20,
  app_call: 10,
  sol_insufficient: 6,
  token_insufficient: 6,
  compute_exceeded: 6,
  preflight_sol: 5,
  preflight_token: 5,
  preflight_blockhash: 3,
  preflight_unsigned: 3,
  expired: 3,
};

export interface RunOptions {
  /** Main endpoint of a localnet: admin methods, setup and ground-truth look-ups go here. */
  rpcUrl: string;
  attempts?: number;
  seed?: number;
  providers?: ProviderSpec[];
  /** Scenario weights; missing kinds weigh 0 when given, DEFAULT_MIX when omitted. */
  mix?: Partial<Record<ScenarioKind, number>>;
  payers?: number;
  /** Pause between attempts (default 0). */
  intervalMs?: number;
  /** Blocks to advance (via txray_advanceBlocks) after each attempt (default 0: leave it to the chain's timer). */
  blocksPerAttempt?: number;
  /** Redeploy the app program with a broken release before attempt #n. */
  redeployAt?: number;
  /** Advance past every used blockhash at the end (default true). */
  expireAtEnd?: boolean;
  preflightErrorText?: "transactionMessage" | "message";
  now?: () => number;
  onAttempt?: (attempt: Attempt, index: number) => void;
}

export interface RunResult {
  attempts: Attempt[];
  world: World;
  providers: ProviderEndpoint[];
  deploys: DeployResult[];
  summary: Summary;
}

function pick<T>(random: Random, items: T[], weight: (item: T) => number): T {
  const total = items.reduce((sum, item) => sum + weight(item), 0);
  if (total <= 0) throw new Error("nothing to pick: all weights are zero");
  let draw = random() * total;
  for (const item of items) {
    draw -= weight(item);
    if (draw < 0) return item;
  }
  return items[items.length - 1];
}

async function openProviders(client: ChainClient, specs: ProviderSpec[]): Promise<ProviderEndpoint[]> {
  const out: ProviderEndpoint[] = [];
  for (const spec of specs) {
    let url: string;
    try {
      url = (await client.addProvider({ label: spec.label, dropRate: spec.dropRate, seed: spec.seed })).url;
    } catch (error) {
      // Re-running against the same localnet: reuse the provider, with this run's drop rate.
      if (!(error instanceof ChainRpcError) || !error.message.includes("already exists")) throw error;
      url = (
        await client.call<{ url: string }>("txray_setDropRate", {
          provider: spec.label,
          dropRate: spec.dropRate,
          seed: spec.seed,
        })
      ).url;
    }
    out.push({
      label: spec.label,
      url,
      rpcHash: rpcHash(url),
      connection: new Connection(url, { commitment: "confirmed", disableRetryOnRateLimit: true }),
    });
  }
  return out;
}

/**
 * Who sends each attempt: the bot is a script on a timer, the people send at random (by weight) in
 * between. The bot's period is its share of the traffic in time: `every` attempts' worth (from its
 * weight among all payers), measured over the first attempts of the run; until then it takes every
 * `every`-th attempt, and for good when the clock did not move (a frozen `now`: the run then replays
 * exactly). When its tick is less than one attempt's time away, the run waits for it, so the bot
 * sends on time rather than whenever the previous attempt happens to end; a tick missed during a
 * long pause (the redeploy) is skipped, not caught up. Regular inter-arrival times are what the bot
 * score's regularity feature sees (docs/api.md).
 */
export class PayerSchedule {
  private readonly bot: Wallet | undefined;
  private readonly people: Wallet[];
  private readonly every: number;
  private started = 0;
  private period = 0;
  private nextBotAt = 0;

  constructor(
    private readonly payers: Wallet[],
    private readonly clock: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => Bun.sleep(ms),
  ) {
    this.bot = payers.find((w) => w.walletAdapter === BOT_ADAPTER);
    this.people = payers.filter((w) => w !== this.bot);
    const total = payers.reduce((sum, w) => sum + w.weight, 0);
    this.every = this.bot ? Math.max(1, Math.round(total / this.bot.weight)) : 0;
  }

  async payerFor(index: number, random: Random): Promise<Wallet> {
    if (!this.bot || this.people.length === 0) return pick(random, this.payers, (w) => w.weight);
    let now = this.clock();
    if (index === 0) this.started = now;
    const warmup = 3 * this.every;
    if (index === warmup) {
      this.period = ((now - this.started) / warmup) * this.every;
      this.nextBotAt = now;
    }
    if (index < warmup || this.period <= 0)
      return index % this.every === this.every - 1 ? this.bot : pick(random, this.people, (w) => w.weight);
    const attemptMs = this.period / this.every;
    if (now < this.nextBotAt - attemptMs) return pick(random, this.people, (w) => w.weight);
    if (now < this.nextBotAt) {
      await this.sleep(this.nextBotAt - now);
      now = this.clock();
    }
    this.nextBotAt = now - this.nextBotAt > this.period ? now + this.period : this.nextBotAt + this.period;
    return this.bot;
  }
}

export async function runTraffic(options: RunOptions): Promise<RunResult> {
  const seed = options.seed ?? 1;
  const random = mulberry32(seed);
  const now = options.now ?? Date.now;
  const client = new ChainClient(options.rpcUrl);
  const mainConnection = new Connection(options.rpcUrl, { commitment: "confirmed" });
  const specs = options.providers ?? DEFAULT_PROVIDERS;
  const providers = await openProviders(client, specs);
  const mix = options.mix ?? DEFAULT_MIX;
  const world = await createWorld(mainConnection, client, {
    seed,
    payers: options.payers,
    deployApp: (mix.app_call ?? 0) > 0,
  });
  const kinds = SCENARIOS.filter((kind) => (mix[kind] ?? 0) > 0 && (kind !== "app_call" || world.appProgram));
  const deploys: DeployResult[] = [];
  const attempts: Attempt[] = [];
  const schedule = new PayerSchedule(world.payers, now);
  let appBroken = false;

  const count = options.attempts ?? 100;
  for (let index = 0; index < count; index++) {
    if (options.redeployAt === index && world.appProgram) {
      // Block times are whole seconds, and txray dates a deploy by the time of its slot: wait for a
      // fresh second and produce a block in it, so the redeploy's slot is dated after every attempt
      // sent before it (the current slot was produced earlier, maybe within the same second).
      await Bun.sleep(1000 - (Date.now() % 1000) + 5);
      await client.advanceBlocks(1);
      deploys.push(await client.deployProgram({ programId: world.appProgram.toBase58(), template: "spl-token" }));
      appBroken = true;
    }
    const kind = pick(random, kinds, (k) => mix[k] ?? 0);
    const payer = await schedule.payerFor(index, random);
    const recipient = pick(random, world.recipients, () => 1);
    const provider = pick(random, providers, (p) => specs.find((s) => s.label === p.label)?.weight ?? 1);
    const attempt = await runAttempt(kind, {
      world,
      provider,
      payer,
      recipient,
      index,
      random,
      chain: client,
      now,
      appBroken,
      preflightErrorText: options.preflightErrorText ?? "transactionMessage",
    });
    attempts.push(attempt);
    options.onAttempt?.(attempt, index);
    if (options.blocksPerAttempt) await client.advanceBlocks(options.blocksPerAttempt);
    if (options.intervalMs) await Bun.sleep(options.intervalMs);
  }

  if (options.expireAtEnd !== false && attempts.length > 0) {
    const newestExpiry = Math.max(...attempts.map((a) => a.envelope.lastValidBlockHeight));
    const height = await client.blockHeight();
    if (height <= newestExpiry) await client.advanceBlocks(Math.min(newestExpiry - height + 1, MAX_PROCESSING_AGE + 1));
  }
  return { attempts, world, providers, deploys, summary: summarize(attempts) };
}
