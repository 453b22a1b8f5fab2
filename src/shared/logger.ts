// Effects are passed in: code logs through a Logger it was given, so tests run silent and a
// deployment gets JSON lines on stderr. Never log keys, bodies or anything a user did not choose to share.

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
export type Logger = {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const emit = (at: Exclude<LogLevel, "silent">) => (message: string, fields?: Record<string, unknown>) => {
    if (RANK[at] < RANK[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields }));
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export const silentLogger: Logger = createLogger("silent");

/** Error text safe for logs and job records: message only, never a stack. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
