// Where the SDK finds its key and endpoint: the option, else the environment (TXRAY_API_KEY,
// TXRAY_ENDPOINT), else, for the key in server runtimes (Node, Bun, Deno), the CLI's per-user config
// file `$XDG_CONFIG_HOME/txray/config.json` (default `~/.config/txray/config.json`, written by
// `txray keys create`). The path logic mirrors src/cli/user-config.ts without importing it: the SDK
// must stay free of server code. Node's fs is reached through process.getBuiltinModule (or a
// computed dynamic import on older Node), so browser bundlers never see it.

export const DEFAULT_ENDPOINT = "http://127.0.0.1:8790";

type Env = Record<string, string | undefined>;

function processEnv(): Env | null {
  const p = (globalThis as { process?: { env?: Env } }).process;
  return p && typeof p.env === "object" && p.env !== null ? p.env : null;
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

export function resolveEndpoint(option: string | undefined): string {
  const endpoint = nonEmpty(option) ?? nonEmpty(processEnv()?.TXRAY_ENDPOINT) ?? DEFAULT_ENDPOINT;
  return endpoint.replace(/\/+$/, "");
}

/** True in a server runtime with a file system (not a browser, not a web worker). */
function isServerRuntime(): boolean {
  const p = (globalThis as { process?: { versions?: Record<string, string> } }).process;
  return (
    typeof p?.versions === "object" &&
    (p.versions.node !== undefined || p.versions.bun !== undefined) &&
    typeof (globalThis as { document?: unknown }).document === "undefined"
  );
}

async function builtin<T>(name: string): Promise<T | null> {
  const p = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof p?.getBuiltinModule === "function") return (p.getBuiltinModule(name) as T) ?? null;
  try {
    const specifier = `node:${name}`;
    return (await import(/* @vite-ignore */ /* webpackIgnore: true */ specifier)) as T;
  } catch {
    return null;
  }
}

/** The CLI config file's path, as src/cli/user-config.ts computes it. */
export function userConfigPath(env: Env, home: string): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : `${env.HOME ?? home}/.config`;
  return `${base}/txray/config.json`;
}

async function keyFromConfigFile(env: Env): Promise<string | undefined> {
  if (!isServerRuntime()) return undefined;
  const fs = await builtin<{ readFileSync(path: string, encoding: "utf8"): string }>("fs");
  const os = await builtin<{ homedir(): string }>("os");
  if (!fs) return undefined;
  try {
    const text = fs.readFileSync(userConfigPath(env, os?.homedir() ?? ""), "utf8");
    return nonEmpty((JSON.parse(text) as { apiKey?: unknown }).apiKey);
  } catch {
    return undefined;
  }
}

/** The key from the option, TXRAY_API_KEY or the CLI config file; undefined when none is found. */
export async function resolveApiKey(option: string | undefined): Promise<string | undefined> {
  const env = processEnv() ?? {};
  return nonEmpty(option) ?? nonEmpty(env.TXRAY_API_KEY) ?? (await keyFromConfigFile(env));
}
