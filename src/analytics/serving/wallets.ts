// The wallet store of one serving version, for reading: the segments its manifest
// (`serving-<n>.wallets.json`, written by the tables job) names, opened when the version is opened
// and closed with it (format: serving/wallet-segments.ts). A segment left out of newer versions is
// deleted only after the versions that read it are gone, and an open descriptor keeps a deleted
// file readable.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { WalletSegment } from "./wallet-segments";

export type WalletManifest = { segments: { day: number; name: string }[] };

export const walletsDir = (tablesDir: string) => join(tablesDir, "wallets");

export function readWalletManifest(file: string): WalletManifest | null {
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, "utf8")) as WalletManifest;
}

export class VersionWallets {
  private constructor(private readonly segments: WalletSegment[]) {}

  /** null when the version has no manifest (built before the wallet store existed). */
  static open(tablesDir: string, manifestFile: string): VersionWallets | null {
    const manifest = readWalletManifest(manifestFile);
    if (!manifest) return null;
    const opened: WalletSegment[] = [];
    try {
      for (const segment of manifest.segments) opened.push(WalletSegment.open(join(walletsDir(tablesDir), segment.name)));
    } catch (error) {
      for (const segment of opened) segment.close();
      throw error;
    }
    return new VersionWallets(opened.sort((a, b) => a.day - b.day));
  }

  /** Segments of receipt days in [firstDay, lastDay]. */
  between(firstDay: number, lastDay: number): WalletSegment[] {
    return this.segments.filter((s) => s.day >= firstDay && s.day <= lastDay);
  }

  get count(): number {
    return this.segments.length;
  }

  close(): void {
    for (const segment of this.segments) segment.close();
  }
}
