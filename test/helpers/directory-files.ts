// A directory's contents held in memory: a test process builds a costly data directory once (a
// generated lake with its serving tables) and writes a fresh copy of it for each test that changes it.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A directory's subdirectories and files, their paths relative to it. */
export type DirectoryFiles = { dirs: string[]; files: [string, Buffer][] };

export function readDirectory(root: string): DirectoryFiles {
  const entries = readdirSync(root, { recursive: true, withFileTypes: true });
  const relative = (entry: (typeof entries)[number]) => join(entry.parentPath, entry.name).slice(root.length + 1);
  return {
    dirs: entries.filter((entry) => entry.isDirectory()).map(relative),
    files: entries
      .filter((entry) => entry.isFile())
      .map((entry) => [relative(entry), readFileSync(join(root, relative(entry)))]),
  };
}

export function writeDirectory(root: string, { dirs, files }: DirectoryFiles): void {
  for (const dir of dirs) mkdirSync(join(root, dir), { recursive: true });
  for (const [path, bytes] of files) writeFileSync(join(root, path), bytes);
}
