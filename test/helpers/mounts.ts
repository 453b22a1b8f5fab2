// Real filesystem faults for the reliability tests: a small tmpfs (a disk that fills up) and a
// read-only bind mount (root ignores chmod, so permissions cannot make a directory read-only for
// these tests). Both need mount(2) (root with CAP_SYS_ADMIN); where it is refused the tests say so
// and skip instead of pretending.
import { spawnSync } from "bun";

function run(args: string[]): { ok: boolean; error: string } {
  const result = spawnSync(args, { stdout: "ignore", stderr: "pipe" });
  return { ok: result.exitCode === 0, error: result.stderr.toString().trim() };
}

/** Why mounting is impossible here, or null when it works. */
export function mountUnavailable(probeDir: string): string | null {
  const probe = run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probeDir]);
  if (!probe.ok) return `mount(2) refused (${probe.error || "not permitted"})`;
  run(["umount", probeDir]);
  return null;
}

export function mountTmpfs(dir: string, bytes: number): void {
  const result = run(["mount", "-t", "tmpfs", "-o", `size=${bytes}`, "tmpfs", dir]);
  if (!result.ok) throw new Error(`mount tmpfs ${dir}: ${result.error}`);
}

/** Makes `dir` read-only in place (a bind mount of itself, remounted read-only). */
export function bindReadOnly(dir: string): void {
  for (const args of [
    ["mount", "--bind", dir, dir],
    ["mount", "-o", "remount,bind,ro", dir],
  ]) {
    const result = run(args);
    if (!result.ok) throw new Error(`${args.join(" ")}: ${result.error}`);
  }
}

export function unmount(dir: string): void {
  if (!run(["umount", dir]).ok) run(["umount", "-l", dir]); // lazily, when a file is still open
}
