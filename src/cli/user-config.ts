// The per-user config file ($XDG_CONFIG_HOME/txray/config.json, default ~/.config/txray/config.json,
// mode 0600) where `txray keys create` stores the key the SDK and CLI pick up. Written to a temp file
// and renamed, so a crash never leaves half a file.

import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export type UserConfig = { apiKey?: string; account?: string; scope?: string; endpoint?: string };

export function userConfigPath(env: Record<string, string | undefined> = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), ".config");
  return join(base, "txray", "config.json");
}

export function readUserConfig(path: string): UserConfig {
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, "utf8")) as UserConfig;
  } catch {
    return {};
  }
}

export function writeUserConfig(path: string, update: UserConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const merged = { ...readUserConfig(path), ...update };
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}
