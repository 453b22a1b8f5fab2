// The analytics windows: lengths relative to a tables build's clock (`window.until`). Its own module
// so the query layer and the tables build can both use it without importing each other.

export const WINDOWS = { "1d": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 } as const;
export type WindowName = keyof typeof WINDOWS;
export const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];
export const DEFAULT_WINDOW: WindowName = "7d";
