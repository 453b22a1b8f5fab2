// Public surface of the IDL module: parse Anchor (legacy and ≥0.30 spec) and Shank IDLs, keep them
// in a registry keyed by program id (every version with the slot it applies from), store them on
// disk, and fetch the Anchor IDL account on chain.

export { decodeInstructionArgs } from "./borsh";
export { splitIdentifierWords, toSnakeCase, toUpperCamelCase } from "./case";
export {
  IDL_DIR_NAME,
  idlDirectory,
  idlFilePath,
  loadIdls,
  readNewestIdlText,
  type SavedIdl,
  saveIdl,
  saveIdlVersion,
  storedIdlSlots,
} from "./idl-files";
export {
  ANCHOR_IDL_SEED,
  type AnchorIdlAccount,
  anchorIdlAddress,
  createWithSeed,
  decodeAnchorIdlAccount,
  fetchOnchainIdl,
  IDL_ACCOUNT_DISCRIMINATOR,
  type OnchainIdl,
} from "./onchain";
export {
  anchorInstructionDiscriminator,
  type IdlFormat,
  type ParsedIdl,
  type ParsedIdlError,
  type ParsedIdlInstruction,
  parseIdl,
} from "./parse";
export { accountDataReader, refreshOnchainIdls } from "./refresh";
export { IdlRegistry, type IdlVersion } from "./registry";
