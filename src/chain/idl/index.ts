// Public surface of the IDL module: parse Anchor (legacy and ≥0.30 spec) and Shank IDLs, keep them
// in a registry keyed by program id, store them on disk, and fetch the Anchor IDL account on chain.

export { toSnakeCase, toUpperCamelCase, splitIdentifierWords } from "./case";
export {
  parseIdl,
  anchorInstructionDiscriminator,
  type IdlFormat,
  type ParsedIdl,
  type ParsedIdlError,
  type ParsedIdlInstruction,
} from "./parse";
export { IdlRegistry } from "./registry";
export { saveIdl, loadIdls, idlDirectory, idlFilePath, IDL_DIR_NAME } from "./idl-files";
export {
  anchorIdlAddress,
  createWithSeed,
  decodeAnchorIdlAccount,
  fetchOnchainIdl,
  ANCHOR_IDL_SEED,
  IDL_ACCOUNT_DISCRIMINATOR,
  type AnchorIdlAccount,
  type OnchainIdl,
} from "./onchain";
export { accountDataReader, refreshOnchainIdls } from "./refresh";
