// `bun run simulate`: runs a traffic mix against a local chain and submits the envelopes to txray.
//   chain:  --rpc URL or SOLANA_RPC_URL (must be a txray localnet: it answers txray_info);
//           otherwise a localnet is started on LOCALNET_PORT (default 8899) and kept serving after
//           the run (so the service can resolve the attempts) until Ctrl-C, unless --exit.
//   mix:    --attempts N (200) --seed N (1) --providers alpha:0,bravo:0.05,charlie:0.4
//           --redeploy-at N --interval-ms N --block-time-ms N (400, own chain only)
//   output: TXRAY_ENDPOINT (http://127.0.0.1:8790) + TXRAY_API_KEY, --dry-run to skip submitting,
//           --out FILE writes one JSON line {envelope, truth} per attempt.

import { parseArgs } from "node:util";
import { z } from "zod";
import { type Localnet, startLocalnet } from "../localnet/index.ts";
import { ChainClient } from "../simulate/chain-client.ts";
import { formatSummary, type ProviderSpec, runTraffic, submitEnvelopes } from "../simulate/index.ts";

const { values: flags } = parseArgs({
  options: {
    attempts: { type: "string" },
    seed: { type: "string" },
    rpc: { type: "string" },
    port: { type: "string" },
    "block-time-ms": { type: "string" },
    providers: { type: "string" },
    "redeploy-at": { type: "string" },
    "interval-ms": { type: "string" },
    out: { type: "string" },
    "dry-run": { type: "boolean" },
    exit: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
});

if (flags.help) {
  console.log(
    "usage: bun run simulate [--attempts N] [--seed N] [--rpc URL] [--providers label:rate,...] [--redeploy-at N]\n" +
      "                        [--interval-ms N] [--block-time-ms N] [--out FILE] [--dry-run] [--exit]",
  );
  process.exit(0);
}

function fail(message: string): never {
  console.error(`simulate: ${message}`);
  process.exit(2);
}

const int = (name: string, min: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be an integer`)
    .min(min, `${name} must be ≥ ${min}`);
const config = z
  .object({
    attempts: int("--attempts", 1).default(200),
    seed: int("--seed", 0).default(1),
    port: int("--port / LOCALNET_PORT", 0).max(65535).default(8899),
    blockTimeMs: int("--block-time-ms", 0).default(400),
    redeployAt: int("--redeploy-at", 0).optional(),
    intervalMs: int("--interval-ms", 0).default(0),
    rpc: z.url("--rpc / SOLANA_RPC_URL must be a URL").optional(),
    endpoint: z.url("TXRAY_ENDPOINT must be a URL").default("http://127.0.0.1:8790"),
    apiKey: z.string().min(1).optional(),
  })
  .safeParse({
    attempts: flags.attempts,
    seed: flags.seed,
    port: flags.port ?? process.env.LOCALNET_PORT,
    blockTimeMs: flags["block-time-ms"],
    redeployAt: flags["redeploy-at"],
    intervalMs: flags["interval-ms"],
    rpc: flags.rpc ?? (process.env.SOLANA_RPC_URL || undefined),
    endpoint: process.env.TXRAY_ENDPOINT || undefined,
    apiKey: process.env.TXRAY_API_KEY || undefined,
  });
if (!config.success) fail(config.error.issues[0].message);
const settings = config.data;
if (!flags["dry-run"] && !settings.apiKey) fail("TXRAY_API_KEY is not set (or pass --dry-run)");

function parseProviders(text: string): ProviderSpec[] {
  return text.split(",").map((part) => {
    const [label, rate] = part.split(":");
    const dropRate = Number(rate ?? 0);
    if (!label || !Number.isFinite(dropRate) || dropRate < 0 || dropRate > 1)
      fail(`bad --providers entry "${part}" (want label:rate, rate in [0,1])`);
    return { label, dropRate };
  });
}
const providers = flags.providers ? parseProviders(flags.providers) : undefined;

let localnet: Localnet | null = null;
let rpcUrl = settings.rpc;
if (rpcUrl) {
  try {
    await new ChainClient(rpcUrl).call("txray_info");
  } catch (error) {
    fail(
      `${rpcUrl} is not a txray localnet (txray_info failed: ${error instanceof Error ? error.message : error}); the simulator only drives local chains`,
    );
  }
} else {
  // A `bun run localnet` already on LOCALNET_PORT is used as is (txray resolves against it);
  // otherwise the simulator starts its own chain and keeps serving it after the run.
  const running = `http://127.0.0.1:${settings.port ?? 8899}`;
  const answers = await new ChainClient(running).call("txray_info").then(
    () => true,
    () => false,
  );
  if (answers) {
    rpcUrl = running;
    console.log(`using the localnet at ${rpcUrl}`);
  } else {
    localnet = await startLocalnet({ port: settings.port, blockTimeMs: settings.blockTimeMs, seed: settings.seed });
    rpcUrl = localnet.url;
    console.log(`started localnet at ${rpcUrl}`);
  }
}

const started = Date.now();
const run = await runTraffic({
  rpcUrl,
  attempts: settings.attempts,
  seed: settings.seed,
  providers,
  redeployAt: settings.redeployAt,
  intervalMs: settings.intervalMs,
  onAttempt: (_, index) => {
    if ((index + 1) % 50 === 0) console.log(`  ${index + 1}/${settings.attempts} attempts`);
  },
});
console.log(formatSummary(run.summary));
console.log(
  `ran in ${((Date.now() - started) / 1000).toFixed(1)} s; providers: ${run.providers.map((p) => `${p.label}=${p.url}`).join(" ")}`,
);
for (const deploy of run.deploys) console.log(`redeployed ${deploy.programId} at slot ${deploy.slot}`);

if (flags.out) {
  await Bun.write(flags.out, `${run.attempts.map((attempt) => JSON.stringify(attempt)).join("\n")}\n`);
  console.log(`wrote ${run.attempts.length} attempts to ${flags.out}`);
}

if (!flags["dry-run"]) {
  try {
    const submitted = await submitEnvelopes(
      settings.endpoint,
      settings.apiKey!,
      run.attempts.map((a) => a.envelope),
    );
    console.log(
      `submitted to ${settings.endpoint}: accepted ${submitted.accepted} in ${submitted.batches} batches (${submitted.retries} retries)`,
    );
  } catch (error) {
    console.error(`submit failed: ${error instanceof Error ? error.message : error}`);
    process.exitCode = 1;
  }
}

if (localnet) {
  if (flags.exit) {
    await localnet.stop();
  } else {
    console.log(`localnet keeps serving at ${rpcUrl} (SOLANA_RPC_URL for the service); Ctrl-C to stop`);
    const stop = async () => {
      await localnet!.stop();
      process.exit(process.exitCode ?? 0);
    };
    process.on("SIGINT", () => void stop());
    process.on("SIGTERM", () => void stop());
  }
}
