// Precomputed public answers of one serving version. The tables job computes, per program × window,
// the public answer of every route that needs no per-request parameter (tables/precompute-answers.ts) and
// writes them next to the version's database as `serving-<n>.answers`: one line per answer,
// `route \t program \t window \t body`, body = the answer's JSON (`null` for a precomputed 404,
// e.g. no deploy; JSON never contains a raw tab or newline). A reader reads the file when it opens
// the version (one asynchronous read, a few milliseconds of splitting) and parses each body on
// first use. The query functions return these objects for public requests and compute only
// account-scoped or parameterised ones (cached per version).
//
// Not a table of the serving database: DuckDB reads a string column vector-wise, so fetching one
// body costs reading them all (~5 ms for 15 MB), and loading them all converts every row on the
// JavaScript thread.

import { existsSync } from "node:fs";
import type { WindowName } from "../windows";
import { shareAnswer } from "./shared-answer-text";

export const PRECOMPUTED_ROUTES = ["baseline", "release-diff", "top-issues", "cu-headroom", "provider-report"] as const;
export type PrecomputedRoute = (typeof PRECOMPUTED_ROUTES)[number];

export type AnswerLine = { route: PrecomputedRoute; program: string; win: WindowName; body: string };

const slot = (route: string, program: string, win: string) => `${route}\t${program}\t${win}`;

/** The side file's text. */
export function answerLines(lines: AnswerLine[]): string {
  return lines.map((line) => `${slot(line.route, line.program, line.win)}\t${line.body}\n`).join("");
}

export class PrecomputedAnswers {
  private readonly parsed = new Map<string, unknown>();

  private constructor(private readonly bodies: Map<string, string>) {}

  static none(): PrecomputedAnswers {
    return new PrecomputedAnswers(new Map());
  }

  /** A version's answers; none when it has no answers file (built before they existed). */
  static async read(file: string): Promise<PrecomputedAnswers> {
    if (!existsSync(file)) return PrecomputedAnswers.none();
    const text = await Bun.file(file).text();
    const bodies = new Map<string, string>();
    for (let at = 0; at < text.length; ) {
      let end = text.indexOf("\n", at);
      if (end < 0) end = text.length;
      const third = nthTab(text, at, 3);
      if (third < 0 || third > end) throw new Error(`${file}: malformed line at offset ${at}`);
      bodies.set(text.slice(at, third), text.slice(third + 1, end));
      at = end + 1;
    }
    return new PrecomputedAnswers(bodies);
  }

  get size(): number {
    return this.bodies.size + this.parsed.size;
  }

  /** The stored answer (`null`: a precomputed "no answer"); undefined when none was precomputed. */
  get<T>(route: PrecomputedRoute, program: string, win: WindowName): T | null | undefined {
    const key = slot(route, program, win);
    const hit = this.parsed.get(key);
    if (hit !== undefined) return hit as T | null;
    const body = this.bodies.get(key);
    if (body === undefined) return undefined;
    // The stored text is JSON.stringify of this very answer: the HTTP layer can send it as is.
    const answer = shareAnswer(JSON.parse(body) as T | null, body);
    this.parsed.set(key, answer);
    this.bodies.delete(key);
    return answer;
  }
}

function nthTab(text: string, from: number, n: number): number {
  let at = from - 1;
  for (let i = 0; i < n; i++) {
    at = text.indexOf("\t", at + 1);
    if (at < 0) return -1;
  }
  return at;
}
