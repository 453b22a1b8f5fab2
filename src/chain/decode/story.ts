// The decoded failure story: one shape for every outcome (docs/api.md#get-v1whysig, docs/architecture.md "Outcomes,
// drops and issues"). Fields that do not apply are null, never omitted, so the lake column types and the `why` route
// never vary.

import { z } from "zod";

export const DecodedStorySchema = z.object({
  /** Program of the top-level instruction the story is about (failing one, else the main one). */
  topLevelProgram: z.string().nullable(),
  /**
   * UpperCamelCase name of the targeted program's instruction: on a failure, the instruction of the
   * targeted program's frame among the frames enclosing the failure, else the failing top-level
   * instruction's; otherwise the main instruction's.
   */
  instruction: z.string().nullable(),
  /** "2" = top-level instruction 2; "2.1" = its second direct CPI; "2.1.0" = that CPI's first CPI. */
  ixPath: z.string().nullable(),
  /** Invoke depth − 1 of the frame the story is about (0 = top level). */
  cpiDepth: z.number().int().min(0).nullable(),
  /** Custom program error code. */
  errCode: z.number().int().min(0).nullable(),
  errName: z.string().nullable(),
  errMessage: z.string().nullable(),
  /** Innermost program whose frame failed. */
  failingProgram: z.string().nullable(),
  /** Instruction name of that innermost failing frame (null when nothing failed in an instruction). */
  failingInstruction: z.string().nullable(),
  cuUsed: z.number().int().min(0).nullable(),
  cuRequested: z.number().int().min(0).nullable(),
  /** Value-free grouping key: `custom:6001`, `InstructionError:IllegalOwner`, `BlockhashNotFound`, ... */
  errorKey: z.string().nullable(),
  computeExceeded: z.boolean(),
  logTruncated: z.boolean(),
  /** The TransactionError as reported: bare variant, or compact JSON for variants with data. */
  txError: z.string().nullable(),
});

export type DecodedStory = z.infer<typeof DecodedStorySchema>;

/** A story with every field null: the shape for outcomes the chain tells nothing about (drops). */
export const EMPTY_STORY: DecodedStory = {
  topLevelProgram: null,
  instruction: null,
  ixPath: null,
  cpiDepth: null,
  errCode: null,
  errName: null,
  errMessage: null,
  failingProgram: null,
  failingInstruction: null,
  cuUsed: null,
  cuRequested: null,
  errorKey: null,
  computeExceeded: false,
  logTruncated: false,
  txError: null,
};
