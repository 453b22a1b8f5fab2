// The service and SDK version, from package.json (one source of truth), and the build: the git
// commit of the checkout this process runs from, read from the files under .git (no git process at
// runtime), else "unknown" (an export without .git, a packaged copy).

import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../../package.json";

export const VERSION: string = pkg.version;

/** The checkout's commit (12 hex digits), or "unknown" when this copy is not a git checkout. */
export const BUILD: string = gitCommit(resolve(import.meta.dir, "../.."));

/** `txray 0.4.0 (build 1a2b3c4d5e6f)`: what --version prints and the start-up line names. */
export const VERSION_LINE = `txray ${VERSION} (build ${BUILD})`;

/**
 * Data written by a newer txray than this build understands (a control schema or a serving state
 * schema above the highest this build knows): the entry points print the message alone and exit 1,
 * since carrying on would misread it or rebuild it downwards.
 */
export class NewerDataError extends Error {
  constructor(what: string, found: number, known: number) {
    super(
      `this data directory was written by a newer txray (${what} ${found} > ${known}); upgrade txray or restore a backup`,
    );
  }
}

/** The commit HEAD names in the git checkout at `root`, else "unknown"; never throws. */
export function gitCommit(root: string): string {
  try {
    let gitDir = join(root, ".git");
    if (!existsSync(gitDir)) return "unknown";
    // A worktree's .git is a file naming its own directory; its refs live in the common directory.
    if (statSync(gitDir).isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitDir, "utf8"))?.[1]?.trim();
      if (!pointer) return "unknown";
      gitDir = resolve(root, pointer);
    }
    const head = readFileSync(join(gitDir, "HEAD"), "utf8").trim();
    if (/^[0-9a-f]{40,64}$/.test(head)) return head.slice(0, 12);
    const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
    if (!ref) return "unknown";
    const commonFile = join(gitDir, "commondir");
    const common = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, "utf8").trim()) : gitDir;
    for (const dir of [gitDir, common]) {
      const file = join(dir, ref);
      if (existsSync(file)) {
        const commit = readFileSync(file, "utf8").trim();
        if (/^[0-9a-f]{40,64}$/.test(commit)) return commit.slice(0, 12);
      }
    }
    const packed = join(common, "packed-refs");
    if (existsSync(packed))
      for (const line of readFileSync(packed, "utf8").split("\n")) {
        const [commit, name] = line.split(" ");
        if (name === ref && /^[0-9a-f]{40,64}$/.test(commit)) return commit.slice(0, 12);
      }
    return "unknown";
  } catch {
    return "unknown";
  }
}
