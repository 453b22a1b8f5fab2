// Resolve runs until nothing is left to decide soon, as `txray jobs run resolve` does (a drop needs a
// second look-up in a later run); tests use a short recheck delay, so "soon" is a few hundred ms here.
import { resolveSettled, type ResolveOptions } from "../../src/chain/resolve";
import type { Context } from "../../src/context";

export const resolveUntilSettled = (ctx: Context, options: ResolveOptions, settleMs = 300) => resolveSettled(ctx, options, { settleMs });
