// The signature index (docs/scaling.md, "Finding a signature"): where `why` and `diagnose-drop`
// find any attempt txray took in by its signature, resolved or still open, without touching the
// control database or scanning the lake. It is a set of immutable runs (run-file.ts) under
// <data dir>/index/signatures, each covering an interval [lo, hi] of write sequence numbers:
//   - the resolver writes one run per run of its own (the attempts it resolved, and those it took in
//     and left open), under its lease: a single writer;
//   - runs of the same size tier that follow each other are merged, FANOUT at a time, into one run
//     covering their intervals (where an attempt appears twice, the newer run's entry is kept), so a
//     look-up reads at most about FANOUT runs per tier;
//   - runs are written and merged on worker threads of their own (index-thread.ts); this class makes
//     the lines, decides what to merge and swaps the runs;
//   - a run whose entries are all older than the retention is deleted whole.
// Readers (every process) list the directory again when its modification time changes. A run
// merged away while a reader holds it open stays readable until the reader lets it go (unlinked
// files live on while open); a merged run and its inputs never both count: a run whose interval
// lies inside another's is ignored (and removed by the writer), which also repairs a merge that
// was interrupted between writing its result and removing its inputs.

import { existsSync, mkdirSync, readdirSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { IndexThread } from "./index-thread";
import { mergeRuns } from "./merge";
import { entryLine, type IndexEntry, parseLine, type RunFooter, RunReader, writeRunLines } from "./run-file";

const encoder = new TextEncoder();
/** Runs of a tier merged at once; a tier holds runs of FANOUT^tier first-level runs. */
export const FANOUT = 8;
const NAME = /^(\d{12})-(\d{12})\.run$/;
/** A temporary file older than this was abandoned (a write takes well under a minute). */
const ABANDONED_MS = 10 * 60_000;
const runName = (lo: number, hi: number) => `${String(lo).padStart(12, "0")}-${String(hi).padStart(12, "0")}.run`;

type Listed = { name: string; lo: number; hi: number };

export type MaintainResult = { merged: number; removed: number };

export class SignatureIndex {
  private listedAt = -1;
  private listed: Listed[] = [];
  private readonly open = new Map<string, RunReader>();
  private closed = false;
  /**
   * Where runs are written and merged: worker threads of their own (the default), or this thread (`workOn: "thread"`:
   * benchmarks compare both).
   */
  private readonly writeThread: IndexThread | null;
  private readonly mergeThread: IndexThread | null;
  /** The last write sequence number this process took. */
  private lastSeq = 0;

  constructor(
    readonly dir: string,
    options: { workOn?: "worker" | "thread" } = {},
  ) {
    this.writeThread = options.workOn === "thread" ? null : new IndexThread();
    this.mergeThread = options.workOn === "thread" ? null : new IndexThread();
  }

  /**
   * Every attempt with this signature, one entry per attempt id (the newest run's), newest run
   * first. Several attempts share a signature when a client sent the same signed transaction
   * again (each send is an attempt). `visible` may hide runs (the resolver's run of a batch that has
   * not committed yet).
   */
  lookup(sig: string, visible: (footer: RunFooter) => boolean = () => true): IndexEntry[] {
    for (let tries = 0; ; tries++) {
      try {
        const seen = new Set<string>();
        const found: IndexEntry[] = [];
        for (const run of this.runsNewestFirst()) {
          const reader = this.reader(run);
          if (!visible(reader.footer)) continue;
          for (const text of reader.lookup(sig)) {
            const entry = parseLine(text);
            if (seen.has(entry.attemptId)) continue;
            seen.add(entry.attemptId);
            found.push(entry);
          }
        }
        return found;
      } catch (error) {
        // A run merged away between listing and opening: list again (twice at most).
        if (tries < 2 && (error as NodeJS.ErrnoException).code === "ENOENT") {
          this.listedAt = -1;
          continue;
        }
        throw error;
      }
    }
  }

  /**
   * Every entry that counts, one per attempt (the newest run's), in no particular order: a whole
   * read, for checks over everything (`bun run chaos`), never for a request.
   */
  *scan(visible: (footer: RunFooter) => boolean = () => true): Generator<IndexEntry> {
    const seen = new Set<string>();
    for (const run of this.runsNewestFirst()) {
      const reader = this.reader(run);
      if (!visible(reader.footer)) continue;
      for (const text of reader.lines()) {
        const entry = parseLine(text);
        if (seen.has(entry.attemptId)) continue;
        seen.add(entry.attemptId);
        yield entry;
      }
    }
  }

  /** The runs and their entries (status, tests). */
  stats(): { runs: number; entries: number } {
    const runs = this.current();
    return { runs: runs.length, entries: runs.reduce((sum, run) => sum + this.reader(run).footer.entries, 0) };
  }

  /**
   * Writes one run of `entries` (the writer holds the resolve lease): their lines are made here, the
   * run is written on the index's write thread. `batch`: the resolution batch it belongs to, so that
   * a batch that never commits takes its run with it (discardBatch). `at` dates an entry for retention.
   */
  async append(
    entries: IndexEntry[],
    at: (value: unknown) => number,
    batch: string | null = null,
  ): Promise<RunFooter | null> {
    if (entries.length === 0) return null;
    mkdirSync(this.dir, { recursive: true });
    let minAt = Infinity;
    let maxAt = -Infinity;
    const lines = entries.map((entry) => {
      const t = at(entry.value);
      if (t < minAt) minAt = t;
      if (t > maxAt) maxAt = t;
      return entryLine(entry);
    });
    // Sequence numbers are taken here, in call order: a run still being written is not listed yet.
    const seq = (this.lastSeq = Math.max(this.lastSeq, ...this.list(true).map((run) => run.hi)) + 1);
    const path = join(this.dir, runName(seq, seq));
    const fields = { lo: seq, hi: seq, weight: 1, batch, minAt, maxAt };
    if (!this.writeThread) return writeRunLines(path, lines, fields);
    return await this.writeThread.run({ kind: "write", path, text: encoder.encode(lines.join("\n")), fields });
  }

  /** Removes the runs written for a resolution batch that never committed. */
  discardBatch(batch: string): number {
    let removed = 0;
    for (const run of this.current()) {
      const reader = this.reader(run);
      if (reader.footer.weight !== 1 || reader.footer.batch !== batch) continue;
      this.forget(run.name);
      unlinkSync(join(this.dir, run.name));
      removed++;
    }
    if (removed > 0) this.listedAt = -1;
    return removed;
  }

  /**
   * The upkeep (one process at a time: the caller holds a lease; it may run beside the writer's
   * appends): removes runs contained in others (an interrupted merge), runs whose newest entry is
   * older than `retainFrom` and temporary files abandoned long ago, then merges tiers that are full,
   * of runs `mergeable` accepts (the run of a batch that has not committed is not). `pause` lets the
   * event loop run between blocks of a long merge when merges run on this thread.
   */
  async maintain(
    retainFrom: number,
    pause: () => Promise<void>,
    mergeable: (footer: RunFooter) => boolean = () => true,
  ): Promise<MaintainResult> {
    const result: MaintainResult = { merged: 0, removed: 0 };
    if (!existsSync(this.dir)) return result;
    for (const name of readdirSync(this.dir)) {
      // A write nobody finished (a process died): an append in progress is younger than this. One
      // listed a moment ago may be renamed by now (its write finished): nothing to remove.
      if (!name.endsWith(".tmp")) continue;
      const written = statSync(join(this.dir, name), { throwIfNoEntry: false });
      if (written && Date.now() - written.mtimeMs > ABANDONED_MS) unlinkSync(join(this.dir, name));
    }
    const all = this.list(true);
    const kept = this.withoutContained(all);
    for (const run of all) {
      if (kept.includes(run) && this.reader(run).footer.maxAt >= retainFrom) continue;
      this.forget(run.name);
      unlinkSync(join(this.dir, run.name));
      result.removed++;
    }
    this.listedAt = -1;
    for (;;) {
      const group = this.fullTier(mergeable);
      if (group === null) break;
      await this.merge(group, pause);
      result.merged++;
    }
    return result;
  }

  /** Lets go of every open run (the context closes; a merge in progress stops at its next pause). */
  close(): void {
    this.closed = true;
    this.writeThread?.close();
    this.mergeThread?.close();
    for (const reader of this.open.values()) reader.close();
    this.open.clear();
  }

  /**
   * The next runs to merge, adjacent and oldest first, else null: the oldest FANOUT runs of one tier
   * (lowest tiers first) with the runs of lower tiers among and before them, back to the nearest run
   * of a higher tier. Runs left out are the newest of their stretch, which the next runs written
   * join. A run of a lower tier between larger ones (an upkeep that found more than FANOUT runs of a
   * tier once merged the newest of them, leaving the older ones stranded) goes into the next merge
   * of the tier above it instead of keeping that tier from ever merging: stranded runs made the
   * number of runs, and so a look-up's reads and the open files, grow with time.
   */
  private fullTier(mergeable: (footer: RunFooter) => boolean): Listed[] | null {
    const all = this.current().sort((a, b) => a.lo - b.lo);
    // Runs after one that may not be merged yet wait with it (merged runs must stay adjacent).
    const blocked = all.findIndex((run) => !mergeable(this.reader(run).footer));
    const runs = blocked < 0 ? all : all.slice(0, blocked);
    const tiers = runs.map((run) => Math.floor(Math.log(this.reader(run).footer.weight) / Math.log(FANOUT) + 1e-9));
    const highest = Math.max(-1, ...tiers);
    for (let t = 0; t <= highest; t++) {
      let start = 0;
      let count = 0;
      for (let i = 0; i < runs.length; i++) {
        if (tiers[i] > t) {
          start = i + 1;
          count = 0;
        } else if (tiers[i] === t && ++count === FANOUT) return runs.slice(start, i + 1);
      }
    }
    return null;
  }

  /** Merges adjacent runs into one covering their intervals; an attempt in several keeps the newest run's entry. */
  private async merge(group: Listed[], pause: () => Promise<void>): Promise<void> {
    const footers = group.map((run) => this.reader(run).footer);
    const lo = Math.min(...group.map((run) => run.lo));
    const hi = Math.max(...group.map((run) => run.hi));
    const fields = {
      lo,
      hi,
      weight: footers.reduce((sum, f) => sum + f.weight, 0),
      batch: null,
      minAt: Math.min(...footers.filter((f) => f.entries > 0).map((f) => f.minAt), Infinity),
      maxAt: Math.max(...footers.map((f) => f.maxAt), 0),
    };
    const inputs = group.map((run) => ({ path: join(this.dir, run.name), order: run.hi }));
    const output = join(this.dir, runName(lo, hi));
    if (this.mergeThread) await this.mergeThread.run({ kind: "merge", inputs, output, fields });
    else await mergeRuns(inputs, output, fields, pause, () => this.closed);
    if (this.closed) throw new Error("signature index closed during a merge");
    for (const run of group) {
      this.forget(run.name);
      unlinkSync(join(this.dir, run.name));
    }
    this.listedAt = -1;
  }

  /** Runs that count, newest first. */
  private runsNewestFirst(): Listed[] {
    return this.current().sort((a, b) => b.hi - a.hi);
  }

  private current(): Listed[] {
    return this.withoutContained(this.list(false));
  }

  /** The runs in the directory, listed again when it changed (or always with `fresh`). */
  private list(fresh: boolean): Listed[] {
    let mtime: number;
    try {
      mtime = statSync(this.dir).mtimeMs;
    } catch {
      this.listed = [];
      return [];
    }
    if (fresh || mtime !== this.listedAt) {
      this.listed = [];
      for (const name of readdirSync(this.dir)) {
        const match = NAME.exec(name);
        if (match) this.listed.push({ name, lo: Number(match[1]), hi: Number(match[2]) });
      }
      for (const name of [...this.open.keys()]) if (!this.listed.some((run) => run.name === name)) this.forget(name);
      this.listedAt = mtime;
    }
    return [...this.listed];
  }

  private withoutContained(runs: Listed[]): Listed[] {
    return runs.filter(
      (run) =>
        !runs.some(
          (other) =>
            other !== run && other.lo <= run.lo && other.hi >= run.hi && (other.lo < run.lo || other.hi > run.hi),
        ),
    );
  }

  private reader(run: Listed): RunReader {
    let reader = this.open.get(run.name);
    if (!reader) {
      reader = RunReader.open(join(this.dir, run.name));
      this.open.set(run.name, reader);
    }
    return reader;
  }

  private forget(name: string): void {
    this.open.get(name)?.close();
    this.open.delete(name);
  }
}
